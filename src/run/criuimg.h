/*
 * criuimg.h -- a CRIU dump as one file, so that it travels as any other
 * checkpoint does (ckstore.h, ckfetch.h): a header line
 *
 *	volery-criu 1 <pid> <stdout pipe inode> <stderr pipe inode> <files>
 *
 * then, for each image file, "<name> <size>\n" and its bytes.  Names are
 * plain file names (1 to 64 of A-Z a-z 0-9 . _ -, not starting with a
 * dot), so an image unpacks into its own directory and nowhere else.
 * A pack comes from a peer: every field is checked as it is read.
 */
#ifndef VOLERY_CRIUIMG_H
#define VOLERY_CRIUIMG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CRIUIMG_FILES_MAX	4096
#define CRIUIMG_NAME_MAX	64

struct criuimg_meta {
	pid_t		pid;		/* the tree's root, restored as it was */
	uint64_t	out_ino;	/* its stdout's pipe then, or 0 */
	uint64_t	err_ino;	/* its stderr's */
};

/* Write the image files in directory dir (regular files of uid, not
 * its *.log) as one pack into out; -1 with why. */
int	criuimg_pack(int dir, uid_t uid, const struct criuimg_meta *, int out,
	    char *why, size_t whylen);
/* Read a pack of len bytes: each file to put(name, bytes, size, arg),
 * which returns -1 to stop; 0, or -1 with why if it is not a pack. */
int	criuimg_parse(const unsigned char *buf, size_t len,
	    struct criuimg_meta *,
	    int (*put)(const char *, const unsigned char *, size_t, void *),
	    void *arg, char *why, size_t whylen);
/* Unpack the pack in file in into the empty directory dir, the files
 * created mode 0600 for uid/gid; -1 with why. */
int	criuimg_unpack(int in, int dir, uid_t uid, gid_t gid,
	    struct criuimg_meta *, char *why, size_t whylen);

#endif
