/*
 * listen.c -- the client port and the node's UNIX socket: accept, tell
 * clients.c who connected (an address, a loopback or local user known
 * by SO_PEERCRED), and back off while out of descriptors.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>

#include "bounds.h"
#include "clients.h"
#include "clock.h"
#include "lex.h"
#include "log.h"
#include "ratelimit.h"
#include "sockowner.h"

static struct evconnlistener	*listener, *unix_listener;
static char			 unix_path[sizeof(((struct sockaddr_un *)0)->
				    sun_path)];
/* Accepting paused (out of descriptors): the back-off, and its timer. */
static struct event		*resume_ev;
static int64_t			 backoff_ms;
static uint64_t			 accept_failures;
static int64_t			 accept_logged;

static void
accept_cb(struct evconnlistener *l, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct client_origin	 from;
	char			 host[INET6_ADDRSTRLEN] = "?";
	uid_t			 uid;

	memset(&from, 0, sizeof from);
	/* Replies are small and come one by one: no Nagle delay on them. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	if (sa->sa_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)sa;
		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof host);
		from.loopback = (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
		snprintf(from.addr, sizeof from.addr, "%s:%d", host,
		    ntohs(sin->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)sa;
		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof host);
		from.loopback = IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr);
		snprintf(from.addr, sizeof from.addr, "[%s]:%d", host,
		    ntohs(sin6->sin6_port));
	}
	from.local = from.loopback;
	/* Whose it is: its user's share (clients.c), what it may do. */
	from.uid = -1;
	if (from.loopback && sock_peer_uid(fd, &uid) == 0) {
		sock_user_name(uid, from.user, sizeof from.user);
		from.uid = uid;
	}
	backoff_ms = 0;		/* accepting works again */
	(void)clients_accept(evconnlistener_get_base(l), fd, &from);
}

/* The UNIX socket: who connects is known (SO_PEERCRED), and local. */
static void
accept_unix_cb(struct evconnlistener *l, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct client_origin	 from;
	struct ucred		 cred;
	socklen_t		 len = sizeof cred;
	struct passwd		*pw;

	memset(&from, 0, sizeof from);
	from.local = 1;
	from.loopback = 1;
	from.uid = -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
		sock_user_name(cred.uid, from.user, sizeof from.user);
		from.uid = cred.uid;
		from.pid = (int)cred.pid;
		pw = getpwuid(cred.uid);
		/* One token: it is a task record's cl= field. */
		snprintf(from.addr, sizeof from.addr, "%.32s@unix/uid=%u/pid=%d",
		    pw != NULL ? pw->pw_name : "?", (unsigned)cred.uid,
		    (int)cred.pid);
	} else
		snprintf(from.addr, sizeof from.addr, "?@unix");
	backoff_ms = 0;
	(void)clients_accept(evconnlistener_get_base(l), fd, &from);
}

static void
resume_cb(evutil_socket_t fd, short what, void *arg)
{
	if (listener != NULL)
		evconnlistener_enable(listener);
	if (unix_listener != NULL)
		evconnlistener_enable(unix_listener);
}

/*
 * accept() failed.  Out of descriptors (EMFILE, ENFILE) or memory, every
 * retry fails at once: stop accepting for a while, doubling up to 2 s,
 * and say so at most every 10 s -- not a line per retry.
 */
