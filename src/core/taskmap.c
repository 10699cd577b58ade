/*
 * taskmap.c -- hash map from uuid to task, open addressing with linear
 * probing and tombstones.  Grows at 1/2 load so probes stay short.  It
 * keeps the index of dependents as tasks come and go (depindex.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "task.h"
#include "taskmap.h"

/* Marks a removed slot: keeps probe chains intact. */
static struct task tombstone;
#define TOMB (&tombstone)

void
taskmap_init(struct taskmap *m)
{
	memset(m, 0, sizeof *m);
}

void
taskmap_free(struct taskmap *m)
{
	size_t	i;

	for (i = 0; i < m->cap; i++)
		if (m->slots[i].t != NULL && m->slots[i].t != TOMB)
			task_free(m->slots[i].t);
	free(m->slots);
	depindex_free(&m->deps);
	memset(m, 0, sizeof *m);
}

/* The slot of uuid, of hash h (*found), or the one it would take.  A
 * task's uuid (in memory elsewhere) is read only when the hashes agree. */
static size_t
probe_hashed(const struct taskmap *m, const char *uuid, uint64_t h,
    int *found)
{
	size_t		mask = m->cap - 1;
	size_t		i = h & mask;
	size_t		first_tomb = SIZE_MAX;

	for (;;) {
		struct task *t = m->slots[i].t;
		if (t == NULL) {
			*found = 0;
			return first_tomb != SIZE_MAX ? first_tomb : i;
		}
		if (t == TOMB) {
			if (first_tomb == SIZE_MAX)
				first_tomb = i;
		} else if (m->slots[i].hash == (uint32_t)(h >> 32) &&
		    strcmp(t->uuid, uuid) == 0) {
			*found = 1;
			return i;
		}
		i = (i + 1) & mask;
	}
}

static size_t
probe(const struct taskmap *m, const char *uuid, int *found)
{
	return probe_hashed(m, uuid, task_hash(uuid), found);
}

struct task *
taskmap_find(const struct taskmap *m, const char *uuid)
{
	int	found;
	size_t	i;

	if (m->cap == 0)
		return NULL;
	i = probe(m, uuid, &found);
	return found ? m->slots[i].t : NULL;
}

static int
grow(struct taskmap *m)
{
	struct taskmap	bigger;
	size_t		i;

	bigger.cap = m->cap == 0 ? 64 : m->cap * 2;
	while (m->n * 2 >= bigger.cap)
		bigger.cap *= 2;
	if ((bigger.slots = calloc(bigger.cap, sizeof *bigger.slots)) == NULL)
		return -1;
	bigger.n = bigger.used = 0;
	bigger.deps = m->deps;
	bigger.gen = m->gen;
	for (i = 0; i < m->cap; i++) {
		struct taskmap_slot *sl = &m->slots[i];
		int found;
		if (sl->t == NULL || sl->t == TOMB)
			continue;
		bigger.slots[probe(&bigger, sl->t->uuid, &found)] = *sl;
		bigger.n++;
		bigger.used++;
	}
	free(m->slots);
	*m = bigger;
	return 0;
}

/* Insert t; fails if its uuid is present already. */
int
taskmap_insert(struct taskmap *m, struct task *t)
{
	uint64_t h = task_hash(t->uuid);
	int	found, k;
	size_t	i;

	if ((m->used + 1) * 2 > m->cap && grow(m) == -1)
		return -1;
	i = probe_hashed(m, t->uuid, h, &found);
	if (found)
		return -1;
	for (k = 0; k < t->ninputs; k++)
		if (depindex_add(&m->deps, t->inputs[k].from, t->uuid) == -1) {
			while (k-- > 0)
				depindex_del(&m->deps, t->inputs[k].from,
				    t->uuid);
			return -1;
		}
	if (m->slots[i].t == NULL)
		m->used++;
	m->slots[i].t = t;
	m->slots[i].hash = (uint32_t)(h >> 32);
	m->n++;
	m->gen++;
	return 0;
}

