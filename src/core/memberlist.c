/*
 * memberlist.c -- the membership as the state dir keeps it
 * (ACT_MEMBERS): one name a line, read back by node_restore_member
 * after a restart.
 */
#include <stdlib.h>
#include <string.h>

#include "memberlist.h"
#include "nodestate.h"
#include "peer.h"

void
memberlist_save(struct node *n)
{
	size_t			 count = peertab_count(n), off = 0, len;
	const struct peer	*p;
	char			*list = malloc(count * (NAME_MAXLEN + 1) + 1);
	int			 i;

	if (list == NULL)
		return;
	for (i = 0; (size_t)i < count; i++) {
		if ((p = peertab_at(n, i)) == NULL || !p->member)
			continue;
		len = strlen(p->name);
		memcpy(list + off, p->name, len);
		list[off + len] = '\n';
		off += len + 1;
	}
	list[off] = '\0';
	outbox_text(&n->out, ACT_MEMBERS, "", list);
	free(list);
}
