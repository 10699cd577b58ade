/*
 * introduce.c -- whom we told who we are lately (introduce.h).
 */
#include <stdio.h>
#include <string.h>

#include "bounds.h"
#include "introduce.h"

/* The last INTRODUCE_MAX answers, oldest at `hand` (a name "": a slot
 * never used): a name answered within INTRODUCE_MS is not again, and
 * when the oldest of them is that recent no one is. */
static struct {
	char	name[INTRODUCE_MAX][NAME_MAXLEN + 1];
	int64_t	at[INTRODUCE_MAX];
	int	hand;
} in;

/* Slot i holds an answer given within INTRODUCE_MS. */
static int
recent(int i, int64_t now)
{
	return in.name[i][0] != '\0' && now - in.at[i] < INTRODUCE_MS;
}

int
introduce_due(const char *sender, int64_t now)
{
	int	i;

	for (i = 0; i < INTRODUCE_MAX; i++)
		if (recent(i, now) && strcmp(in.name[i], sender) == 0)
			return 0;
	i = in.hand;
	if (recent(i, now))
		return 0;	/* INTRODUCE_MAX within the last second */
	snprintf(in.name[i], sizeof in.name[i], "%s", sender);
	in.at[i] = now;
	in.hand = (i + 1) % INTRODUCE_MAX;
	return 1;
}