static void
accept_error_cb(struct evconnlistener *l, void *arg)
{
	int	e = EVUTIL_SOCKET_ERROR();

	accept_failures++;
	if (e != EMFILE && e != ENFILE && e != ENOBUFS && e != ENOMEM) {
		log_msg(VLOG_ERROR, "accept: %s",
		    evutil_socket_error_to_string(e));
		return;
	}
	backoff_ms = backoff_ms == 0 ? 50 : backoff_ms * 2 > 2000 ? 2000 :
	    backoff_ms * 2;
	if (listener != NULL)
		evconnlistener_disable(listener);
	if (unix_listener != NULL)
		evconnlistener_disable(unix_listener);
	if (resume_ev == NULL)
		resume_ev = evtimer_new(evconnlistener_get_base(l), resume_cb,
		    NULL);
	if (resume_ev != NULL) {
		struct timeval tv = { backoff_ms / 1000,
		    (backoff_ms % 1000) * 1000 };
		evtimer_add(resume_ev, &tv);
	}
	if (ratelimit_due(&accept_logged, clock_node_ms()))
		log_msg(VLOG_ERROR, "accept: %s; not accepting clients for "
		    "%lld ms (%llu failures so far)",
		    evutil_socket_error_to_string(e), (long long)backoff_ms,
		    (unsigned long long)accept_failures);
}

int
clients_listen_unix(struct event_base *base, const char *path, char *err,
    size_t errlen)
{
	struct sockaddr_un	sun;
	mode_t			old;
	char			*slash;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path) {
		snprintf(err, errlen, "socket path %s: longer than %zu bytes",
		    path, sizeof sun.sun_path - 1);
		return -1;
	}
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	/* Its directory (/run/volery), as systemd's RuntimeDirectory would
	 * make it for a node started by hand. */
	if ((slash = strrchr(sun.sun_path, '/')) != NULL &&
	    slash != sun.sun_path) {
		*slash = '\0';
		if (mkdir(sun.sun_path, 0755) == -1 && errno != EEXIST)
			log_warn("cannot make %s", sun.sun_path);
		*slash = '/';
	}
	/* A socket file left by a node that died: ours now (one node per
	 * state dir, which the journal's lock already ensures). */
	unlink(path);
	old = umask(0111);	/* any local user may connect: srw-rw-rw- */
	unix_listener = evconnlistener_new_bind(base, accept_unix_cb, NULL,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 128,
	    (struct sockaddr *)&sun, sizeof sun);
	umask(old);
	if (unix_listener == NULL) {
		snprintf(err, errlen, "cannot listen on %s: %s", path,
		    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
		return -1;
	}
	evconnlistener_set_error_cb(unix_listener, accept_error_cb);
	snprintf(unix_path, sizeof unix_path, "%s", path);
	return 0;
}

int
clients_listen(struct event_base *base, const char *addr, clients_line_fn *fn,
    const struct clients_opts *o, char *bound, size_t boundlen, char *err,
    size_t errlen)
{
	struct addrinfo		 hints, *ai = NULL;
	char			 host[ADDR_MAXLEN + 1], portstr[16];
	int			 port;

	/* "host:port", "[v6 host]:port"; "*" is every (v4) address, port 0
	 * a free one. */
	if (lex_hostport(addr, host, sizeof host, &port) == -1 || port < 0)
		goto bad;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = addr[0] == '[' ? AF_INET6 : AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
	snprintf(portstr, sizeof portstr, "%d", port);
	if (getaddrinfo(strcmp(host, "*") == 0 ? NULL : host, portstr, &hints,
	    &ai) != 0)
		goto bad;
	clients_serve(fn, o);
	listener = evconnlistener_new_bind(base, accept_cb, NULL,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
	    128, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	if (listener == NULL) {
		snprintf(err, errlen, "cannot listen on %s: %s", addr,
		    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
		return -1;
	}
	evconnlistener_set_error_cb(listener, accept_error_cb);
	/* Port 0 picks a free port: report the real one. */
	sock_bound_name(evconnlistener_get_fd(listener), bound, boundlen);
	return 0;
bad:
	snprintf(err, errlen, "bad listen address %s", addr);
	return -1;
}

void
clients_close_all(void)
{
	clients_drop_all();
	if (listener != NULL)
		evconnlistener_free(listener);
	listener = NULL;
	if (unix_listener != NULL) {
		evconnlistener_free(unix_listener);
		unlink(unix_path);
	}
	unix_listener = NULL;
	if (resume_ev != NULL)
		event_free(resume_ev);
	resume_ev = NULL;
}
