"""The Slurm column of make bench (BENCH_SLURM=1): the same workloads on
Slurm, tuned to its best case, on this machine.

One slurmctld, one slurmd and one munged on loopback, their state in a
temporary directory, started in the foreground and stopped by pid.
Slurm's own defaults schedule once a second; batch_sched_delay=0 plus an
Epilog (even /bin/true) make it schedule at every job end, its best case.

The pool is one slurmd with 9 CPUs, or (Slurm(hosts=9)) nine one-CPU
slurmd on this host, `slurmd -N n<k>` each on a port of its own (Debian
builds Slurm with multiple-slurmd).  A grid cell of n nodes submits to
partition p<n>, which may use n of those CPUs (or hosts) at a time: n
one-slot hosts with no network between them, which favours Slurm.  Jobs stamp their start and
end with the wall clock into files; the harness waits for the files.
"""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

CPUS = 9
# A job's priority: interactive above low, as the thesis' two levels.
PRIORITY = {"low": 1000, "interactive": 100000}


def available():
    """None if Slurm can run here, else the reason."""
    for tool in ("slurmctld", "slurmd", "munged", "sbatch", "srun"):
        if shutil.which(tool) is None and \
                not os.path.exists("/usr/sbin/" + tool):
            return "no %s (apt-get install slurm-wlm)" % tool
    if os.geteuid() != 0:
        return "needs root (SlurmUser=root)"
    return None


def _free_tcp_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _free_tcp_ports(count):
    """The first of count consecutive free TCP ports (slurmd's Port=a-b)."""
    for _ in range(100):
        base = _free_tcp_port()
        if base + count > 65535:
            continue
        socks = []
        try:
            for p in range(base, base + count):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", p))
            return base
        except OSError:
            pass
        finally:
            for s in socks:
                s.close()
    raise RuntimeError("no %d consecutive free TCP ports" % count)


def _daemon(name):
    return shutil.which(name) or "/usr/sbin/" + name


