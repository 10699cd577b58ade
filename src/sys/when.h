/*
 * when.h -- a time as people write it, for --since and --until: an
 * instant ("2026-11-21 08:30[:15]", "2026-11-21T08:30", "08:30" today),
 * a day ("2026-11-21", "today", "yesterday"), "now", or a while ago
 * ("90s", "15m", "2h", "3d", "1w", each with or without " ago", or
 * "2 hours ago").  Local time.
 */
#ifndef VOLERY_WHEN_H
#define VOLERY_WHEN_H

#include <time.h>

/* The forms, for an error message. */
#define WHEN_FORMS "2026-11-21 08:30[:15], 2026-11-21, 08:30, today, " \
	"yesterday, now, or a while ago (90s, 15m, \"2 hours ago\", 1w)"

/* text as seconds since the epoch, into *out; end: what is left out is
 * filled with its end (an until: "2026-11-21" is its 23:59:59), not its
 * start.  -1 if the text is none of the forms. */
int	when_parse(const char *text, time_t now, int end, time_t *out);

/* A time to come, for --begin (Slurm's): "now+2h", "+30m", "16:00"
 * (today, or tomorrow once past), or an instant as above. */
#define WHEN_BEGIN_FORMS "now+2h, +30m (s, m, h, d), 16:00 (the next " \
	"one), 2026-11-21 08:30"
int	when_parse_begin(const char *text, time_t now, time_t *out);

#endif