void
taskmap_touch(struct taskmap *m)
{
	m->gen++;
}

/* Unlink and return the task (the caller frees it), or NULL. */
struct task *
taskmap_remove(struct taskmap *m, const char *uuid)
{
	struct task	*t;
	int		 found, k;
	size_t		 i;

	if (m->cap == 0)
		return NULL;
	i = probe(m, uuid, &found);
	if (!found)
		return NULL;
	t = m->slots[i].t;
	m->slots[i].t = TOMB;
	m->n--;
	m->gen++;
	for (k = 0; k < t->ninputs; k++)
		depindex_del(&m->deps, t->inputs[k].from, t->uuid);
	return t;
}

size_t
taskmap_count(const struct taskmap *m)
{
	return m->n;
}

struct task *
taskmap_next(const struct taskmap *m, size_t *it)
{
	while (*it < m->cap) {
		struct task *t = m->slots[(*it)++].t;
		if (t != NULL && t != TOMB)
			return t;
	}
	return NULL;
}

struct slotted {
	size_t		 slot;
	struct task	*t;
};

static int
by_slot(const void *a, const void *b)
{
	const struct slotted *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

struct task **
taskmap_in_order(const struct taskmap *m, const char (*uuids)[UUID_STRLEN + 1],
    size_t nu, size_t *count)
{
	struct slotted	 *s;
	struct task	**v;
	size_t		  k, n = 0, out = 0;
	int		  found;

	*count = 0;
	if (nu == 0 || m->cap == 0)
		return NULL;
	if ((s = calloc(nu, sizeof *s)) == NULL ||
	    (v = calloc(nu, sizeof *v)) == NULL) {
		free(s);
		return NULL;
	}
	for (k = 0; k < nu; k++) {
		size_t i = probe(m, uuids[k], &found);
		if (found) {
			s[n].slot = i;
			s[n++].t = m->slots[i].t;
		}
	}
	qsort(s, n, sizeof *s, by_slot);
	for (k = 0; k < n; k++)
		if (k == 0 || s[k].slot != s[k - 1].slot)
			v[out++] = s[k].t;
	free(s);
	*count = out;
	return v;
}

int
taskmap_awaits(const struct taskmap *m, const char *up)
{
	const char		(*down)[UUID_STRLEN + 1];
	const struct task	*d;
	int			  nd, i;

	down = depindex_get(&m->deps, up, &nd);
	for (i = 0; i < nd; i++)
		if ((d = taskmap_find(m, down[i])) != NULL &&
		    d->state == TASK_SUBMITTED)
			return 1;
	return 0;
}

int
taskmap_has_dependents(const struct taskmap *m, const char *up)
{
	int	nd;

	(void)depindex_get(&m->deps, up, &nd);
	return nd > 0;
}

struct task **
taskmap_dependents(const struct taskmap *m, const char *up, size_t *count)
{
	const char	(*down)[UUID_STRLEN + 1];
	int		  nd;

	*count = 0;
	if ((down = depindex_get(&m->deps, up, &nd)) == NULL)
		return NULL;
	return taskmap_in_order(m, down, (size_t)nd, count);
}

static int
by_submit(const void *a, const void *b)
{
	const struct task *x = *(struct task *const *)a;
	const struct task *y = *(struct task *const *)b;

	if (x->submit_ms != y->submit_ms)
		return x->submit_ms < y->submit_ms ? -1 : 1;
	return strcmp(x->uuid, y->uuid);
}

struct task **
taskmap_sorted(const struct taskmap *m, size_t *np)
{
	struct task	**v, *t;
	size_t		  it = 0, n = 0;

	if ((v = calloc(m->n + 1, sizeof *v)) == NULL)
		return NULL;
	while ((t = taskmap_next(m, &it)) != NULL)
		v[n++] = t;
	taskmap_sort(v, n);
	*np = n;
	return v;
}

void
taskmap_sort(struct task **v, size_t n)
{
	qsort(v, n, sizeof *v, by_submit);
}
