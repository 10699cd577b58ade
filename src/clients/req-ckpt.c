/*
 * req-ckpt.c -- CKPT <uuid> <seq>: a copy of a checkpoint kept here,
 * for a node about to run the task or to keep a copy itself
 * (ckfetch.c).  Asked by a node of the cluster (AUTH PEER), or, on a
 * host whose nodes share loopback, by a process of this node's own user
 * that is not a task's run.  The bytes are not secret from the cluster:
 * any node may run the task.  Answered "CKPT <uuid> <seq> <bytes>" and
 * the file as it is, or "CKPT <uuid> <seq> <bytes> z=<zbytes>" and its
 * deflate stream where that is smaller (ckstore.h).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ckstore.h"
#include "clients.h"
#include "reply.h"
#include "reqs.h"
#include "wire.h"

void
req_ckpt(struct client *c, const struct client_req *req)
{
	char	ask[UUID_STRLEN + 32], line[UUID_STRLEN + 96];
	int64_t	bytes, zbytes;
	int	fd;

	if (client_who(c) != CLIENT_PEER && client_uid(c) != (int64_t)geteuid()) {
		client_reply(c, 0, "ERROR CKPT is for the nodes of the "
		    "cluster\n");
		return;
	}
	if ((fd = ckstore_open_copy(req->uuid[0], req->out_offset,
	    &bytes, &zbytes)) == -1) {
		client_replyf(c, "ERROR no copy of checkpoint %lld of task %s "
		    "here\n", (long long)req->out_offset, req->uuid[0]);
		return;
	}
	snprintf(ask, sizeof ask, "CKPT %s %lld", req->uuid[0],
	    (long long)req->out_offset);
	if (wire_reply_blob_format(ask, bytes, zbytes, line,
	    sizeof line) == -1 || client_write(c, line, strlen(line)) == -1) {
		close(fd);
		return;
	}
	(void)client_write_file(c, fd, 0, zbytes >= 0 ? zbytes : bytes);
}
