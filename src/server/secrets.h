/*
 * secrets.h -- --secret-env values: kept by the node that took the task,
 * given only to the node that runs it, sealed to that node's key.
 *
 * The record carries the variables' names (sen=); the values stay in
 * <state_dir>/secrets/<uuid> (0600) on the taker until the task ends.
 * A runner asks the taker (SECRET_WANTED uuid); the taker answers only
 * the node it holds as running that task, with the values sealed to
 * that node's key (X25519 of its Ed25519 identity, crypto_box_seal):
 * never in the map, the journal, ACCOUNT, the API or a datagram any
 * other key holder can open.  A taker that does not answer within a few
 * seconds fails the attempt, which goes back to Ready.
 */
#ifndef VOLERY_SECRETS_H
#define VOLERY_SECRETS_H

#include <stddef.h>

struct event_base;
struct node;
struct peer_msg;
struct task;

/* secrets_fetch's answer: the "NAME=value" strings (NULL-terminated,
 * gone after the call), or NULL and why. */
typedef void	(*secrets_cb)(const char *uuid, char *const *kv,
		    const char *why);

int	secrets_open(struct event_base *, struct node *core,
	    const char *state_dir, secrets_cb ready, char *err, size_t errlen);
void	secrets_close(void);
/* Keep uuid's values (n "NAME=value" words), before its owner is told
 * it is scheduled. */
int	secrets_keep(const char *uuid, char *const *kv, int n, char *err,
	    size_t errlen);
/* uuid ended: its values go. */
void	secrets_forget(const char *uuid);
/* We are to run t: its values, from our own keeping or asked of its
 * taker; ready() is called with them (perhaps at once). */
void	secrets_fetch(const struct task *);
/* SECRET_WANTED or SECRET from a peer. */
void	secrets_recv(const struct peer_msg *, const char *addr);

#endif
