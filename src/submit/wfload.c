/*
 * wfload.c -- read a workflow file (DESIGN.md section 7) with libxml2:
 *
 *   <workflow priority="low|interactive">
 *     <task id="I" name="import"><path>/data/x</path></task>
 *     <task id="G" name="georeferencing"><params>geo.xml</params>
 *       <input task="I" output="1"/> ...
 *     </task>
 *     <command id="C" cwd="/data/x" time="10m">
 *       <arg>convert</arg><arg>in 1.png</arg><arg>{in1}</arg>
 *       <env name="LC_ALL">C</env>
 *       <input task="I" output="1"/>
 *       <output file="out/{uuid}.png"/> <output line="^size=(\d+)$"/>
 *     </command>
 *   </workflow>
 *
 * Every structural problem is reported as file:line, like the checker's.
 * A relative <params> is relative to the workflow file's directory, and
 * so is a command's directory (the file's own when it names none).
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
#include "runlimit.h"
#include "runreq.h"
#include "arrayspec.h"
#include "memsize.h"
#include "wfexpand.h"
#include "task.h"
#include "wfload.h"
#include "when.h"
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

/* The workflow file's directory, absolute; -1 if it cannot be told. */
static int
file_dir(const char *file, char *dir, size_t size)
{
	char	cwd[PATH_MAX], rel[PATH_MAX], *slash;

	snprintf(dir, size, "%s", file);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	else if (getcwd(dir, size) == NULL)
		return -1;
	if (dir[0] == '/')
		return 0;
	if (getcwd(cwd, sizeof cwd) == NULL)
		return -1;
	snprintf(rel, sizeof rel, "%s", dir);
	return snprintf(dir, size, "%s/%s", cwd, rel) < (int)size ? 0 : -1;
}

/* v, relative to the workflow file's directory: a new string (v is
 * freed), or v itself if it is absolute or the directory is unknown. */
static char *
resolve(struct errlist *l, char *v)
{
	char	dir[PATH_MAX], *abs;

	if (v[0] == '/' || file_dir(l->file, dir, sizeof dir) == -1 ||
	    asprintf(&abs, "%s/%s", dir, v) == -1)
		return v;
	free(v);
	return abs;
}

/* A path as the node will get it: one token, params made absolute. */
static char *
path_value(struct errlist *l, xmlNode *n, const char *what, int absolute)
{
	char	*v = xml_text(n);

	if (v == NULL)
		return NULL;
	if (!task_token_valid(v, PATH_MAXLEN)) {
		errlist_add(l, xmlGetLineNo(n), "<%s>: '%.60s' is not a path "
		    "the protocol can carry (no blanks, at most %d bytes)",
		    what, v, PATH_MAXLEN);
		free(v);
		return NULL;
	}
	return absolute ? resolve(l, v) : v;
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
	else if (strlen(task) > NAME_MAXLEN || task[0] == '\0')
		errlist_add(l, line, "<input>: task '%.40s' is neither an id nor "
		    "a uuid", task);
	else if (lex_int(out, 1, TASK_OUTPUTS_MAX, &nth) == -1)
		errlist_add(l, line, "<input>: output '%.20s' is not an output "
		    "number (1 to %d)", out, TASK_OUTPUTS_MAX);
	else if (t->ninputs == TASK_INPUTS_MAX)
		errlist_add(l, line, "<input>: more than %d inputs",
		    TASK_INPUTS_MAX);
	else if (workflow_inputs(t) == -1)
		errlist_add(l, line, "out of memory");
	else {
		struct wf_input *in = &t->inputs[t->ninputs++];
		snprintf(in->task, sizeof in->task, "%s", task);
		in->output = (int)nth;
		in->line = line;
	}
	free(task);
	free(out);
}

/* <workflow deadline="08:00">: when every task is to end by, read as
 * --deadline reads it, when the file is read. */
static void
load_deadline(struct errlist *l, struct workflow *wf, xmlNode *root)
{
	char	*text = xml_attr(root, "deadline");
	time_t	 at;

	if (text == NULL)
		return;
	if (when_parse_begin(text, time(NULL), &at) == -1)
		errlist_add(l, xmlGetLineNo(root), "<workflow> deadline="
		    "\"%.40s\": %s", text, WHEN_BEGIN_FORMS);
	else
		wf->deadline_ms = (int64_t)at * 1000;
	free(text);
}

