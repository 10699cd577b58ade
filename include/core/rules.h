/*
 * rules.h -- the deterministic orders every node applies alike, so that
 * all reach the same decision from the same messages:
 *
 * - election (thesis Algorithm 3.1): higher reputation, then larger map,
 *   then older candidacy, then lower name;
 * - dequeue (Algorithm 3.2): older TRY_DEQUEUE, then lower name;
 * - masters (split brain): higher epoch, then the election order;
 * - duplicate runs: more progress, then lower node name;
 * - task records: which of two versions of a task every node keeps.
 */
#ifndef VOLERY_RULES_H
#define VOLERY_RULES_H

#include <stdint.h>

struct task;

struct candidacy {
	const char	*name;
	int		 reputation;
	uint64_t	 map_size;
	int64_t		 timestamp;
};

int	rules_candidacy_beats(const struct candidacy *, const struct candidacy *);
int	rules_dequeue_beats(int64_t ts_a, const char *a, int64_t ts_b,
	    const char *b);
/* Of two runs of one task, the one started first (then on the lower
 * name) stays: both nodes compare the same two stamps. */
int	rules_run_beats(int64_t start_a, const char *a, int64_t start_b,
	    const char *b);
/* Of two ends of one task, the one a split vote goes on with. */
int	rules_end_beats(const struct task *r, const struct task *t);
/* An end as a number: equal ends, equal numbers (the votes' values). */
uint64_t rules_end_value(const struct task *);
/* Does record r replace record t of the same task? */
int	rules_record_wins(const struct task *r, const struct task *t);

#endif
