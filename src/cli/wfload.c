/*
 * wfload.c -- read a workflow file (DESIGN.md section 7) with libxml2:
 *
 *   <workflow priority="low|interactive">
 *     <task id="I" name="import"><path>/data/x</path></task>
 *     <task id="G" name="georeferencing"><params>geo.xml</params>
 *       <input task="I" output="1"/> ...
 *     </task>
 *   </workflow>
 *
 * Every structural problem is reported as file:line, like the checker's.
 * A relative <params> is relative to the workflow file's directory.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "lex.h"
#include "errlist.h"
#include "task.h"
#include "wfload.h"
#include "xmltext.h"

static void
silent(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

static int
prio_ok(const char *p)
{
	return strcmp(p, "low") == 0 || strcmp(p, "interactive") == 0;
}

/* A path as the node will get it: one token, params made absolute. */
static char *
path_value(struct errlist *l, xmlNode *n, const char *what, int resolve)
{
	char	*v = xml_text(n), *abs, dir[PATH_MAX], *slash;

	if (v == NULL)
		return NULL;
	if (!task_token_valid(v, PATH_MAXLEN)) {
		errlist_add(l, xmlGetLineNo(n), "<%s>: '%.60s' is not a path "
		    "the protocol can carry (no blanks, at most %d bytes)",
		    what, v, PATH_MAXLEN);
		free(v);
		return NULL;
	}
	if (!resolve || v[0] == '/')
		return v;
	snprintf(dir, sizeof dir, "%s", l->file);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	else if (getcwd(dir, sizeof dir) == NULL)
		return v;
	if (dir[0] != '/') {
		char cwd[PATH_MAX], rel[PATH_MAX];
		if (getcwd(cwd, sizeof cwd) == NULL)
			return v;
		snprintf(rel, sizeof rel, "%s", dir);
		if (snprintf(dir, sizeof dir, "%s/%s", cwd, rel) >=
		    (int)sizeof dir)
			return v;
	}
	if (asprintf(&abs, "%s/%s", dir, v) == -1)
		return v;
	free(v);
	return abs;
}

static void
load_input(struct errlist *l, struct wf_task *t, xmlNode *n)
{
	char	*task = xml_attr(n, "task"), *out = xml_attr(n, "output");
	int64_t	 nth = 0;
	long	 line = xmlGetLineNo(n);

	t->ninputs_seen++;
	if (task == NULL || out == NULL)
		errlist_add(l, line, "<input> needs task=\"ID\" and output=\"N\"");
	else if (strlen(task) > UUID_STRLEN || task[0] == '\0')
		errlist_add(l, line, "<input>: task '%.40s' is neither an id nor "
		    "a uuid", task);
	else if (lex_int(out, 1, TASK_OUTPUTS_MAX, &nth) == -1)
		errlist_add(l, line, "<input>: output '%.20s' is not an output "
		    "number (1 to %d)", out, TASK_OUTPUTS_MAX);
	else if (t->ninputs == TASK_INPUTS_MAX)
		errlist_add(l, line, "<input>: more than %d inputs",
		    TASK_INPUTS_MAX);
	else {
		struct wf_input *in = &t->inputs[t->ninputs++];
		snprintf(in->task, sizeof in->task, "%s", task);
		in->output = (int)nth;
		in->line = line;
	}
	free(task);
	free(out);
}

