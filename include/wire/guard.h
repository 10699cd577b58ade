/*
 * guard.h -- who may speak for a node name, checked on every datagram
 * after it authenticated and before it is parsed:
 *
 *  - replay: per sender, the newest incarnation heard, and per channel
 *    (broadcast, unicast: seal.h's low sequence bit) a window of the
 *    last sequence numbers.  A datagram seen before, older than the
 *    window, sent (by the sender's own clock) over stale_ms before the
 *    newest of its channel, or from an older incarnation is dropped; a
 *    newer incarnation (the sender restarted) starts new windows.
 *  - identity: a name is bound to the source address it was first heard
 *    from.  Another address may take it only once the bound one has
 *    been silent for bind_ms (node_config_silence_ms: the longest a
 *    live node, quiet or not, is silent), or, sealed, at once for
 *    a restart on the same host (a newer incarnation from the same IP).
 *  - bounds: at most max senders; a silent one makes room.
 *  - clocks: a sealed datagram's stamp is within skew_ms of ours.
 *
 * Pure: the shell (peers.c) and the simulator both drive it.
 */
#ifndef VOLERY_GUARD_H
#define VOLERY_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "nameidx.h"

/*
 * Window sizes, in sequence numbers: a burst (a workflow of hundreds of
 * tasks scheduled at once, their ENQUEUE_ACKs) may arrive a little out
 * of order.  Unicasts count one stream per receiver (peers.c).
 */
#define GUARD_BCAST_WINDOW 1024
/* Older than the newest of its channel by this much: stale (a LAN
 * reorders by microseconds; a replay is older). */
#define GUARD_STALE_MS 2000
#define GUARD_UCAST_WINDOW 1024

enum guard_verdict {
	GUARD_OK,		/* admitted: a known sender */
	GUARD_NEW,		/* admitted: first heard */
	GUARD_RESTARTED,	/* admitted: a newer incarnation */
	GUARD_MOVED,		/* admitted: the name moved to this address */
	GUARD_REPLAYED,		/* dropped: seen, or older than the window */
	GUARD_STALE,		/* dropped: sent long before the newest */
	GUARD_OLD_INCARNATION,	/* dropped */
	GUARD_IMPOSTOR,		/* dropped: the name's address is alive */
	GUARD_FULL,		/* dropped: no room for another sender */
	GUARD_SKEWED,		/* dropped: its stamp is far from our clock */
};
#define GUARD_NVERDICTS 10

struct guard_sender {
	/* What each datagram reads, in the order it does. */
	char		name[NAME_MAXLEN + 1];
	uint64_t	incarnation;
	int64_t		heard_ms;
	uint64_t	top[2];		/* newest counter per channel, 0 none */
	int64_t		newest_ms[2];	/* its clock when it sent that */
	char		addr[ADDR_MAXLEN + 1];	/* "ip:port" */
	/* Bit i: counter top - i was seen; [0] unicast, [1] broadcast. */
	uint64_t	useen[GUARD_UCAST_WINDOW / 64];
	uint64_t	bseen[GUARD_BCAST_WINDOW / 64];
};

struct guard {
	struct guard_sender	*v;
	size_t			 n, cap, max;
	int64_t			 bind_ms;
	int64_t			 stale_ms;
	/* A sealed datagram stamped further than this from our clock is
	 * dropped (0: unchecked): a capture replayed after we restarted,
	 * when our windows know nothing, is old by our clock. */
	int64_t			 skew_ms;
	struct nameidx		 idx;
	uint64_t		 count[GUARD_NVERDICTS];
};

/* A datagram, as far as the guard is concerned. */
struct guard_dgram {
	const char	*sender;
	uint64_t	 incarnation;
	int		 sealed;	/* else only the next two matter */
	const char	*addr;		/* its source, "ip:port" */
	uint64_t	 seq;
	int64_t		 sent_ms;	/* by the sender's clock */
};

void	guard_init(struct guard *, size_t max, int64_t bind_ms,
	    int64_t stale_ms);
void	guard_free(struct guard *);
/*
 * Admit a datagram at now.  An unsealed one (<insecure/>) has only its
 * incarnation and address checked.  Counted in g->count; the name's address before, when it
 * differs, is copied to was ("" otherwise).
 */
enum guard_verdict guard_admit(struct guard *, const struct guard_dgram *,
	    int64_t now, char was[ADDR_MAXLEN + 1]);
const char *guard_verdict_name(enum guard_verdict);
static inline int
guard_dropped(enum guard_verdict v)
{
	return v >= GUARD_REPLAYED;
}

#endif
