/*
 * evqueue.h -- the simulator's events, taken in (time, receiver, order
 * posted).
 */
#ifndef SIM_EVQUEUE_H
#define SIM_EVQUEUE_H

#include <stddef.h>
#include <stdint.h>

enum ev_kind { EV_DGRAM, EV_TIMER, EV_RUNEND, EV_PROGRESS, EV_CKPT,
    EV_CKPT_COPY, EV_CPU, EV_WAKE, EV_SLEEP };

struct sim_copy;
struct sim_msg;
struct sim_run;

struct sim_ev {
	int64_t			 at;
	enum ev_kind		 kind;
	int			 from, to;	/* DGRAM; to: every kind's node */
	struct sim_msg		*msg;		/* DGRAM */
	struct sim_run		*run;		/* RUNEND, PROGRESS, CKPT (from:
						 * its generation) */
	struct sim_copy		*copy;		/* CKPT_COPY */
};

/* The events of one time, first posted first. */
struct evq_bucket {
	int64_t			 at;
	struct sim_ev		*v;
	size_t			 head, n, cap;
};

struct evqueue {
	struct evq_bucket	*pool;		/* buckets, by index */
	size_t			 npool;
	size_t			*spare;		/* indices of empty buckets */
	size_t			 nspare;
	size_t			*heap;		/* bucket indices, earliest first */
	size_t			 nheap;
	int64_t			*keys;		/* open addressing: at -> */
	size_t			*vals;		/* bucket index */
	unsigned char		*used;
	size_t			 cap;		/* of keys, vals, used */
	size_t			 n;		/* events queued */
};

void	evq_push(struct evqueue *, const struct sim_ev *);
/* The earliest event (queue not empty). */
struct sim_ev	evq_pop(struct evqueue *);
/* The earliest event's time, or INT64_MAX when empty. */
int64_t	evq_next_at(const struct evqueue *);
void	evq_free(struct evqueue *);

#endif
