/*
 * sockowner.c -- the uid of a loopback TCP peer.  The kernel is asked
 * for that one socket (NETLINK_SOCK_DIAG, by its four-tuple: 20 us);
 * where it cannot answer, /proc/net/tcp{,6} is read (half a millisecond
 * a connection, more the more sockets the host has).  There each line
 * lists a socket as "sl local rem st ... uid ...", addresses as the
 * kernel's 32-bit words in hex ("%08X" of each word as stored) and
 * ports in host order; the peer's socket is the one whose local end is
 * our remote end and the other way round.
 */
#include <sys/socket.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "sockowner.h"
#include "task.h"

/* An address's port and 16 bytes as inet_diag takes them. */
static void
diag_addr(const struct sockaddr_storage *ss, __be16 *port, __be32 *addr)
{
	memset(addr, 0, 16);
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)ss;
		*port = sin->sin_port;
		memcpy(addr, &sin->sin_addr, 4);
	} else {
		const struct sockaddr_in6 *sin6 = (const void *)ss;
		*port = sin6->sin6_port;
		memcpy(addr, &sin6->sin6_addr, 16);
	}
}

/* addr:port as /proc/net/tcp writes it: the address's 32-bit words as
 * stored, the port in host order. */
static void
proc_addr(const struct sockaddr_storage *ss, char *out, size_t size)
{
	__be32	w[4];
	__be16	port;
	size_t	off = 0;
	int	i;

	diag_addr(ss, &port, w);
	for (i = 0; i < (ss->ss_family == AF_INET ? 1 : 4); i++)
		off += snprintf(out + off, size - off, "%08X", w[i]);
	snprintf(out + off, size - off, ":%04X", ntohs(port));
}

/* The kernel's word on the socket whose local end is theirs and whose
 * remote end is ours: its uid and inode; -2 if there is none on this
 * host, -1 if the kernel cannot tell. */
static int
diag_entry(const struct sockaddr_storage *ours,
    const struct sockaddr_storage *theirs, uid_t *uid, unsigned long *inode)
{
	struct {
		struct nlmsghdr		nh;
		struct inet_diag_req_v2	req;
	} q;
	union {
		struct nlmsghdr	nh;
		char		buf[1024];
	} a;
	struct sockaddr_nl	 kernel = { .nl_family = AF_NETLINK };
	struct inet_diag_msg	*m;
	struct timeval		 tv = { 0, 200000 };
	ssize_t			 n = -1;
	int			 s, found = -1;

	if ((s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG)) == -1)
		return -1;
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	memset(&q, 0, sizeof q);
	q.nh.nlmsg_len = sizeof q;
	q.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.nh.nlmsg_flags = NLM_F_REQUEST;
	q.req.sdiag_family = (unsigned char)ours->ss_family;
	q.req.sdiag_protocol = IPPROTO_TCP;
	q.req.idiag_states = ~0U;
	diag_addr(theirs, &q.req.id.idiag_sport, q.req.id.idiag_src);
	diag_addr(ours, &q.req.id.idiag_dport, q.req.id.idiag_dst);
	q.req.id.idiag_cookie[0] = q.req.id.idiag_cookie[1] =
	    INET_DIAG_NOCOOKIE;
	if (sendto(s, &q, sizeof q, 0, (struct sockaddr *)&kernel,
	    sizeof kernel) == (ssize_t)sizeof q &&
	    (n = recv(s, &a, sizeof a, 0)) >= (ssize_t)NLMSG_LENGTH(sizeof *m) &&
	    NLMSG_OK(&a.nh, (size_t)n) &&
	    a.nh.nlmsg_type == SOCK_DIAG_BY_FAMILY) {
		m = NLMSG_DATA(&a.nh);
		*uid = (uid_t)m->idiag_uid;
		*inode = m->idiag_inode;
		found = 0;
	} else if (n >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) &&
	    a.nh.nlmsg_type == NLMSG_ERROR &&
	    ((struct nlmsgerr *)NLMSG_DATA(&a.nh))->error == -ENOENT)
		found = -2;
	close(s);
	return found;
}

