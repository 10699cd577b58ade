/*
 * fuzz_runner.c -- libFuzzer: any bytes as a line from a task.
 */
#include <stdint.h>
#include <stdlib.h>

#include "wire.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct runner_msg	m;
	char				err[160];
	int				i;

	if (wire_runner_parse((const char *)data, size, &m, err,
	    sizeof err) == -1)
		return 0;
	if (m.type == RMSG_PROGRESS && (m.percent < 0 || m.percent > 100))
		abort();
	for (i = 0; i < m.noutputs; i++)
		if (!task_token_valid(m.outputs[i], DATASET_MAXLEN))
			abort();
	return 0;
}
