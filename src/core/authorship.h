/*
 * authorship.h -- a start, a result, a cancel: each written by the one
 * node that may, and signed by it.  A task's run is its runner's to
 * state (Running, Terminated, Failed, Cancelled by itself); a cancel or
 * failure otherwise its taker's (the node its owner asked) or, where it
 * follows from an upstream's end, anyone's.  The author signs what it
 * writes (eby=, esg= in the record), so that a record relayed by any
 * other node proves who wrote it, and a record no author could have
 * written -- a result for a run its sender does not hold, a cancel its
 * owner's node never made -- is refused and counted.
 *
 * Off (the sim's, the unit tests' default) when the node has no key.
 */
#ifndef VOLERY_AUTHORSHIP_H
#define VOLERY_AUTHORSHIP_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "peer.h"

struct node;
struct task;

/* Records relayed before we knew their author's key: kept (at most this
 * many) until its certificate comes, asked of the relay (again after a
 * while: the answer is a datagram, and may be lost). */
#define AUTHORSHIP_AWAIT_MAX	256
#define AUTHORSHIP_ASK_MS	1000

struct authorship {
	struct awaiting {
		char		 author[NAME_MAXLEN + 1];
		char		 sender[NAME_MAXLEN + 1];
		uint64_t	 incarnation;
		enum peer_type	 type;
		char		*record;
		size_t		 len;
		int64_t		 asked;		/* its certificate, when */
	}		*v;
	size_t		 n;
	uint64_t	 dropped;	/* more than that awaited at once */
	uint64_t	 made, checked;	/* signatures, for node_status */
};

void	authorship_free(struct node *);
/* Add the signatures made and checked so far to *made, *checked. */
void	authorship_counts(const struct node *, uint64_t *made,
	    uint64_t *checked);
/* name's key came (node_peer_key): what awaited it is taken again. */
void	authorship_learned(struct node *, const char *name, int64_t now);

/* t is on its way out: sign its run's statement if we changed it and it
 * is ours to write; drop the signature of a state no one signs. */
void	authorship_sign(struct node *, struct task *);
/* t came back from our journal: its signature covers what it says. */
void	authorship_restored(struct node *, struct task *);
/*
 * r, the record in m (we hold the task as held, or NULL): 1 to believe
 * it (written by its author, signed if relayed), 0 if not: refused
 * (counted, said once in a while), or kept until its author's key is
 * known.
 */
int	authorship_admit(struct node *, const struct peer_msg *m,
	    struct task *r, const struct task *held, int64_t now);
/* May a client of ours cancel t here?  Its taker may, and its runner. */
int	authorship_may_cancel(struct node *, const struct task *);

#endif
