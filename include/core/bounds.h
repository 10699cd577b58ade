/*
 * bounds.h -- every protocol and storage limit of volery, in one place.
 */
#ifndef VOLERY_BOUNDS_H
#define VOLERY_BOUNDS_H

#define UUID_STRLEN 36		/* canonical text form, without NUL */
#define NAME_MAXLEN 64		/* executable, node and task-type names */
#define ADDR_MAXLEN 64		/* a client's address as text */
#define RELAYS_MAX 16		/* <relay>s a node names */
#define WAKE_TEXT_MAX 40	/* "<mac>@<ipv4>,always" (peer.h) */
#define USER_MAXLEN 32		/* a submitting user's login name */
#define UID_MAXVAL 4294967294LL	/* (uid_t)-1 is no one */
#define PATH_MAXLEN 1024	/* -p and -x arguments */
#define DATASET_MAXLEN 64	/* one output dataset id */
#define REASON_MAXLEN 160	/* why a task was cancelled or failed */

#define CLIENT_LINE_MAX 4096	/* one client request, without newline */
#define CLIENT_OUTPUT_MAX (4 * 1024 * 1024) /* unread replies before drop */
#define RUNNER_LINE_MAX 4096	/* one line from a task on stdout/stderr */
#define RECORD_LINE_MAX 65536	/* one journal record */

#define DATAGRAM_MAX 8192	/* one peer datagram */

/* A confirmed end's certificate (quorum.c): at most this many votes,
 * each "name/members/signature", joined by '+'; a vote alone is
 * "members/signature".  A pool of up to 17 members certifies by a
 * majority; a larger one by this many votes (a datagram holds no more). */
#define QC_SIGNERS_MAX 9
#define QC_MEMBERS_MAX 99999
#define QC_VOTE_TEXT_MAX (11 + 1 + 86)
#define QC_TEXT_MAX (QC_SIGNERS_MAX * (NAME_MAXLEN + 1 + QC_VOTE_TEXT_MAX + 1))

/* Epochs and record versions count up by one per election or change:
 * 2^48 is never reached, and a larger number from a peer is refused. */
#define COUNTER_MAX ((1ULL << 48) - 1)
/* A node's speed in its heartbeat: per mille of the pool's average. */
#define SPEED_UNIT 1000
#define SPEED_MIN 50
#define SPEED_MAX 20000
#define LIFE_MAX_S 3153600000LL	/* an expected stay: a century, s */
/* A batch window told in a heartbeat: opens and lasts a week and a day
 * at most (a longer one is told as that long). */
#define WINDOW_MAX_S (8 * 86400LL)
/* The period a heartbeat tells to the next: a day at most. */
#define BEAT_MAX_MS 86400000LL

#define TASK_INPUTS_MAX 64	/* -a bindings of one task */
#define TASK_OUTPUTS_MAX 64	/* output datasets of one task */
#define SUBSCRIBE_MAX 256	/* uuids in one SUBSCRIBE */

/* A command task (volery run, <command>): its argv words, environment
 * variables and declared outputs; the bytes of argv and env together
 * (a record must fit a datagram, and a request a client line). */
#define CMD_ARGS_MAX 256
#define CMD_ENV_MAX 64
/* --secret-env: names in the record; the values (at most this many
 * bytes in all) only with the node that took the task and, sealed to
 * its key, the one that runs it. */
#define CMD_SECRETS_MAX 16
#define CMD_SECRET_TEXT_MAX 4096
#define CMD_TEXT_MAX 3072
#define CMD_OUTSPEC_MAXLEN 256	/* "file:PATH" or "line:REGEX" */
/* --in: the files a command reads, each "<bytes>:<hash>:<path>" in its
 * record (the path relative to its run dir), at most this many bytes of
 * them in all, and each file at most a terabyte. */
#define CMD_INS_TEXT_MAX 8192
#define CMD_IN_BYTES_MAX (1LL << 40)
#define CMD_TIME_LIMIT_MAX (366LL * 86400 * 1000)	/* ms */
#define TASK_EST_MAX CMD_TIME_LIMIT_MAX	/* a run-time estimate, ms */

/* What a node has (its heartbeats tell) and a task needs: tags and
 * executables as comma lists of names. */
#define CAPS_NAMES_MAX 64	/* names in one list */
#define CAPS_TEXT_MAX 1024	/* one list's bytes */
#define CORES_MAX 65535
#define MEMORY_MB_MAX (1LL << 30)	/* a petabyte */

/* An array's values and its limit of tasks running at once. */
#define ARRAY_INDEX_MAX 1000000000
#define ARRAY_MAX_MAX 1000000
/* volery run --verify N: runs of one task on N distinct nodes. */
#define VERIFY_MIN 2
#define VERIFY_MAX 9
/* <replicate_tail>: at most this many copies of a task run at once, and
 * at most TAIL_MAX replicas of it are ever made (tail.h); theirs are the
 * replica indexes after --verify's. */
#define TAIL_COPIES_MAX 4
#define TAIL_MAX 4
#define TAIL_INDEX_BASE VERIFY_MAX
/* A replica's digest: BLAKE2b-256, hex. */
#define DIGEST_HEX 64
#define TRIES_MAX 4		/* failed attempts a task record keeps */
#define TRIES_TEXT_MAX (TRIES_MAX * (NAME_MAXLEN + 5))
#define RETRY_DELAY_MAX_MS 3600000LL	/* the longest wait before a retry */
/* A task's newest checkpoint (taskckpt.c): its file's name in the run
 * dir, the nodes that keep a copy, and the record's text of it. */
#define CKPT_FILE_MAX 64
#define CKPT_HOLDERS_MAX 6
#define CKPT_SEQ_MAX 1000000000LL
#define CKPT_BYTES_MAX (1LL << 40)
#define CKPT_TEXT_MAX (3 * 20 + DIGEST_HEX + CKPT_FILE_MAX + 6 + \
	CKPT_HOLDERS_MAX * (NAME_MAXLEN + 1))

#endif
