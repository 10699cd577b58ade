/*
 * job.c -- the one place volery forks (see job.h).  A child that has a
 * cgroup is born in it (clone3 with CLONE_INTO_CGROUP, Linux 5.7):
 * moving a process into a cgroup afterwards, by a write to its
 * cgroup.procs, waits for an RCU grace period, 10 ms of a 15 ms start.
 * Either way the child shares the node's memory until it executes, as
 * vfork's does: a fork's copy of the node's page tables, and their
 * teardown at the child's execve, were a tenth of a busy pool's CPU.
 * Where the kernel cannot, or for a child without a cgroup, vfork and
 * the write.  Pipes are created close-on-exec, so a child inherits
 * nothing but its three descriptors even before close_range(); signals
 * are blocked across the fork so that no handler of the node runs in
 * the child before its dispositions are the defaults again.
 */
#include <linux/capability.h>
#include <linux/sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/queue.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "job.h"
#include "runas.h"

struct job {
	pid_t			 pid;
	struct job_exit		 exit;
	TAILQ_ENTRY(job)	 entry;
};

static TAILQ_HEAD(, job)	jobs = TAILQ_HEAD_INITIALIZER(jobs);
static struct event		*sigchld_ev;
static int			 no_clone3;	/* the kernel said so */
static void			(*on_reaped)(void);

static struct job *
find(pid_t pid)
{
	struct job	*j;

	TAILQ_FOREACH(j, &jobs, entry)
		if (j->pid == pid)
			return j;
	return NULL;
}

/* Reap every child that ended; tell the one waiting for it. */
static void
sigchld_cb(evutil_socket_t sig, short what, void *arg)
{
	struct rusage	 ru;
	struct job	*j;
	pid_t		 pid;
	int		 status;

	while ((pid = wait4(-1, &status, WNOHANG, &ru)) > 0) {
		if ((j = find(pid)) == NULL)
			continue;
		TAILQ_REMOVE(&jobs, j, entry);
		if (j->exit.cb != NULL)
			j->exit.cb(pid, status, &ru, j->exit.arg);
		free(j);
	}
	if (on_reaped != NULL)
		on_reaped();
}

void
job_on_reaped(void (*fn)(void))
{
	on_reaped = fn;
}

int
job_init(struct event_base *base)
{
	sigchld_ev = evsignal_new(base, SIGCHLD, sigchld_cb, NULL);
	if (sigchld_ev == NULL || evsignal_add(sigchld_ev, NULL) == -1)
		return -1;
	return 0;
}

void
job_shutdown(void)
{
	struct job	*j;

	while ((j = TAILQ_FIRST(&jobs)) != NULL) {
		TAILQ_REMOVE(&jobs, j, entry);
		free(j);
	}
	if (sigchld_ev != NULL)
		event_free(sigchld_ev);
	sigchld_ev = NULL;
}

int
job_running(pid_t pid)
{
	return find(pid) != NULL;
}

int
job_adopt(pid_t pid, const struct job_exit *e)
{
	struct job	*j;

	if ((j = calloc(1, sizeof *j)) == NULL)
		return -1;
	j->pid = pid;
	j->exit = *e;
	TAILQ_INSERT_TAIL(&jobs, j, entry);
	return 0;
}

int
job_wait(pid_t pid, int *status)
{
	struct job	*j;

	if ((j = find(pid)) != NULL) {
		TAILQ_REMOVE(&jobs, j, entry);
		free(j);
	}
	while (waitpid(pid, status, 0) == -1)
		if (errno != EINTR)
			return -1;
	return 0;
}

void
job_forget(pid_t pid)
{
	struct job	*j;

	if ((j = find(pid)) != NULL)
		j->exit.cb = NULL;
}

/*
 * In the child: say why it cannot run (the runner protocol's way), and
 * end.  The child shares the node's memory until it executes (vfork):
 * no stdio, no malloc, only system calls on what the parent prepared.
 */
static void __attribute__((noreturn))
fail(const struct job_spec *s, const char *what, int err)
{
	const char	*parts[] = { "ERROR ", what, " ", s->path, ": ",
			    strerror(err), "\n" };
	size_t		 i;

	if (s->exec_error_line)
		for (i = 0; i < sizeof parts / sizeof parts[0]; i++)
			if (write(1, parts[i], strlen(parts[i])) == -1)
				break;
	_exit(127);
}

