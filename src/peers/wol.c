/*
 * wol.c -- the magic packet: six bytes of 0xff, then the MAC address
 * sixteen times, in a UDP datagram to the sleeper's subnet (wol.h).
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "peer.h"
#include "wol.h"

/* "aa:bb:cc:dd:ee:ff" into six bytes. */
static int
mac_parse(const char *s, unsigned char mac[6])
{
	unsigned	b[6];
	int		i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x", &b[0], &b[1], &b[2], &b[3],
	    &b[4], &b[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = (unsigned char)b[i];
	return 0;
}

int
wol_send(const char *how, char *err, size_t errlen)
{
	unsigned char		pkt[6 + 16 * 6], mac[6];
	char			ip[INET_ADDRSTRLEN];
	struct sockaddr_in	to;
	int			fd, one = 1, i;

	if (!peer_wake_valid(how) || mac_parse(how, mac) == -1) {
		snprintf(err, errlen, "'%s' is not <mac>@<broadcast>", how);
		return -1;
	}
	snprintf(ip, sizeof ip, "%.*s", (int)strcspn(how + 18, ","), how + 18);
	memset(&to, 0, sizeof to);
	to.sin_family = AF_INET;
	to.sin_port = htons(WOL_PORT);
	if (inet_pton(AF_INET, ip, &to.sin_addr) != 1) {
		snprintf(err, errlen, "bad broadcast address %s", ip);
		return -1;
	}
	memset(pkt, 0xff, 6);
	for (i = 0; i < 16; i++)
		memcpy(pkt + 6 + 6 * i, mac, 6);
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof one);
	if (sendto(fd, pkt, sizeof pkt, 0, (struct sockaddr *)&to,
	    sizeof to) == -1) {
		snprintf(err, errlen, "sendto %s:%d: %s", ip, WOL_PORT,
		    strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* The interface whose IPv4 broadcast address is broadcast. */
static int
iface_of(const char *broadcast, char name[IF_NAMESIZE])
{
	struct ifaddrs		*all, *i;
	struct in_addr		 want;
	const struct sockaddr_in *b;
	int			 found = -1;

	if (inet_pton(AF_INET, broadcast, &want) != 1 ||
	    getifaddrs(&all) == -1)
		return -1;
	for (i = all; i != NULL && found == -1; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
		    !(i->ifa_flags & IFF_BROADCAST) || i->ifa_broadaddr == NULL)
			continue;
		b = (const struct sockaddr_in *)(void *)i->ifa_broadaddr;
		if (b->sin_addr.s_addr == want.s_addr) {
			snprintf(name, IF_NAMESIZE, "%s", i->ifa_name);
			found = 0;
		}
	}
	freeifaddrs(all);
	return found;
}

int
wol_self(const char *broadcast, int always, char *out, size_t size,
    char *err, size_t errlen)
{
	char	ifname[IF_NAMESIZE], path[64], mac[32] = "";
	FILE	*f;

	if (iface_of(broadcast, ifname) == -1) {
		snprintf(err, errlen, "no interface has the broadcast address "
		    "%s", broadcast);
		return -1;
	}
	snprintf(path, sizeof path, "/sys/class/net/%s/address", ifname);
	if ((f = fopen(path, "r")) == NULL ||
	    fgets(mac, sizeof mac, f) == NULL) {
		snprintf(err, errlen, "%s: cannot read its MAC address", path);
		if (f != NULL)
			fclose(f);
		return -1;
	}
	fclose(f);
	mac[strcspn(mac, "\n")] = '\0';
	if (snprintf(out, size, "%s@%s%s", mac, broadcast, always ?
	    ",always" : "") >= (int)size || !peer_wake_valid(out) ||
	    strncmp(mac, "00:00:00:00:00:00", 17) == 0) {
		snprintf(err, errlen, "%s has no MAC address to wake (%s)",
		    ifname, mac);
		out[0] = '\0';
		return -1;
	}
	return 0;
}
