/*
 * fuzz_workflow.c -- libFuzzer: any bytes as a workflow file, loaded and
 * checked against the PLMI2 descriptions.  A file that passes must give
 * an order in which every in-file input comes before its reader.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wfload.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
desc(struct taskdesc_set *set, const char *name, int noutputs, int path,
    const char *in1, int n1, const char *in2, int n2, const char *in3, int n3)
{
	struct taskdesc	d;

	memset(&d, 0, sizeof d);
	strcpy(d.name, name);
	strcpy(d.type, name);
	d.noutputs = noutputs;
	d.needs_path = path;
	if (in1 != NULL) {
		strcpy(d.inputs[d.ninputs].type, in1);
		d.inputs[d.ninputs++].nth = n1;
	}
	if (in2 != NULL) {
		strcpy(d.inputs[d.ninputs].type, in2);
		d.inputs[d.ninputs++].nth = n2;
	}
	if (in3 != NULL) {
		strcpy(d.inputs[d.ninputs].type, in3);
		d.inputs[d.ninputs++].nth = n3;
	}
	taskdesc_add(set, &d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct taskdesc_set	set;
	static char			err[8192];
	struct workflow			wf;
	int				*order, i, k, j, up;

	if (set.n == 0) {
		desc(&set, "import", 3, 1, NULL, 0, NULL, 0, NULL, 0);
		desc(&set, "georeferencing", 2, 0, "import", 1, "import", 2,
		    "import", 3);
		desc(&set, "segmentation", 1, 0, "import", 1, "georeferencing",
		    1, "georeferencing", 2);
		desc(&set, "anomaly_detection", 1, 0, "segmentation", 1, NULL,
		    0, NULL, 0);
	}
	if (size > 65536)
		return 0;
	if (wf_parse("fuzz.xml", (const char *)data, size, &wf, err,
	    sizeof err) == 0) {
		order = calloc(wf.ntasks + 1, sizeof *order);
		if (workflow_check(&wf, &set, order, err, sizeof err) == 0) {
			/* Every in-file upstream is placed before its reader. */
			for (i = 0; i < wf.ntasks; i++)
				for (k = 0; k < wf.tasks[order[i]].ninputs; k++) {
					up = workflow_find(&wf,
					    wf.tasks[order[i]].inputs[k].task);
					for (j = i; up >= 0 && j < wf.ntasks;
					    j++)
						if (order[j] == up)
							abort();
				}
		}
		free(order);
	}
	workflow_free(&wf);
	return 0;
}