/* fd, if a pipe (never /dev/null, where a child without a pipe writes),
 * becomes user's: CRIU reopens it by its /proc path. */
static int
give_pipe(int fd, const struct runas *user)
{
	struct stat	st;

	if (fstat(fd, &st) == -1 || !S_ISFIFO(st.st_mode))
		return 0;
	return fchown(fd, user->uid, user->gid);
}

/* After the switch of user: these capabilities in the permitted,
 * effective, inheritable and ambient sets, so that the program keeps
 * them across execve(). */
static int
keep_caps(uint64_t caps)
{
	struct __user_cap_header_struct	hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct	data[2];
	int				cap;

	memset(data, 0, sizeof data);
	data[0].permitted = data[0].effective = data[0].inheritable =
	    (uint32_t)caps;
	data[1].permitted = data[1].effective = data[1].inheritable =
	    (uint32_t)(caps >> 32);
	if (syscall(SYS_capset, &hdr, data) == -1)
		return -1;
	for (cap = 0; cap < 64; cap++)
		if ((caps >> cap & 1) && prctl(PR_CAP_AMBIENT,
		    PR_CAP_AMBIENT_RAISE, cap, 0, 0) == -1)
			return -1;
	return 0;
}

/*
 * In the child: become the program.  Never returns.  The limits are set
 * while still privileged (so the run cannot raise them back); the
 * parent-death signal after the switch of user, which clears it.
 */
static void __attribute__((noreturn))
child(const struct job_spec *s, char *const *envp, pid_t parent, int in,
    int out, int err, const char *procs)
{
	struct sigaction sa;
	sigset_t	 none;
	int		 sig, i, fd;

	/* A session of its own, and so a process group (for kill(-pid)):
	 * no terminal's signals, and a tree CRIU can dump, which needs the
	 * session's leader inside it (the node's may be outside its pid
	 * namespace, as in a container). */
	setsid();
	/* Into the run's cgroup before anything else, if not born in it:
	 * all that it forks is in it too (contain.h).  Without it, its
	 * process group. */
	if (procs != NULL &&
	    (fd = open(procs, O_WRONLY | O_CLOEXEC)) != -1) {
		ssize_t n = write(fd, "0", 1);	/* failed: the group holds */
		(void)n;
		close(fd);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);	/* SIGPIPE above all */
	if (dup2(in, 0) == -1 || dup2(out, 1) == -1 || dup2(err, 2) == -1)
		_exit(127);
	syscall(SYS_close_range, 3, ~0U, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (i = 0; i < s->nlimits; i++)
		if (setrlimit(s->limits[i].resource, &s->limits[i].value) ==
		    -1)
			fail(s, "cannot set the limits of", errno);
	if (s->nice > 0 && setpriority(PRIO_PROCESS, 0, s->nice) == -1)
		_exit(127);
	if (s->idle_io)		/* IOPRIO_WHO_PROCESS, IOPRIO_CLASS_IDLE */
		syscall(SYS_ioprio_set, 1, 0, 3 << 13);
	if (s->cwd != NULL && chdir(s->cwd) == -1)
		fail(s, "cannot enter the run directory of", errno);
	if (s->keep_caps != 0 && (give_pipe(1, s->user) == -1 ||
	    give_pipe(2, s->user) == -1 || prctl(PR_SET_KEEPCAPS, 1) == -1))
		fail(s, "cannot prepare", errno);
	if (s->user != NULL && runas_become(s->user) == -1)
		fail(s, "cannot switch user for", errno);
	if (s->keep_caps != 0 && keep_caps(s->keep_caps) == -1)
		fail(s, "cannot keep the capabilities of", errno);
	if (s->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fail(s, "cannot set no_new_privs for", errno);
	if (s->die_with_parent) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)	/* it died before prctl */
			_exit(127);
	}
	execve(s->path, s->argv, envp);
	fail(s, "cannot execute", errno);
}

