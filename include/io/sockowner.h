/*
 * sockowner.h -- who holds the other end of a loopback TCP connection:
 * the uid the kernel lists for that socket in /proc/net/tcp (or tcp6),
 * as an ident daemon answers.  A UNIX socket says it with SO_PEERCRED.
 */
#ifndef VOLERY_SOCKOWNER_H
#define VOLERY_SOCKOWNER_H

#include <sys/types.h>

/* The uid of the process side of our accepted connection fd; -1 if it
 * is not a loopback TCP connection of this host, or not found. */
int	sock_peer_uid(int fd, uid_t *uid);

#endif
