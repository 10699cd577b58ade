/*
 * descs.c -- task descriptions (thesis Listing 4.1, plus outputs):
 *
 *   <task>
 *     <name>segmentation</name>  <type>segmentation</type>
 *     <path>required|optional</path>          (-p; default optional)
 *     <inputs>
 *       <input><other_task_type>import</other_task_type>
 *              <other_nth_output>1</other_nth_output></input> ...
 *     </inputs>
 *     <outputs>1</outputs>
 *     <requires><cores>2</cores><memory_mb>4096</memory_mb>
 *       <tag>gpu</tag></requires>                     (each optional)
 *     <limits><cpu_seconds>600</cpu_seconds>       (each optional)
 *             <memory_mb>2048</memory_mb><open_files>256</open_files>
 *     </limits>
 *   </task>
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "lex.h"
#include "descs.h"
#include "log.h"
#include "task.h"
#include "xmltext.h"

static int
is(xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE &&
	    strcmp((const char *)n->name, name) == 0;
}

static int
small_int(const char *s, int min, int max, int *out)
{
	int64_t	v;

	if (lex_int(s, min, max, &v) == -1)
		return -1;
	*out = (int)v;
	return 0;
}

static int
parse_input(xmlNode *in, struct taskdesc_input *di, char *err, size_t errlen)
{
	xmlNode	*c;
	char	*v;
	int	 rc = 0;

	memset(di, 0, sizeof *di);
	for (c = in->children; c != NULL && rc == 0; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if ((v = xml_text(c)) == NULL)
			return -1;
		if (is(c, "other_task_type")) {
			if (*v != '\0' && strcmp(v, "*") != 0 &&
			    !task_name_valid(v)) {
				snprintf(err, errlen, "line %d: bad "
				    "other_task_type", c->line);
				rc = -1;
			} else if (strcmp(v, "*") != 0)
				snprintf(di->type, sizeof di->type, "%s", v);
		} else if (is(c, "other_nth_output")) {
			if (small_int(v, 1, TASK_OUTPUTS_MAX, &di->nth) == -1) {
				snprintf(err, errlen, "line %d: "
				    "other_nth_output must be 1 to %d", c->line,
				    TASK_OUTPUTS_MAX);
				rc = -1;
			}
		} else {
			snprintf(err, errlen, "line %d: unknown element <%s>",
			    c->line, c->name);
			rc = -1;
		}
		free(v);
	}
	return rc;
}

static const struct {
	const char	*name;
	size_t		 off;
	int		 max;
} limit_elements[] = {
	{ "cpu_seconds", offsetof(struct taskdesc_limits, cpu_seconds),
	  LIMIT_CPU_SECONDS_MAX },
	{ "memory_mb", offsetof(struct taskdesc_limits, memory_mb),
	  LIMIT_MEMORY_MB_MAX },
	{ "open_files", offsetof(struct taskdesc_limits, open_files),
	  LIMIT_OPEN_FILES_MAX },
};

/* <limits>: each a whole number from 1 to its maximum. */
static int
parse_limits(xmlNode *lim, struct taskdesc_limits *l, char *err,
    size_t errlen)
{
	xmlNode	*c;
	char	*v;
	size_t	 i;
	int	 rc = 0;

	for (c = lim->children; c != NULL && rc == 0; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		for (i = 0; i < sizeof limit_elements /
		    sizeof limit_elements[0]; i++)
			if (is(c, limit_elements[i].name))
				break;
		if (i == sizeof limit_elements / sizeof limit_elements[0]) {
			snprintf(err, errlen, "line %d: unknown element <%s> "
			    "in <limits> (cpu_seconds, memory_mb, open_files)",
			    c->line, c->name);
			return -1;
		}
		if ((v = xml_text(c)) == NULL)
			return -1;
		if (small_int(v, 1, limit_elements[i].max,
		    (int *)((char *)l + limit_elements[i].off)) == -1) {
			snprintf(err, errlen, "line %d: <%s> must be 1 to %d",
			    c->line, c->name, limit_elements[i].max);
			rc = -1;
		}
		free(v);
	}
	return rc;
}

/* <requires>: <cores>, <memory_mb>, and a <tag> each. */
static int
parse_needs(xmlNode *req, struct taskdesc_needs *nd, char *err,
    size_t errlen)
{
	xmlNode	*c;
	char	*v;
	size_t	 off = 0;
	int	 rc = 0, cores;

	for (c = req->children; c != NULL && rc == 0; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if ((v = xml_text(c)) == NULL)
			return -1;
		if (is(c, "cores") && small_int(v, 1, CORES_MAX, &cores) == 0)
			nd->cores = cores;
		else if (is(c, "memory_mb") && small_int(v, 1, INT32_MAX,
		    &cores) == 0)
			nd->memory_mb = cores;
		else if (is(c, "tag") && task_name_valid(v) &&
		    off + strlen(v) + 2 < sizeof nd->tags &&
		    !task_names_have(nd->tags, v))
			off += snprintf(nd->tags + off, sizeof nd->tags - off,
			    "%s%s", off > 0 ? "," : "", v);
		else {
			snprintf(err, errlen, "line %d: <%s> in <requires>: "
			    "<cores> (1 to %d), <memory_mb> (MB) or <tag> (a "
			    "name), each once", c->line, c->name, CORES_MAX);
			rc = -1;
		}
		free(v);
	}
	return rc;
}

