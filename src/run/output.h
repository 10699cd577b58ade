/*
 * output.h -- what runs write on stdout and stderr, kept by the node
 * that ran them and served to OUTPUT requests (volery output).  By
 * default in <state_dir>/output/<uuid>.out and .err; a command that
 * names files (-o, -e) gets them, opened as the run user.  A task's
 * files in the state dir go when it leaves the map (retention_s).
 *
 * OUTPUT's reply: "OUTPUT <uuid> <node> <stdout|stderr> <bytes now>",
 * then "DATA <n>" lines each followed by n bytes as they are, then ".".
 * With -f, DATA follows as the run writes, and "." once it ended.
 */
#ifndef VOLERY_OUTPUT_H
#define VOLERY_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

struct client;
struct runas;
struct task;

#define OUTPUT_STDOUT	0
#define OUTPUT_STDERR	1

struct output;		/* one run's two streams */

/* Make <state_dir>/output; keeps node (this node's name).  A stream
 * kept there keeps max_bytes at most (0: all), then a note. */
int	output_init(const char *state_dir, const char *node,
	    int64_t max_bytes, char *err, size_t errlen);
/* t starts here, as ra: its streams, open anew (truncated; a file its
 * command named, as ra); NULL with err. */
struct output *output_open(const struct task *t, const struct runas *ra,
	    char *err, size_t errlen);
/* What the run wrote: to its file, and to those following it. */
void	output_write(struct output *, int stream, const void *, size_t);
/* The run ended: its followers get their end.  Frees o. */
void	output_close(struct output *);
/* Answer OUTPUT for t, which ran here, from byte offset on; follow:
 * on until the run ends. */
void	output_serve(struct client *, const struct task *t, int stream,
	    int follow, int64_t offset);
/* t left the map: its files in the state dir go. */
void	output_forget(const char *uuid);
/* Shutdown: every follower gets its end. */
void	output_shutdown(void);

#endif