/* The name part of "NAME=value", with its '='. */
static size_t
env_name_len(const char *kv)
{
	const char	*eq = strchr(kv, '=');

	return eq != NULL ? (size_t)(eq - kv) + 1 : strlen(kv);
}

/*
 * The child's environment, made before the vfork: the node's, each
 * variable of `set` replacing one of the same name.  Pointers into both;
 * free the array only.
 */
static char **
child_env(char *const *set)
{
	char	**v;
	size_t	  n = 0, k = 0, i, j;

	for (i = 0; environ[i] != NULL; i++)
		n++;
	for (i = 0; set != NULL && set[i] != NULL; i++)
		n++;
	if ((v = calloc(n + 1, sizeof *v)) == NULL)
		return NULL;
	for (i = 0; environ[i] != NULL; i++) {
		size_t len = env_name_len(environ[i]);
		for (j = 0; set != NULL && set[j] != NULL; j++)
			if (env_name_len(set[j]) == len &&
			    strncmp(set[j], environ[i], len) == 0)
				break;
		if (set == NULL || set[j] == NULL)
			v[k++] = environ[i];
	}
	for (j = 0; set != NULL && set[j] != NULL; j++)
		v[k++] = set[j];
	return v;
}

/* What child() is given, through the one pointer a clone passes. */
struct child_args {
	const struct job_spec	*s;
	char *const		*envp;
	pid_t			 parent;
	int			 in, out, err;
};

static void __attribute__((noreturn))
child_of_clone(void *arg)
{
	const struct child_args *a = arg;

	child(a->s, a->envp, a->parent, a->in, a->out, a->err, NULL);
}

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define CHILD_STACK	(128 * 1024)

/*
 * clone3 for a child that shares our memory: it must not return into
 * our frames, so it starts fn(arg) on a stack of its own, which no C
 * wrapper of the system call can do (glibc keeps its clone3 to itself).
 * The registers other than rax, rcx and r11 survive the call in both.
 */
static pid_t
clone3_call(struct clone_args *ca, void (*fn)(void *), void *arg)
{
	register void	(*r12)(void *) __asm__("r12") = fn;
	register void	*r13 __asm__("r13") = arg;
	long		 ret;

	__asm__ volatile(
	    "syscall\n\t"
	    "testq %%rax, %%rax\n\t"
	    "jnz 1f\n\t"
	    "xorl %%ebp, %%ebp\n\t"	/* the child: its first frame */
	    "movq %%r13, %%rdi\n\t"
	    "callq *%%r12\n\t"
	    "ud2\n"			/* fn executes or exits */
	    "1:"
	    : "=a" (ret)
	    : "0" ((long)SYS_clone3), "D" (ca), "S" (sizeof *ca),
	      "r" (r12), "r" (r13)
	    : "rcx", "r11", "memory");
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return (pid_t)ret;
}

/* The suspended parent waits for the child's execve (CLONE_VFORK): one
 * child uses the stack at a time. */
static pid_t
clone3_shared(struct clone_args *ca, struct child_args *a)
{
	static void	*stack;

	if (stack == NULL && (stack = mmap(NULL, CHILD_STACK, PROT_READ |
	    PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0)) ==
	    MAP_FAILED) {
		stack = NULL;
		return -1;
	}
	ca->flags |= CLONE_VM | CLONE_VFORK;
	ca->stack = (uint64_t)(uintptr_t)stack;
	ca->stack_size = CHILD_STACK;
	return clone3_call(ca, child_of_clone, a);
}
#else
/* A plain clone3 returns in the child too: a fork's copy, waited for
 * until it executes, as the others are. */
static pid_t
clone3_shared(struct clone_args *ca, struct child_args *a)
{
	pid_t	pid;

	ca->flags |= CLONE_VFORK;
	pid = (pid_t)syscall(SYS_clone3, ca, sizeof *ca);

	if (pid == 0)
		child_of_clone(a);
	return pid;
}
#endif

/*
 * A child born in the cgroup of dir, running a's program; -1 with errno
 * set if it cannot be.  The kernel's answer for clone3 itself is kept:
 * asked once.
 */