int
descs_parse(const char *path, struct taskdesc *d, char *err, size_t errlen)
{
	xmlDoc		*doc;
	xmlNode		*root, *c, *in;
	char		*v = NULL;
	int		 rc = -1;

	memset(d, 0, sizeof *d);
	d->noutputs = -1;
	if ((doc = xmlReadFile(path, NULL, XML_PARSE_NONET)) == NULL) {
		const xmlError *xe = xmlGetLastError();
		snprintf(err, errlen, "line %d: not well-formed XML",
		    xe != NULL ? xe->line : 0);
		return -1;
	}
	root = xmlDocGetRootElement(doc);
	if (root == NULL || !is(root, "task")) {
		snprintf(err, errlen, "the root element must be <task>");
		goto out;
	}
	for (c = root->children; c != NULL; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		free(v);
		if ((v = xml_text(c)) == NULL)
			goto out;
		if (is(c, "name") || is(c, "type")) {
			if (!task_name_valid(v)) {
				snprintf(err, errlen, "line %d: <%s> must be a "
				    "name", c->line, c->name);
				goto out;
			}
			snprintf(is(c, "name") ? d->name : d->type,
			    sizeof d->name, "%s", v);
		} else if (is(c, "path")) {
			if (strcmp(v, "required") == 0)
				d->needs_path = 1;
			else if (strcmp(v, "optional") != 0) {
				snprintf(err, errlen, "line %d: <path> is "
				    "required or optional", c->line);
				goto out;
			}
		} else if (is(c, "outputs")) {
			if (small_int(v, 0, TASK_OUTPUTS_MAX,
			    &d->noutputs) == -1) {
				snprintf(err, errlen, "line %d: <outputs> must "
				    "be 0 to %d", c->line, TASK_OUTPUTS_MAX);
				goto out;
			}
		} else if (is(c, "limits")) {
			if (parse_limits(c, &d->limits, err, errlen) == -1)
				goto out;
		} else if (is(c, "requires")) {
			if (parse_needs(c, &d->needs, err, errlen) == -1)
				goto out;
		} else if (is(c, "inputs")) {
			for (in = c->children; in != NULL; in = in->next) {
				if (in->type != XML_ELEMENT_NODE)
					continue;
				if (!is(in, "input")) {
					snprintf(err, errlen, "line %d: unknown "
					    "element <%s>", in->line, in->name);
					goto out;
				}
				if (d->ninputs == TASK_INPUTS_MAX) {
					snprintf(err, errlen, "more than %d "
					    "inputs", TASK_INPUTS_MAX);
					goto out;
				}
				if (parse_input(in, &d->inputs[d->ninputs++],
				    err, errlen) == -1)
					goto out;
			}
		} else {
			snprintf(err, errlen, "line %d: unknown element <%s>",
			    c->line, c->name);
			goto out;
		}
	}
	if (d->name[0] == '\0' || d->noutputs < 0) {
		snprintf(err, errlen, "<name> and <outputs> are required");
		goto out;
	}
	if (d->type[0] == '\0')
		snprintf(d->type, sizeof d->type, "%s", d->name);
	rc = 0;
out:
	free(v);
	xmlFreeDoc(doc);
	return rc;
}

int
descs_load(const char *dir, struct taskdesc_set *set)
{
	DIR		*dp;
	struct dirent	*de;
	struct taskdesc	 d;
	char		 path[4096], err[256];

	if ((dp = opendir(dir)) == NULL) {
		log_msg(VLOG_ERROR, "tasks directory %s: %s", dir,
		    strerror(errno));
		return -1;
	}
	while ((de = readdir(dp)) != NULL) {
		size_t len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 4, ".xml") != 0 ||
		    de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (descs_parse(path, &d, err, sizeof err) == -1) {
			log_msg(VLOG_ERROR, "task description %s: %s; skipped",
			    path, err);
			continue;
		}
		if (strlen(d.name) != len - 4 ||
		    strncmp(d.name, de->d_name, len - 4) != 0) {
			log_msg(VLOG_ERROR, "task description %s names "
			    "'%s'; the file must be %s.xml; skipped", path,
			    d.name, d.name);
			continue;
		}
		if (taskdesc_add(set, &d) == -1) {
			closedir(dp);
			return -1;
		}
	}
	closedir(dp);
	return 0;
}
