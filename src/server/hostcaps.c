/*
 * hostcaps.c -- what this host offers tasks (hostcaps.h).
 */
#include <sys/utsname.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "criu.h"
#include "hostcaps.h"
#include "log.h"
#include "node.h"

/*
 * What this host offers tasks (node_config: cores, memory, tags): the
 * config's, else the host's own CPUs and memory; its tags, and the
 * operating system and architecture as two more ("linux", "x86_64"),
 * and "criu" where runs can be dumped and restored.
 */
void
hostcaps_fill(struct node_config *nc, const struct config *cfg)
{
	struct utsname	u;
	long		pages = sysconf(_SC_PHYS_PAGES);
	long		psize = sysconf(_SC_PAGESIZE);
	char		sys[NAME_MAXLEN + 1] = "linux", arch[NAME_MAXLEN + 1];
	char		why[256];
	size_t		i;

	nc->cores = cfg->cores > 0 ? cfg->cores :
	    (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (nc->cores < 1)
		nc->cores = 1;
	nc->memory_mb = cfg->memory_mb > 0 ? cfg->memory_mb :
	    pages > 0 && psize > 0 ? (int64_t)pages / (1048576 / psize) : 0;
	arch[0] = '\0';
	if (uname(&u) == 0) {
		for (i = 0; u.sysname[i] != '\0' && i < NAME_MAXLEN; i++)
			sys[i] = (char)tolower((unsigned char)u.sysname[i]);
		sys[i] = '\0';
		snprintf(arch, sizeof arch, "%s", u.machine);
	}
	snprintf(nc->tags, sizeof nc->tags, "%s", cfg->tags);
	if (task_name_valid(sys) && !task_names_have(nc->tags, sys))
		snprintf(nc->tags + strlen(nc->tags), sizeof nc->tags -
		    strlen(nc->tags), "%s%s", nc->tags[0] != '\0' ? "," : "",
		    sys);
	if (task_name_valid(arch) && !task_names_have(nc->tags, arch))
		snprintf(nc->tags + strlen(nc->tags), sizeof nc->tags -
		    strlen(nc->tags), ",%s", arch);
	/* It can dump and restore runs (criu.h): one more tag. */
	if (!criu_init(cfg->criu, cfg->state_dir,
	    (int64_t)cfg->max_checkpoint_mb << 20, why, sizeof why))
		log_info("transparent checkpoints (--checkpoint=auto) are off "
		    "here: %s", why);
	else if ( !task_names_have(nc->tags, CKPT_AUTO_TAG))
		snprintf(nc->tags + strlen(nc->tags), sizeof nc->tags -
		    strlen(nc->tags), ",%s", CKPT_AUTO_TAG);
	log_msg(VLOG_NORMAL, "this node offers %d cores, %lld MB of memory, "
	    "tags %s", nc->cores, (long long)nc->memory_mb, nc->tags);
}