static void
load_task(struct errlist *l, struct workflow *wf, xmlNode *n)
{
	struct wf_task	*t = &wf->tasks[wf->ntasks++];
	char		*id = xml_attr(n, "id"), *name = xml_attr(n, "name");
	char		*prio = xml_attr(n, "priority");
	xmlNode		*c;

	memset(t, 0, sizeof *t);
	t->line = xmlGetLineNo(n);
	if (id == NULL || !task_name_valid(id))
		errlist_add(l, t->line, "<task> needs id=\"...\" (letters, digits, "
		    "'_', '-', '.')");
	else
		snprintf(t->id, sizeof t->id, "%s", id);
	if (name == NULL || !task_name_valid(name))
		errlist_add(l, t->line, "<task> needs name=\"...\", the name of a "
		    "task description");
	else
		snprintf(t->name, sizeof t->name, "%s", name);
	if (prio != NULL) {
		if (!prio_ok(prio))
			errlist_add(l, t->line, "<task>: priority '%.20s' is not "
			    "low or interactive", prio);
		else {
			snprintf(t->prio, sizeof t->prio, "%s", prio);
			t->prio_set = 1;
		}
	}
	free(id);
	free(name);
	free(prio);
	for (c = n->children; c != NULL; c = c->next) {
		const char *el = (const char *)c->name;
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (strcmp(el, "input") == 0)
			load_input(l, t, c);
		else if (strcmp(el, "path") == 0 && t->path == NULL)
			t->path = path_value(l, c, "path", 0);
		else if (strcmp(el, "params") == 0 && t->params == NULL)
			t->params = path_value(l, c, "params", 1);
		else
			errlist_add(l, xmlGetLineNo(c), "<%s>: unknown or repeated "
			    "in a <task> (input, path, params)", el);
	}
}

int
wf_load(const char *file, struct workflow *wf, char *err, size_t errlen)
{
	return wf_parse(file, NULL, 0, wf, err, errlen);
}

int
wf_parse(const char *file, const char *text, size_t len, struct workflow *wf,
    char *err, size_t errlen)
{
	struct errlist	 l;
	xmlDoc		*doc;
	xmlNode		*root, *n;
	const xmlError	*xe;
	char		*prio;
	int		 count = 0;

	errlist_init(&l, file, err, errlen);
	memset(wf, 0, sizeof *wf);
	wf->file = file;
	snprintf(wf->prio, sizeof wf->prio, "low");
	xmlSetGenericErrorFunc(NULL, silent);
	doc = text != NULL ? xmlReadMemory(text, (int)len, file, NULL,
	    XML_PARSE_NONET) : xmlReadFile(file, NULL, XML_PARSE_NONET);
	if (doc == NULL) {
		xe = xmlGetLastError();
		if (text == NULL && access(file, R_OK) == -1)
			errlist_add(&l, 0, "%s", strerror(errno));
		else
			errlist_add(&l, xe != NULL ? xe->line : 0, "%s",
			    xe != NULL && xe->message != NULL ? xe->message :
			    "not well-formed XML");
		err[strcspn(err, "\n")] = '\0';
		return l.count;
	}
	root = xmlDocGetRootElement(doc);
	if (root == NULL || strcmp((const char *)root->name, "workflow") != 0) {
		errlist_add(&l, root != NULL ? xmlGetLineNo(root) : 1, "the root "
		    "element must be <workflow>");
		xmlFreeDoc(doc);
		return l.count;
	}
	if ((prio = xml_attr(root, "priority")) != NULL) {
		if (!prio_ok(prio))
			errlist_add(&l, xmlGetLineNo(root), "<workflow>: priority "
			    "'%.20s' is not low or interactive", prio);
		else
			snprintf(wf->prio, sizeof wf->prio, "%s", prio);
		free(prio);
	}
	for (n = root->children; n != NULL; n = n->next)
		count += n->type == XML_ELEMENT_NODE;
	if (count > WORKFLOW_TASKS_MAX)
		errlist_add(&l, xmlGetLineNo(root), "more than %d tasks",
		    WORKFLOW_TASKS_MAX);
	else if (count > 0 &&
	    (wf->tasks = calloc(count, sizeof *wf->tasks)) == NULL)
		errlist_add(&l, 0, "out of memory");
	for (n = root->children; n != NULL && wf->tasks != NULL; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (strcmp((const char *)n->name, "task") == 0)
			load_task(&l, wf, n);
		else
			errlist_add(&l, xmlGetLineNo(n), "<%s>: unknown element "
			    "(a <workflow> holds <task>s)", n->name);
	}
	xmlFreeDoc(doc);
	return l.count;
}
