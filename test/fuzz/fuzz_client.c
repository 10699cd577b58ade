/*
 * fuzz_client.c -- libFuzzer: any bytes as a client request line (and
 * as a PROGRESS line, and as a host[:port]).
 * A parse either fails with a message or yields a request whose strings
 * are valid and bounded.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "wire.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct client_req	req;
	struct wire_progress		p;
	char				err[256], *line, host[72];
	int				i, port;

	/* The same bytes as a PROGRESS line a subscriber reads back. */
	if (size <= CLIENT_LINE_MAX && (line = malloc(size + 1)) != NULL) {
		memcpy(line, data, size);
		line[size] = '\0';
		if (wire_progress_parse(line, &p) == 0 && (p.percent < 0 ||
		    p.percent > 100 || !task_uuid_valid(p.uuid)))
			abort();
		/* And as a -H or <listen> host[:port]. */
		if (lex_hostport(line, host, sizeof host, &port) == 0 &&
		    (port < -1 || port > 65535 || host[0] == '\0' ||
		    strlen(host) >= sizeof host))
			abort();
		free(line);
	}
	err[0] = '\0';
	if (wire_client_parse((const char *)data, size, &req, err,
	    sizeof err) == -1) {
		if (err[0] == '\0')
			abort();	/* every error says why */
		return 0;
	}
	if (req.cmd == CMD_SCHEDULE) {
		if (!task_name_valid(req.exec) || strstr(req.exec, ".."))
			abort();
		for (i = 0; i < req.nbind; i++)
			if (!task_uuid_valid(req.bind[i].uuid) ||
			    req.bind[i].nth < 1)
				abort();
	}
	for (i = 0; i < req.nuuid; i++)
		if (!task_uuid_valid(req.uuid[i]))
			abort();
	return 0;
}