static pid_t
spawn_into(const char *dir, struct child_args *a)
{
	struct clone_args ca;
	pid_t		  pid;
	int		  fd;

	if (no_clone3 || (fd = open(dir, O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		return -1;
	memset(&ca, 0, sizeof ca);
	ca.flags = CLONE_INTO_CGROUP;
	ca.exit_signal = SIGCHLD;
	ca.cgroup = (uint64_t)fd;
	pid = clone3_shared(&ca, a);
	if (pid == -1 && (errno == ENOSYS || errno == E2BIG))
		no_clone3 = 1;
	close(fd);
	return pid;
}

static void
close_all(int *fd, int n)
{
	int	i;

	for (i = 0; i < n; i++)
		if (fd[i] != -1)
			close(fd[i]);
}

pid_t
job_start(const struct job_spec *s, const struct job_exit *e,
    struct job_fds *fds, char *err, size_t errlen)
{
	/* [0] [1]: stdin; [2] [3]: stdout; [4] [5]: stderr; [6]: null */
	int		 fd[7] = { -1, -1, -1, -1, -1, -1, -1 };
	sigset_t	 all, old;
	struct child_args a;
	struct job	*j;
	char		**envp = NULL, procs[PATH_MAX] = "";
	pid_t		 pid = -1, parent = getpid();
	int		 cgroup = s->cgroup != NULL && s->cgroup[0] != '\0';

	if ((j = calloc(1, sizeof *j)) == NULL ||
	    (envp = child_env(s->env)) == NULL) {
		snprintf(err, errlen, "out of memory");
		free(j);
		return -1;
	}
	if ((s->stdin_pipe && pipe2(&fd[0], O_CLOEXEC) == -1) ||
	    pipe2(&fd[2], O_CLOEXEC) == -1 ||
	    (s->stderr_pipe && pipe2(&fd[4], O_CLOEXEC) == -1) ||
	    (fd[6] = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		close_all(fd, 7);
		free(envp);
		free(j);
		return -1;
	}
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	a.s = s;
	a.envp = envp;
	a.parent = parent;
	a.in = s->stdin_pipe ? fd[0] : fd[6];
	a.out = fd[3];
	a.err = s->stderr_pipe ? fd[5] : fd[6];
	if (cgroup)
		pid = spawn_into(s->cgroup, &a);
	/* Else vfork: no copy of the node's page tables, which grow with
	 * its map; we wait the few system calls until the child executes,
	 * and it moves itself into its cgroup. */
	if (pid == -1 && cgroup)
		snprintf(procs, sizeof procs, "%s/cgroup.procs", s->cgroup);
	if (pid == -1 && (pid = vfork()) == 0)
		child(s, envp, parent, a.in, a.out, a.err, procs[0] != '\0' ?
		    procs : NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(envp);
	if (pid == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close_all(fd, 7);
		free(j);
		return -1;
	}
	/* No setpgid here: every path waits for the child's execve
	 * (vfork, CLONE_VFORK), so its setsid is done, and a group made
	 * first would make that setsid fail. */
	if (fd[0] != -1)	/* the child's ends */
		close(fd[0]);
	close(fd[3]);
	if (fd[5] != -1)
		close(fd[5]);
	close(fd[6]);
	fds->in = fd[1];
	fds->out = fd[2];
	fds->err = fd[4];
	j->pid = pid;
	if (e != NULL)
		j->exit = *e;
	TAILQ_INSERT_TAIL(&jobs, j, entry);
	return pid;
}

int
job_watchdog(void (*fn)(int))
{
	struct job	*j;
	int		 fd[2];
	pid_t		 pid;

	if (pipe2(fd, O_CLOEXEC) == -1)
		return -1;
	/* A plain fork: the child runs our code, and never returns. */
	if ((pid = fork()) == 0) {
		if (dup2(fd[0], 3) == -1)
			_exit(1);
		fn(3);
	}
	close(fd[0]);
	if (pid == -1) {
		close(fd[1]);
		return -1;
	}
	/* One of ours (job_running): reaped, never taken for an orphan. */
	if ((j = calloc(1, sizeof *j)) != NULL) {
		j->pid = pid;
		TAILQ_INSERT_TAIL(&jobs, j, entry);
	}
	return fd[1];
}
