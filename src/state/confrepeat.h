/*
 * confrepeat.h -- what config.c hands to confrepeat.c, and back.
 */
#ifndef VOLERY_CONFREPEAT_H
#define VOLERY_CONFREPEAT_H

#include <libxml/tree.h>

#include "bounds.h"

struct errlist;
struct vol_window;

/* "file:line: <element>: what is wrong", into the list of problems. */
void	config_error(struct errlist *, long line, const char *elem,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* <batch days="mon-fri" from="HH:MM" to="HH:MM" [order="..."]/> */
void	config_load_batch(struct vol_window *, int *n, xmlNode *,
	    struct errlist *);

/* <relay>IPv4[:PORT]</relay>, one a node on another subnet. */
void	config_load_relay(char (*relays)[ADDR_MAXLEN + 1], int *n, xmlNode *,
	    struct errlist *);

#endif