/* cores="2" memory="4G" requires="gpu,matlab": what t needs of a
 * node; verify="3": how many must agree on its result; estimate="2h":
 * how long it should run. */
static void
load_needs(struct errlist *l, struct wf_task *t, xmlNode *n,
    const char *el)
{
	char	*cores = xml_attr(n, "cores"), *mem = xml_attr(n, "memory");
	char	*req = xml_attr(n, "requires"), *vfy = xml_attr(n, "verify");
	char	*est = xml_attr(n, "estimate"), why[128];
	int64_t	 v;
	size_t	 i;

	if (cores != NULL && lex_int(cores, 1, CORES_MAX, &v) == -1)
		errlist_add(l, t->line, "<%s> cores=\"%.20s\": 1 to %d", el,
		    cores, CORES_MAX);
	else if (cores != NULL)
		t->cores = (int)v;
	if (mem != NULL && memsize_parse(mem, &t->memory_mb) == -1)
		errlist_add(l, t->line, "<%s> memory=\"%.20s\": an amount as "
		    "512M, 4G or 4096 (MB)", el, mem);
	for (i = 0; req != NULL && req[i] != '\0'; i++)
		if (req[i] == ' ')
			req[i] = ',';
	if (req != NULL && !task_names_valid(req, CAPS_NAMES_MAX))
		errlist_add(l, t->line, "<%s> requires=\"%.40s\": tags, all "
		    "needed, separated by ','", el, req);
	else if (req != NULL && *req != '\0')
		t->tags = req, req = NULL;
	if (vfy != NULL && lex_int(vfy, VERIFY_MIN, VERIFY_MAX, &v) == -1)
		errlist_add(l, t->line, "<%s> verify=\"%.20s\": nodes to "
		    "agree, %d to %d", el, vfy, VERIFY_MIN, VERIFY_MAX);
	else if (vfy != NULL)
		t->verify = (int)v;
	if (est != NULL && runlimit_parse(est, &v, why, sizeof why) == -1)
		errlist_add(l, t->line, "<%s> estimate=\"%.20s\": %s", el, est,
		    why);
	else if (est != NULL)
		t->est_ms = v * 1000;
	free(est);
	free(cores);
	free(mem);
	free(req);
	free(vfy);
}

/* The attributes <task> and <command> share: id, name, priority.  A
 * command's name may be left out: its program's then. */
static struct wf_task *
load_head(struct errlist *l, struct workflow *wf, xmlNode *n, int command)
{
	struct wf_task	*t = &wf->tasks[wf->ntasks++];	/* zeroed */
	char		*id = xml_attr(n, "id"), *name = xml_attr(n, "name");
	char		*prio = xml_attr(n, "priority");
	const char	*el = command ? "command" : "task";

	t->line = xmlGetLineNo(n);
	if (id == NULL || !task_name_valid(id))
		errlist_add(l, t->line, "<%s> needs id=\"...\" (letters, "
		    "digits, '_', '-', '.')", el);
	else
		snprintf(t->id, sizeof t->id, "%s", id);
	if (name == NULL && command)
		;
	else if (name == NULL || !task_name_valid(name))
		errlist_add(l, t->line, "<%s> needs name=\"...\", %s", el,
		    command ? "letters, digits, '_', '-', '.'" :
		    "the name of a task description");
	else
		snprintf(t->name, sizeof t->name, "%s", name);
	if (prio != NULL) {
		if (!prio_ok(prio))
			errlist_add(l, t->line, "<%s>: priority '%.20s' is not "
			    "low or interactive", el, prio);
		else {
			snprintf(t->prio, sizeof t->prio, "%s", prio);
			t->prio_set = 1;
		}
	}
	free(id);
	free(name);
	free(prio);
	load_needs(l, t, n, el);
	return t;
}

/* Add s (owned now) to the n strings of *v; -1 (s freed) if full.  A
 * NULL s (its problem reported, or out of memory) is left out. */
static int
push(char ***v, int *n, int max, char *s)
{
	char	**nv;

	if (s == NULL)
		return 0;
	if (*n == max ||
	    (nv = realloc(*v, (*n + 1) * sizeof *nv)) == NULL) {
		free(s);
		return -1;
	}
	*v = nv;
	nv[(*n)++] = s;
	return 0;
}

