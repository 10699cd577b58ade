/*
 * digest.h -- a task's share of the map digest, and its bucket: what
 * anti-entropy compares and moves.  Pure functions of a task; the sums
 * are antientropy.c's.
 */
#ifndef VOLERY_DIGEST_H
#define VOLERY_DIGEST_H

#include <stdint.h>

struct task;

/* A hash of (uuid, version, state, confirmation, runner): equal maps
 * have equal XORs of them. */
uint64_t	digest_part(const struct task *);
/* Which of PEER_BUCKETS the uuid's share goes to. */
unsigned	digest_bucket(const char *uuid);
/* Sixteen hex digits of v into out (no NUL), and back from 16 digits
 * the wire checked. */
void		digest_hex(uint64_t v, char *out);
uint64_t	digest_unhex(const char *in);
/* One hex digit the wire checked. */
int		digest_hexval(char c);

extern const char digest_hexdigits[];

#endif
