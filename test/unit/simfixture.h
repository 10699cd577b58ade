/*
 * simfixture.h -- a cluster of real cores on the simulated LAN of
 * test/sim, for the unit tests that drive several nodes: the sample
 * task descriptions, nodes n00.. made but not booted (a test may set
 * s.cfg first), and the teardown.
 */
#ifndef VOLERY_SIMFIXTURE_H
#define VOLERY_SIMFIXTURE_H

#include "testutil.h"

#include "simnet.h"

struct fixture {
	struct simnet		s;
	struct taskdesc_set	set;
};

static inline struct fixture *
fixture_new(int n)
{
	struct fixture	*f = calloc(1, sizeof *f);

	assert_non_null(f);
	plmi2_descs(&f->set);
	sim_init(&f->s, n, &f->set, 1000000);
	f->s.verbose = getenv("SIM_VERBOSE") != NULL;
	return f;
}

static inline void
done(struct fixture *f)
{
	sim_free(&f->s);
	taskdesc_clear(&f->set);
	free(f);
}

#endif
