/*
 * command.h -- what a command task (volery run) adds to a run
 * (runner.c): its declared outputs (files, or patterns looked for on
 * its stdout), PROGRESS lines on its stdout, its time limit, and its
 * result once it ended (cmdend.h decides).
 */
#ifndef VOLERY_COMMAND_H
#define VOLERY_COMMAND_H

#include <stddef.h>

struct event_base;
struct runas;
struct runner_msg;
struct task;

struct command_run;

/* t's outputs expanded and patterns compiled; NULL with err. */
struct command_run *command_run_new(const struct task *t, char *err,
	    size_t errlen);
/* progress(m, arg) for each PROGRESS line on its stdout. */
void	command_run_on_progress(struct command_run *,
	    void (*progress)(const struct runner_msg *, void *), void *arg);
void	command_run_free(struct command_run *);
/* Bytes of its stdout, as they come; at its end, flush the last line
 * (one without a newline still counts). */
void	command_run_stdout(struct command_run *, const char *, size_t);
void	command_run_flush(struct command_run *);
/* Its time limit (if it has one) from now: expired(arg) when it is
 * reached, 1 if that stopped the run (0: it was ending anyway); paused
 * while the run is suspended. */
int	command_run_arm_limit(struct command_run *, struct event_base *,
	    int (*expired)(void *), void *arg);
void	command_run_pause(struct command_run *, int stop);
long long command_run_limit_s(const struct command_run *);
/* Its result (m's outputs point into cr): code and signo as it ended,
 * its file outputs looked for as user. */
void	command_run_result(struct command_run *, int code, int signo,
	    const struct runas *user, struct runner_msg *m);

#endif