/* An <env name="NAME">value</env> as "NAME=value". */
static char *
env_value(struct errlist *l, xmlNode *n)
{
	char	*name = xml_attr(n, "name"), *v = xml_text_exact(n), *kv = NULL;

	if (name == NULL || v == NULL)
		errlist_add(l, xmlGetLineNo(n), "<env> needs name=\"NAME\"");
	else if (asprintf(&kv, "%s=%s", name, v) == -1)
		kv = NULL;
	free(name);
	free(v);
	return kv;
}

/* An <output file="PATH"/> or <output line="REGEX"/>, as RUN's -O. */
static char *
output_value(struct errlist *l, xmlNode *n)
{
	char	*file = xml_attr(n, "file"), *line = xml_attr(n, "line");
	char	*spec = NULL;

	if ((file == NULL) == (line == NULL))
		errlist_add(l, xmlGetLineNo(n), "<output> needs file=\"PATH\" "
		    "or line=\"REGEX\"");
	else if (asprintf(&spec, "%s:%s", file != NULL ? "file" : "line",
	    file != NULL ? file : line) == -1)
		spec = NULL;
	free(file);
	free(line);
	return spec;
}

/* One child of a <command>; *shell: a <shell> line was its command. */
static void
load_command_part(struct errlist *l, struct wf_task *t, xmlNode *c,
    int *shell)
{
	struct task_cmd	*tc = t->cmd;
	const char	*el = (const char *)c->name;
	long		 line = xmlGetLineNo(c);
	int		 rc = 0;

	if (strcmp(el, "input") == 0)
		load_input(l, t, c);
	else if (strcmp(el, "shell") == 0 && (*shell || tc->argc > 0))
		errlist_add(l, line, "<shell>: one, before any <arg> (the "
		    "<arg>s after it are its $1, $2, ...)");
	else if (strcmp(el, "arg") == 0)
		rc = push(&tc->argv, &tc->argc, CMD_ARGS_MAX,
		    xml_text_exact(c));
	else if (strcmp(el, "shell") == 0) {
		*shell = 1;
		if (push(&tc->argv, &tc->argc, 4, strdup("/bin/sh")) == -1 ||
		    push(&tc->argv, &tc->argc, 4, strdup("-c")) == -1 ||
		    push(&tc->argv, &tc->argc, 4, xml_text(c)) == -1 ||
		    push(&tc->argv, &tc->argc, 4, strdup("sh")) == -1)
			rc = -1;
	} else if (strcmp(el, "env") == 0)
		rc = push(&tc->env, &tc->nenv, CMD_ENV_MAX, env_value(l, c));
	else if (strcmp(el, "output") == 0)
		rc = push(&tc->outs, &tc->nouts, TASK_OUTPUTS_MAX,
		    output_value(l, c));
	else if (strcmp(el, "in") == 0)
		rc = push(&t->in_paths, &t->nin_paths, CMD_INS_TEXT_MAX / 68,
		    xml_text(c));
	else
		errlist_add(l, line, "<%s>: unknown or misplaced in a "
		    "<command> (arg, shell, env, input, output, in)", el);
	if (rc == -1)
		errlist_add(l, line, "<%s>: too many", el);
}

static void
load_command(struct errlist *l, struct workflow *wf, xmlNode *n)
{
	struct wf_task	*t = load_head(l, wf, n, 1);
	struct task_cmd	*tc;
	xmlNode		*c;
	char		*v, why[PATH_MAX];
	int64_t		 secs;
	int		 shell = 0, cwd_given;

	if ((tc = t->cmd = calloc(1, sizeof *tc)) == NULL) {
		errlist_add(l, t->line, "out of memory");
		return;
	}
	for (c = n->children; c != NULL; c = c->next)
		if (c->type == XML_ELEMENT_NODE)
			load_command_part(l, t, c, &shell);
	if (tc->argc == 0)
		errlist_add(l, t->line, "<command> needs <arg>s (the program "
		    "and its arguments) or a <shell> line");
	else if (t->name[0] == '\0')
		runreq_name(tc->argv[0], t->name, sizeof t->name);
	if ((cwd_given = (v = xml_attr(n, "cwd")) != NULL))
		tc->cwd = resolve(l, v);
	else if (file_dir(l->file, why, sizeof why) == 0)
		tc->cwd = strdup(why);
	/* Its <in> files are where it would run here; then it runs in its
	 * run dir, where they are put, unless told where. */
	if (t->nin_paths > 0 && tc->cwd != NULL) {
		tc->in_dir = strdup(tc->cwd);
		if (!cwd_given) {
			free(tc->cwd);
			tc->cwd = NULL;
		}
	}
	tc->out = xml_attr(n, "stdout");
	tc->err = xml_attr(n, "stderr");
	if ((v = xml_attr(n, "time")) != NULL) {
		if (runlimit_parse(v, &secs, why, sizeof why) == -1)
			errlist_add(l, t->line, "<command> time=\"%.20s\": %s",
			    v, why);
		else
			tc->time_limit_ms = secs * 1000;
		free(v);
	}
}

