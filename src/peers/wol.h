/*
 * wol.h -- Wake-on-LAN (wake.h): the magic packet a sleeping node's
 * network card listens for, and the address it must carry.
 */
#ifndef VOLERY_WOL_H
#define VOLERY_WOL_H

#include <stddef.h>

#define WOL_PORT	9	/* discard: what wakeonlan and etherwake use */

/* Send the magic packet for "<mac>@<broadcast>[,always]" (peer.h's
 * wake=) to that broadcast address; -1 and why if it cannot. */
int	wol_send(const char *how, char *err, size_t errlen);
/*
 * How to wake this host (into out, WAKE_TEXT_MAX + 1): the MAC address
 * of the interface whose broadcast address is ours, "@" that address,
 * and ",always" for a node that volunteers whenever it is up.  -1 and
 * why if there is none (loopback has no MAC to wake).
 */
int	wol_self(const char *broadcast, int always, char *out, size_t size,
	    char *err, size_t errlen);

#endif
