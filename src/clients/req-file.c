/*
 * req-file.c -- FILE <uuid> <n>: the n-th input file (--in) of a task
 * this node took, for the node about to run it.  Asked by a node of the
 * cluster (AUTH PEER), or, on a host whose nodes share loopback, by a
 * process of this node's own user that is not a task's run.  The file
 * is opened as the task's owner here, under the directory its record
 * names, never through a symbolic link at its end; one whose size is
 * not the one the record says is refused: it changed since the submit
 * (the node that fetches checks the hash as well).  Answered "FILE
 * <uuid> <n> <bytes>" and the bytes, or an ERROR line; "FILE <uuid> <n>
 * <from>", a fetch that broke, gets "FILE <uuid> <n> <from> <bytes>" and
 * the bytes from byte from on.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clients.h"
#include "node.h"
#include "owner.h"
#include "reply.h"
#include "reqs.h"
#include "requests.h"
#include "runas.h"
#include "task.h"
#include "wire.h"

void
req_file(struct client *c, const struct client_req *req)
{
	const struct task	*t = node_find(req_env()->core, req->uuid[0]);
	struct runas		 owner;
	struct stat		 st;
	char			 ask[UUID_STRLEN + 64], line[UUID_STRLEN + 96];
	char			 full[PATH_MAX];
	char			 hash[DIGEST_HEX + 1], why[REASON_MAXLEN + 1];
	const char		*path;
	int64_t			 bytes, n = req->out_offset;
	int			 fd, e, ok = 0;

	if (client_who(c) != CLIENT_PEER &&
	    client_uid(c) != (int64_t)geteuid()) {
		client_reply(c, 0, "ERROR FILE is for the nodes of the "
		    "cluster\n");
		return;
	}
	if (t == NULL || t->cmd == NULL || n > t->cmd->nins ||
	    strcmp(t->scheduled_by, node_name(req_env()->core)) != 0 ||
	    task_cmd_in_parse(t->cmd->ins[n - 1], &bytes, hash, &path) ==
	    -1) {
		client_replyf(c, "ERROR task %s has no input file %lld taken "
		    "here\n", req->uuid[0], (long long)n);
		return;
	}
	/* Every ERROR about the file itself starts "ERROR input <path>: ":
	 * the fetching node fails the task for good on it, since the file
	 * is here, whichever node asks. */
	if (snprintf(full, sizeof full, "%s/%s", t->cmd->in_dir, path) >=
	    (int)sizeof full) {
		client_replyf(c, "ERROR input %s: path too long\n", path);
		return;
	}
	if (owner_of(t, 0, &owner, why, sizeof why) == -1) {
		client_replyf(c, "ERROR input %s: %s\n", path, why);
		return;
	}
	memset(&st, 0, sizeof st);
	fd = runas_open(&owner, full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC, 0);
	e = errno;
	if (fd == -1 && e != ENOENT && e != ELOOP)
		client_replyf(c, "ERROR input %s: cannot be read as %s: %s\n",
		    path, owner.name, strerror(e));
	else if (fd == -1 || fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size != bytes)
		client_replyf(c, "ERROR input %s: changed after its submit "
		    "(%s)\n", path, fd == -1 ? (e == ELOOP ? "now a symbolic "
		    "link" : "gone") : !S_ISREG(st.st_mode) ? "not a plain "
		    "file" : "another size");
	else
		ok = 1;
	runas_free(&owner);
	if (!ok) {
		if (fd != -1)
			close(fd);
		return;
	}
	/* A fetch that broke asks for the rest: the answer echoes it. */
	if (req->file_from > bytes) {
		client_replyf(c, "ERROR input %s is %lld bytes: nothing from "
		    "byte %lld\n", path, (long long)bytes,
		    (long long)req->file_from);
		close(fd);
		return;
	}
	if (req->file_from > 0)
		snprintf(ask, sizeof ask, "FILE %s %lld %lld", t->uuid,
		    (long long)n, (long long)req->file_from);
	else
		snprintf(ask, sizeof ask, "FILE %s %lld", t->uuid,
		    (long long)n);
	if (wire_reply_blob_format(ask, bytes, -1, line, sizeof line) == -1 ||
	    client_write(c, line, strlen(line)) == -1) {
		close(fd);
		return;
	}
	(void)client_write_file(c, fd, req->file_from, bytes -
	    req->file_from);
}