static void
load_task(struct errlist *l, struct workflow *wf, xmlNode *n)
{
	struct wf_task	*t = load_head(l, wf, n, 0);
	xmlNode		*c;

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

/* A <task> or <command> (of <foreach> number foreach, 0 for none); 0 if
 * n is neither. */
static int
load_one(struct errlist *l, struct workflow *wf, xmlNode *n, int foreach)
{
	if (strcmp((const char *)n->name, "task") == 0)
		load_task(l, wf, n);
	else if (strcmp((const char *)n->name, "command") == 0)
		load_command(l, wf, n);
	else
		return 0;
	wf->tasks[wf->ntasks - 1].foreach = foreach;
	return 1;
}

/* The <foreach>es of a file, each its values. */
struct foreaches {
	struct arrayspec	*specs;
	int			 n;
};

/* <foreach values="1-100%10"> and the tasks it repeats, once each. */
static void
load_foreach(struct errlist *l, struct workflow *wf, xmlNode *n,
    struct foreaches *fe)
{
	struct arrayspec	*v;
	char			*values = xml_attr(n, "values"), why[256];
	xmlNode			*c;

	if ((v = realloc(fe->specs, (fe->n + 1) * sizeof *v)) == NULL) {
		free(values);
		errlist_add(l, xmlGetLineNo(n), "out of memory");
		return;
	}
	fe->specs = v;
	memset(&v[fe->n], 0, sizeof v[fe->n]);
	if (values == NULL)
		errlist_add(l, xmlGetLineNo(n), "<foreach> needs values=\"...\" "
		    "(as 1-100%%10)");
	else if (arrayspec_parse(values, &v[fe->n], why, sizeof why) == -1)
		errlist_add(l, xmlGetLineNo(n), "<foreach> values=\"%.40s\": %s",
		    values, why);
	free(values);
	fe->n++;
	for (c = n->children; c != NULL; c = c->next)
		if (c->type == XML_ELEMENT_NODE && !load_one(l, wf, c, fe->n))
			errlist_add(l, xmlGetLineNo(c), "<%s>: unknown in a "
			    "<foreach> (task, command)", c->name);
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
	struct foreaches fe = { NULL, 0 };
	int		 count = 0, i;

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
	load_deadline(&l, wf, root);
	for (n = root->children; n != NULL; n = n->next)
		count += n->type != XML_ELEMENT_NODE ? 0 :
		    strcmp((const char *)n->name, "foreach") != 0 ? 1 :
		    (int)xmlChildElementCount(n);
	if (count > WORKFLOW_TASKS_MAX)
		errlist_add(&l, xmlGetLineNo(root), "more than %d tasks",
		    WORKFLOW_TASKS_MAX);
	else if (count > 0 &&
	    (wf->tasks = calloc(count, sizeof *wf->tasks)) == NULL)
		errlist_add(&l, 0, "out of memory");
	for (n = root->children; n != NULL && wf->tasks != NULL; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (strcmp((const char *)n->name, "foreach") == 0)
			load_foreach(&l, wf, n, &fe);
		else if (!load_one(&l, wf, n, 0))
			errlist_add(&l, xmlGetLineNo(n), "<%s>: unknown element "
			    "(a <workflow> holds <task>s, <command>s and "
			    "<foreach>es)", n->name);
	}
	xmlFreeDoc(doc);
	if (l.count == 0 && fe.n > 0)
		wf_expand(&l, wf, fe.specs, fe.n);
	workflow_index(wf);
	for (i = 0; i < fe.n; i++)
		arrayspec_free(&fe.specs[i]);
	free(fe.specs);
	return l.count;
}