/* The other end of our connection fd: its uid and socket inode; -1 if
 * it is not a loopback connection of ours. */
static int
peer_entry(int fd, uid_t *uid, unsigned long *inode)
{
	struct sockaddr_storage	 ours, theirs;
	socklen_t		 len = sizeof ours, tlen = sizeof theirs;
	char			 want_local[64], want_rem[64];
	char			 line[512], local[64], rem[64];
	unsigned long		 u, ino;
	FILE			*f;
	int			 found = -1;

	if (getsockname(fd, (struct sockaddr *)&ours, &len) == -1 ||
	    getpeername(fd, (struct sockaddr *)&theirs, &tlen) == -1 ||
	    ours.ss_family != theirs.ss_family ||
	    (ours.ss_family != AF_INET && ours.ss_family != AF_INET6))
		return -1;
	if ((found = diag_entry(&ours, &theirs, uid, inode)) != -1)
		return found == 0 ? 0 : -1;
	proc_addr(&theirs, want_local, sizeof want_local);
	proc_addr(&ours, want_rem, sizeof want_rem);
	f = fopen(ours.ss_family == AF_INET ? "/proc/net/tcp" :
	    "/proc/net/tcp6", "re");
	if (f == NULL)
		return -1;
	while (found == -1 && fgets(line, sizeof line, f) != NULL) {
		/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
		if (sscanf(line, " %*s %63s %63s %*s %*s %*s %*s %lu %*s %lu",
		    local, rem, &u, &ino) == 4 &&
		    strcmp(local, want_local) == 0 &&
		    strcmp(rem, want_rem) == 0) {
			*uid = (uid_t)u;
			*inode = ino;
			found = 0;
		}
	}
	fclose(f);
	return found;
}

int
sock_peer_uid(int fd, uid_t *uid)
{
	unsigned long	inode;

	return peer_entry(fd, uid, &inode);
}

int
sock_peer_pid(int fd, pid_t *pid)
{
	char		 want[64], path[600], link[64];
	struct dirent	*p, *e;
	unsigned long	 inode;
	uid_t		 uid;
	DIR		*procs, *fds;
	ssize_t		 n;

	if (peer_entry(fd, &uid, &inode) == -1 || inode == 0 ||
	    (procs = opendir("/proc")) == NULL)
		return -1;
	snprintf(want, sizeof want, "socket:[%lu]", inode);
	*pid = 0;
	while (*pid == 0 && (p = readdir(procs)) != NULL) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/fd", p->d_name);
		if ((fds = opendir(path)) == NULL)
			continue;
		while (*pid == 0 && (e = readdir(fds)) != NULL) {
			snprintf(path, sizeof path, "/proc/%s/fd/%s",
			    p->d_name, e->d_name);
			if ((n = readlink(path, link, sizeof link - 1)) > 0 &&
			    (link[n] = '\0', strcmp(link, want) == 0))
				*pid = (pid_t)atoi(p->d_name);
		}
		closedir(fds);
	}
	closedir(procs);
	return *pid > 0 ? 0 : -1;
}

void
sock_bound_name(int fd, char *buf, size_t size)
{
	struct sockaddr_storage	ss;
	socklen_t		len = sizeof ss;
	char			num[INET6_ADDRSTRLEN];

	memset(&ss, 0, sizeof ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1) {
		snprintf(buf, size, "?");
		return;
	}
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		inet_ntop(AF_INET6, &s6->sin6_addr, num, sizeof num);
		snprintf(buf, size, "[%s]:%d", num, ntohs(s6->sin6_port));
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		inet_ntop(AF_INET, &s4->sin_addr, num, sizeof num);
		snprintf(buf, size, "%s:%d", num, ntohs(s4->sin_port));
	}
}

void
sock_user_name(uid_t uid, char *out, size_t size)
{
	struct passwd	*pw = getpwuid(uid);

	if (pw != NULL && task_token_valid(pw->pw_name, USER_MAXLEN))
		snprintf(out, size, "%s", pw->pw_name);
	else
		snprintf(out, size, "uid%u", (unsigned)uid);
}
