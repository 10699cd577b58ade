/*
 * uuidmap.c -- uuid -> number, open addressing with linear probing.
 * Grows at 1/2 load; a deletion shifts the entries after it back, so
 * probe chains stay whole without tombstones.
 */
#include <stdlib.h>
#include <string.h>

#include "task.h"
#include "uuidmap.h"

static size_t
slot(const struct uuidmap *m, const char *uuid, int *found)
{
	size_t	mask = m->cap - 1, i = task_hash(uuid) & mask;

	while (m->v[i].uuid[0] != '\0' && strcmp(m->v[i].uuid, uuid) != 0)
		i = (i + 1) & mask;
	*found = m->v[i].uuid[0] != '\0';
	return i;
}

static int
grow(struct uuidmap *m)
{
	struct uuidmap	bigger;
	size_t		i;
	int		found;

	bigger.cap = m->cap == 0 ? 64 : m->cap * 2;
	bigger.n = m->n;
	if ((bigger.v = calloc(bigger.cap, sizeof *bigger.v)) == NULL)
		return -1;
	for (i = 0; i < m->cap; i++)
		if (m->v[i].uuid[0] != '\0')
			bigger.v[slot(&bigger, m->v[i].uuid, &found)] =
			    m->v[i];
	free(m->v);
	*m = bigger;
	return 0;
}

int
uuidmap_put(struct uuidmap *m, const char *uuid, int64_t value)
{
	size_t	i;
	int	found;

	if ((m->n + 1) * 2 > m->cap && grow(m) == -1)
		return -1;
	i = slot(m, uuid, &found);
	if (!found) {
		memcpy(m->v[i].uuid, uuid, UUID_STRLEN);
		m->v[i].uuid[UUID_STRLEN] = '\0';
		m->n++;
	}
	m->v[i].value = value;
	return 0;
}

int
uuidmap_get(const struct uuidmap *m, const char *uuid, int64_t *value)
{
	size_t	i;
	int	found = 0;

	if (m->cap == 0)
		return 0;
	i = slot(m, uuid, &found);
	if (found && value != NULL)
		*value = m->v[i].value;
	return found;
}

void
uuidmap_del(struct uuidmap *m, const char *uuid)
{
	size_t	mask = m->cap - 1, i, j, k;
	int	found = 0;

	if (m->cap == 0)
		return;
	i = slot(m, uuid, &found);
	if (!found)
		return;
	m->n--;
	for (j = i;;) {
		m->v[i].uuid[0] = '\0';
		for (;;) {
			j = (j + 1) & mask;
			if (m->v[j].uuid[0] == '\0')
				return;
			k = task_hash(m->v[j].uuid) & mask;
			/* j stays if its home k lies cyclically in (i, j]. */
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue;
			break;
		}
		m->v[i] = m->v[j];
		i = j;
	}
}

void
uuidmap_free(struct uuidmap *m)
{
	free(m->v);
	memset(m, 0, sizeof *m);
}
