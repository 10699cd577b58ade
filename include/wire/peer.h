/*
 * peer.h -- datagrams among nodes (DESIGN.md section 5), one line each:
 *
 *   VOLERY/1 <cluster> <sender> <incarnation> <reply_port> <TYPE> [args]
 *
 *   HEARTBEAT <master 0|1> <epoch> <free> <slots> <volunteer> <reputation>
 *             <ntasks> <digest> <client_port> <speed> <life_s> <sent_ms>
 *             <beat_ms>        (its next heartbeat within: heartbeat.h)
 *             [<cores> <memory_mb> <tags|-> <executables|->]
 *                              (what it has: capset.c; lists of names)
 *             [window=<in_s>,<lasts_s>]
 *                              (its batch window ahead, avail.h)
 *             [wake=<mac>@<broadcast>[,always]]
 *                              (last, when it goes to sleep: how to wake
 *                              it, and that it volunteers whenever up)
 *   WHO_IS_MASTER
 *   START_NEW_MASTER_ELECTION
 *   TRY_TO_BE_MASTER <reputation> <map_size> <timestamp>
 *   NEW_MASTER <epoch>
 *   ENQUEUE <task record>          (a task; the master answers ENQUEUE_ACK)
 *   ENQUEUE_ACK <uuid>
 *   TRY_DEQUEUE <uuid> <timestamp>
 *   STATE <task record>            (the whole task after a change)
 *   PROGRESS <uuid> <percent> <ver> <started_ms>
 *   GET_TASK <uuid>
 *   TASKS_TRANSFER
 *   VOTE <task record>             (the sender's end of the task: its vote
 *                                  on a proposed end, confirm.c)
 *   RETIRED <uuid>                 (the task ended long ago and left the
 *                                  maps: forget a stale copy, retire.c)
 *   REVOKE <revocation>            (the admin withdrew a node's certificate:
 *                                  ident.h; the shell's, identity.c)
 *   CERT_WANTED <node>             (the sender relayed a record that node
 *                                  wrote, and we lack its certificate)
 *   CERT <certificate>             (the answer: the shell's, identity.c)
 *   SECRET_WANTED <uuid>           (the runner asks the taker for the task's
 *                                  --secret-env values: secrets.c)
 *   SECRET <uuid> <sealed values>  (the answer, sealed to the runner's key)
 *   CKPT_TAKE <uuid> <checkpoint>  (the runner asks the receiver to keep a
 *                                  copy of its run's newest checkpoint,
 *                                  task.h's text: ckpt.c)
 *   CKPT_HELD <uuid> <seq>         (the answer: a copy of seq is kept here)
 *
 * A task record is wire_task_encode()'s line.  Parsing is pure.
 */
#ifndef VOLERY_PEER_H
#define VOLERY_PEER_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

#define PEER_PROTO "VOLERY/1"

enum peer_type {
	PEER_HEARTBEAT,
	PEER_WHO_IS_MASTER,
	PEER_START_ELECTION,
	PEER_TRY_TO_BE_MASTER,
	PEER_NEW_MASTER,
	PEER_ENQUEUE,
	PEER_ENQUEUE_ACK,
	PEER_TRY_DEQUEUE,
	PEER_STATE,
	PEER_PROGRESS,
	PEER_GET_TASK,
	PEER_TASKS_TRANSFER,
	PEER_VOTE,
	PEER_RETIRED,
	PEER_REVOKE,
	PEER_CERT_WANTED,
	PEER_CERT,
	PEER_SECRET_WANTED,
	PEER_SECRET,
	PEER_CKPT_TAKE,
	PEER_CKPT_HELD,
};
#define PEER_NTYPES 21

/*
 * TASKS_TRANSFER: the whole map asked for ("TASKS_TRANSFER"), or only
 * what differs: "ask <digests>", the asker's map digest in each of
 * PEER_BUCKETS buckets of uuids (16 hex digits each), answered by the
 * records of the buckets that differ and that the asker has none of, by
 * "list <entries>" of the others, and by "send <mask>", which buckets
 * the asker lists back (a bit each, 4 to a hex digit).  A list entry is
 * a uuid and its record's share of the digest (16 hex digits), with
 * nothing between; whoever holds a listed record otherwise, or not at
 * all, asks for it (GET_TASK).
 */
#define PEER_BUCKETS		256
#define PEER_TRANSFER_ALL	0
#define PEER_TRANSFER_ASK	1
#define PEER_TRANSFER_SEND	2
#define PEER_TRANSFER_LIST	3
#define PEER_LIST_ENTRY		(UUID_STRLEN + 16)
#define PEER_LIST_MAX		128	/* entries a datagram */

struct peer_msg {
	/* Header. */
	char		 cluster[NAME_MAXLEN + 1];
	char		 sender[NAME_MAXLEN + 1];
	uint64_t	 incarnation;
	int		 reply_port;
	enum peer_type	 type;

	/* Arguments, by type. */
	char		 uuid[UUID_STRLEN + 1];
	int64_t		 timestamp;	/* TRY_*: ms; PROGRESS: run start;
					 * HEARTBEAT: when sent */
	uint64_t	 epoch;
	int		 master;
	int		 free, slots;
	char		 volunteer[16];
	int		 reputation;
	uint64_t	 map_size;	/* TRY_TO_BE_MASTER, HEARTBEAT ntasks */
	uint64_t	 digest;
	int		 client_port;	/* HEARTBEAT: its client protocol port */
	int		 speed;		/* HEARTBEAT: per mille of the pool's */
	int64_t		 beat_ms;	/* HEARTBEAT: its next within, ms */
	int64_t		 life_s;	/* HEARTBEAT: expected rest of its
					 * volunteering, s */
	int64_t		 window_in_s;	/* HEARTBEAT: its batch window ahead
					 * opens in (0: open) ... */
	int64_t		 window_s;	/* ... and lasts; 0: none told */
	const char	*wake;		/* HEARTBEAT "asleep": "<mac>@<ipv4>
					 * [,always]" (wake.h), else NULL */
	/* HEARTBEAT: what it has (0 cores: not told, an older node);
	 * the lists are comma lists of names, "" for none. */
	int		 cores;
	int64_t		 memory_mb;
	const char	*tags;
	const char	*execs;
	const char	*contain;	/* how runs are held, or "" */
	const char	*noacct;	/* owners it has no account for */
	int		 percent;
	uint64_t	 ver;		/* PROGRESS; CKPT_HELD: the seq */
	int		 transfer;	/* TASKS_TRANSFER: PEER_TRANSFER_* */
	int		 again;		/* STATE: its proposer asks every
					 * voter ("STATE again <record>") */
	const char	*record;	/* ENQUEUE, STATE, VOTE, REVOKE,
					 * CERT_WANTED, CERT; TASKS_TRANSFER's
					 * digests or mask: into buf */
	size_t		 record_len;

	char		 buf[DATAGRAM_MAX + 1];
};

const char *peer_type_name(enum peer_type);
/* "aa:bb:cc:dd:ee:ff@a.b.c.d[,always]" (HEARTBEAT's wake=)? */
int	peer_wake_valid(const char *);
int	peer_parse(const char *, size_t, struct peer_msg *, char *, size_t);
/* An empty message of type (its buffer left alone: it is large). */
void	peer_msg_init(struct peer_msg *, enum peer_type);
/* The body of m (type and arguments, no header); its length or -1. */
int	peer_encode(const struct peer_msg *, char *, size_t);
/* Header for a datagram of ours; append the type and arguments. */
int	peer_header(char *, size_t, const char *cluster, const char *sender,
	    uint64_t incarnation, int reply_port);

#endif