class Slurm:
    """A running Slurm of one host; close() stops it and removes its state."""

    def __init__(self, hosts=1):
        self.hosts = hosts
        self.dir = tempfile.mkdtemp(prefix="volery-slurm-")
        # munged wants its socket's directories searchable by all.
        os.chmod(self.dir, 0o755)
        self.procs = []
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def _start(self):
        munge = self.path("munge")
        os.mkdir(munge, 0o700)
        key = self.path("munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        os.mkdir(self.path("socket"), 0o755)
        sock = self.path("socket", "munge.sock")
        self._spawn([_daemon("munged"), "-F", "--key-file", key,
                     "--socket", sock, "--pid-file", self.path("munge", "pid"),
                     "--log-file", self.path("munge", "log"),
                     "--seed-file", self.path("munge", "seed")])
        self._await(lambda: os.path.exists(sock), "munged")
        for d in ("state", "spool", "jobs"):
            os.mkdir(self.path(d))
        if self.hosts == 1:
            nodes = "NodeName=localhost CPUs=%d State=UNKNOWN\n" % CPUS
            parts = "".join(
                "PartitionName=p%d Nodes=localhost MaxCPUsPerNode=%d "
                "MaxTime=INFINITE State=UP OverSubscribe=NO%s\n"
                % (n, n, " Default=YES" if n == CPUS else "")
                for n in range(1, CPUS + 1))
        else:
            base = _free_tcp_ports(self.hosts)
            nodes = ("NodeName=n[1-%d] NodeHostname=localhost Port=%d-%d "
                     "CPUs=1 State=UNKNOWN\n"
                     % (self.hosts, base, base + self.hosts - 1))
            parts = "".join(
                "PartitionName=p%d Nodes=n[1-%d] MaxTime=INFINITE State=UP "
                "OverSubscribe=NO%s\n"
                % (n, n, " Default=YES" if n == self.hosts else "")
                for n in range(1, self.hosts + 1))
        for name in (["localhost"] if self.hosts == 1 else
                     ["n%d" % k for k in range(1, self.hosts + 1)]):
            os.mkdir(self.path("spool", name))
        conf = self.path("slurm.conf")
        with open(conf, "w") as f:
            f.write(_CONF % {"dir": self.dir, "sock": sock,
                             "ctld": _free_tcp_port(), "slurmd": _free_tcp_port()}
                    + nodes + parts)
        self.env = dict(os.environ, SLURM_CONF=conf)
        self._spawn([_daemon("slurmctld"), "-D", "-f", conf])
        if self.hosts == 1:
            self._spawn([_daemon("slurmd"), "-D", "-f", conf])
        for k in range(1, self.hosts + 1 if self.hosts > 1 else 1):
            self._spawn([_daemon("slurmd"), "-D", "-f", conf, "-N", "n%d" % k],
                        "slurmd.n%d" % k)
        top = "p%d" % max(CPUS if self.hosts == 1 else self.hosts, 1)
        self._await(lambda: set(self.cmd("sinfo", "-h", "-p", top, "-o", "%T",
                                         check=False).split()) == {"idle"},
                    "slurmd")
        # Its first job waits for a scheduling pass a second or two
        # away; the measured ones should not.
        first = self.sbatch(self.stamp("first"))
        self.stamps("first", [first])

    def _spawn(self, argv, name=None):
        log = open(self.path((name or os.path.basename(argv[0])) + ".out"), "w")
        self.procs.append(subprocess.Popen(argv, stdout=log, stderr=log,
                                           env=getattr(self, "env", None)))
        log.close()

    def _await(self, ready, what, timeout=30):
        # Daemons tell no one they are up: ask until they answer.
        deadline = time.monotonic() + timeout
        while not ready():
            for p in self.procs:
                if p.poll() is not None:
                    raise RuntimeError("slurm: %s exited %d; see %s"
                                       % (p.args[0], p.returncode, self.dir))
            if time.monotonic() > deadline:
                raise RuntimeError("slurm: %s never came up" % what)
            time.sleep(0.1)

    def cmd(self, *argv, check=True):
        r = subprocess.run(argv, capture_output=True, text=True, env=self.env)
        if check and r.returncode != 0:
            raise RuntimeError("%s: %s" % (" ".join(argv), r.stderr.strip()))
        return r.stdout

    def sbatch(self, script, partition="p9", after=(), priority="low"):
        """Submits one job; returns its id."""
        argv = ["sbatch", "--parsable", "-p", partition,
                "--priority=%d" % PRIORITY[priority], "-o", "/dev/null",
                "--wrap", script]
        if after:
            argv.insert(1, "--dependency=afterok:" + ":".join(after))
        return self.cmd(*argv).strip().split(";")[0]

    def stamps(self, prefix, ids, timeout=600):
        """The wall-clock stamps jobs wrote to jobs/<prefix>.<id>, once
        all are there: {id: seconds}."""
        want = set(ids)
        deadline = time.monotonic() + timeout
        while True:
            have = {f.split(".", 1)[1] for f in os.listdir(self.path("jobs"))
                    if f.startswith(prefix + ".") and not f.endswith(".new")}
            if want <= have:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("slurm: %d jobs never wrote %s"
                                   % (len(want - have), prefix))
            time.sleep(0.02)    # files have no event to await here
        got = {}
        for i in want:
            with open(self.path("jobs", "%s.%s" % (prefix, i))) as f:
                got[i] = float(f.read())
        return got

    def stamp(self, prefix):
        """Shell that writes the wall clock to jobs/<prefix>.<job id>,
        renamed into place so that a reader sees it whole."""
        f = "%s/%s.$SLURM_JOB_ID" % (self.path("jobs"), prefix)
        return "date +%%s.%%N > %s.new && mv %s.new %s" % (f, f, f)

    def close(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in reversed(self.procs):
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


_CONF = """ClusterName=volerybench
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%(sock)s
CredType=cred/munge
StateSaveLocation=%(dir)s/state
SlurmdSpoolDir=%(dir)s/spool/%%n
SlurmctldPidFile=%(dir)s/slurmctld.pid
SlurmdPidFile=%(dir)s/slurmd.%%n.pid
SlurmctldLogFile=%(dir)s/slurmctld.log
SlurmdLogFile=%(dir)s/slurmd.%%n.log
SlurmctldPort=%(ctld)d
SlurmdPort=%(slurmd)d
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=batch_sched_delay=0
Epilog=/bin/true
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmdParameters=config_overrides
"""


def throughput(slurm, tasks, submitters=9):
    """Trivial jobs per second: tasks jobs sent by `submitters` sbatch
    loops at once (as 9 volery clients), first sbatch to last job run."""
    ids, lock = [], threading.Lock()
    script = slurm.stamp("t")

    def submit(count):
        mine = [slurm.sbatch(script) for _ in range(count)]
        with lock:
            ids.extend(mine)
    t0 = time.time()
    threads = [threading.Thread(target=submit, args=(tasks // submitters,))
               for _ in range(submitters)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ends = slurm.stamps("t", ids)
    return len(ids) / (max(ends.values()) - t0)


def latency(slurm, samples):
    """(sbatch->start, srun->start) in ms, sorted, on an idle Slurm."""
    batch, run = [], []
    for k in range(samples):
        t0 = time.time()
        i = slurm.sbatch(slurm.stamp("l"))
        batch.append((slurm.stamps("l", [i])[i] - t0) * 1000)
        t0 = time.time()
        out = slurm.cmd("srun", "-Q", "-p", "p9", "date", "+%s.%N")
        run.append((float(out) - t0) * 1000)
    return sorted(batch), sorted(run)


def workflows(slurm, n, chains, T):
    """Chains of four T-second jobs on partition p<n>, each job after its
    inputs (Table 4.1's edges); chains: [[priority] * 4] in sending order.
    (average workflow makespan, average Ready->start wait), s."""
    part = "p%d" % n
    run = "%s; sleep %g; %s" % (slurm.stamp("s"), T, slurm.stamp("e"))
    wfs = []
    for prios in chains:
        jobs = []   # (id, its inputs, when its sbatch began)
        for j, deps in enumerate(((), (0,), (0, 1), (2,))):
            sent = time.time()
            after = [jobs[d][0] for d in deps]
            jobs.append((slurm.sbatch(run, part, after, prios[j]), after, sent))
        wfs.append(jobs)
    ids = [j for jobs in wfs for j, _, _ in jobs]
    ends = slurm.stamps("e", ids)
    starts = slurm.stamps("s", ids)
    makespans, waits = [], []
    for jobs in wfs:
        makespans.append(ends[jobs[-1][0]] - jobs[0][2])
        for j, after, sent in jobs:
            # Ready once sent and its inputs ended.
            ready = max([sent] + [ends[d] for d in after])
            waits.append(max(0.0, starts[j] - ready))
    return sum(makespans) / len(makespans), sum(waits) / len(waits)
