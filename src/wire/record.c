/*
 * record.c -- journal framing: each record is one line
 * "<crc32 as 8 hex digits> <payload>", so a torn or corrupt tail is
 * recognised and the intact records before it are kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "task.h"
#include "wire.h"

/* CRC-32 (IEEE 802.3) by zlib: the same checksum as the hand-written one
 * before it, so journals written then still load.  Records are at most
 * RECORD_LINE_MAX bytes: len fits a uInt. */
uint32_t
wire_crc32(const void *data, size_t len)
{
	return (uint32_t)crc32(0L, data, (uInt)len);
}

/* Frame payload into buf with a trailing newline; returns length or -1. */
int
wire_record_frame(const char *payload, size_t len, char *buf, size_t size)
{
	if (len + 11 > size || memchr(payload, '\n', len) != NULL)
		return -1;
	snprintf(buf, size, "%08x ", wire_crc32(payload, len));
	memcpy(buf + 9, payload, len);
	buf[9 + len] = '\n';
	buf[10 + len] = '\0';
	return (int)(len + 10);
}

/* Check a framed line (without newline); point at its payload. */
int
wire_record_unframe(const char *line, size_t len, const char **payload,
    size_t *plen)
{
	unsigned int	crc;
	size_t		i;

	if (len < 9 || line[8] != ' ')
		return -1;
	crc = 0;
	for (i = 0; i < 8; i++) {
		char c = line[i];
		crc <<= 4;
		if (c >= '0' && c <= '9')
			crc |= c - '0';
		else if (c >= 'a' && c <= 'f')
			crc |= c - 'a' + 10;
		else
			return -1;
	}
	if (crc != wire_crc32(line + 9, len - 9))
		return -1;
	*payload = line + 9;
	*plen = len - 9;
	return 0;
}

int
wire_task_frame(const struct task *t, char *buf, size_t size)
{
	char	payload[RECORD_LINE_MAX];
	int	plen;

	if ((plen = wire_task_encode(t, payload, sizeof payload)) == -1)
		return -1;
	return wire_record_frame(payload, plen, buf, size);
}

void
wire_journal_scan(const char *data, size_t len, struct wire_journal_scan *s)
{
	const char	*line, *nl, *payload;
	char		 err[128];
	size_t		 plen, lineno = 0;
	struct task	*t;

	for (line = data; line < data + len; line = nl + 1) {
		lineno++;
		if ((nl = memchr(line, '\n', data + len - line)) == NULL) {
			s->damages++;
			s->damaged(lineno, DAMAGE_TORN, "no newline",
			    data + len - line, s->arg);
			return;
		}
		if (wire_record_unframe(line, nl - line, &payload,
		    &plen) == -1) {
			s->damages++;
			s->damaged(lineno, DAMAGE_CHECKSUM, "bad checksum",
			    nl - line, s->arg);
			continue;
		}
		if ((t = wire_task_decode(payload, plen, err,
		    sizeof err)) == NULL) {
			s->damages++;
			s->damaged(lineno, DAMAGE_UNDECODABLE, err, nl - line,
			    s->arg);
			continue;
		}
		if (s->record(t, s->arg) == -1)
			task_free(t);
		s->loaded++;
	}
}
