/*
 * sockowner.h -- what a socket is: who holds the other end of a loopback
 * TCP connection (the uid the kernel lists for that socket in
 * /proc/net/tcp or tcp6, as an ident daemon answers; a UNIX socket says
 * it with SO_PEERCRED), and the address a listening socket got.
 */
#ifndef VOLERY_SOCKOWNER_H
#define VOLERY_SOCKOWNER_H

#include <stddef.h>
#include <sys/types.h>

/* The uid of the process side of our accepted connection fd; -1 if it
 * is not a loopback TCP connection of this host, or not found. */
int	sock_peer_uid(int fd, uid_t *uid);
/* The process holding the other end of that connection (the first the
 * node finds in /proc, which as root it may read); -1 if none. */
int	sock_peer_pid(int fd, pid_t *pid);

/* uid's login name into out, or "uid<N>" if it has none fit for a task
 * record (a user= field). */
void	sock_user_name(uid_t uid, char *out, size_t size);
/* The address fd is bound to, as "a.b.c.d:port" or "[v6]:port" (what
 * port 0 picked, for the log). */
void	sock_bound_name(int fd, char *buf, size_t size);

#endif
