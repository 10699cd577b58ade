/*
 * introduce.c -- whom we told who we are lately (introduce.h).
 */
#include <stdio.h>
#include <string.h>

#include "bounds.h"
#include "introduce.h"

/* The last INTRODUCE_MAX answers, oldest at `hand`: a name answered
 * within INTRODUCE_MS is not again, and when the oldest of them is that
 * recent no one is. */
static struct {
	char	name[INTRODUCE_MAX][NAME_MAXLEN + 1];
	int64_t	at[INTRODUCE_MAX];
	int	used[INTRODUCE_MAX];
	int	hand;
} in;

int
introduce_due(const char *sender, int64_t now)
{
	int	i;

	for (i = 0; i < INTRODUCE_MAX; i++)
		if (in.used[i] && now - in.at[i] < INTRODUCE_MS &&
		    strcmp(in.name[i], sender) == 0)
			return 0;
	i = in.hand;
	if (in.used[i] && now - in.at[i] < INTRODUCE_MS)
		return 0;	/* INTRODUCE_MAX within the last second */
	snprintf(in.name[i], sizeof in.name[i], "%s", sender);
	in.at[i] = now;
	in.used[i] = 1;
	in.hand = (i + 1) % INTRODUCE_MAX;
	return 1;
}
