# volery -- one binary, a pure core library, a libevent shell.
#
#   make            build ./volery and the sample tasks
#   make demo       run a local node and a sample workflow
#   make test       layering, unit, simulator (with kept traces), integration,
#                   fuzz, `make check`, `make valgrind`
#   make sim        the simulator's report: 9, 100, 1000 nodes at 0/1/10% loss
#   make simsweep   the large simulator sweep (SWEEP_SEEDS per fault mix)
#   make bench      the thesis' tables and the speed on a namespace LAN
#                   (QUICK=1: a few minutes)
#   make check      the unit and integration tests under ASan + UBSan
#   make valgrind   the unit and integration tests under valgrind
#
# Missing -dev packages are installed by tools/install-deps.sh (as root).

CC	?= cc
BUILD	?= build
SANITIZE ?=
PYTHON	?= python3
FUZZ_SECONDS ?= 4

PKGS	= libevent uuid libxml-2.0 libpcre2-8 zlib libsodium jansson
# What the core itself links with: zlib's crc32() (record frames) and
# libsodium's AEAD (sealed datagrams, src/wire/seal.c).
CORE_LIBS = -lz -lsodium
# Recursive (=) so pkg-config runs after the packages are installed.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS = $(shell pkg-config --libs $(PKGS))
# The binary loads libxml2 when it first reads XML (src/sys/xmllazy.c).
# The others but zlib (shared by Debian's rule, and libxml2 needs it)
# are linked in from the -dev packages' archives: every command-line
# call starts the binary, and the loader's work for six shared libraries
# was half of what `volery --version` cost.  A security update of one of
# them needs a rebuild of volery.
VOLERY_LIBS = -Wl,-Bstatic \
    $(shell pkg-config --libs $(filter-out libxml-2.0 zlib,$(PKGS))) \
    -Wl,-Bdynamic $(shell pkg-config --libs zlib)

WARN	= -Wall -Wextra -Werror -Wshadow -Wpointer-arith -Wstrict-prototypes \
	  -Wmissing-prototypes -Wno-unused-parameter
CFLAGS	?= -O2 -g
ifneq ($(SANITIZE),)
CFLAGS	= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	  -fno-sanitize-recover=undefined
LDFLAGS	+= -fsanitize=address,undefined
endif
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CPPFLAGS) $(CFLAGS) -MMD -MP

# Layering is a compile error: the core and wire codecs see only core and
# wire headers (an io or libevent header there does not build), and link
# without libevent; struct node (src/core/nodestate.h) is the core's own.
CORE_INC = -Iinclude/core -Iinclude/wire
CORE_ONLY = -include src/core/pure.h
# The shell, a folder per stage (README, docs/architecture.md); each
# module's header beside its source.
SHELL_DIRS = server clients web run peers state sys submit cli
SHELL_INC = $(CORE_INC) $(addprefix -Isrc/,$(SHELL_DIRS))

CORE_SRC = $(wildcard src/core/*.c src/wire/*.c)
SHELL_SRC = $(foreach d,$(SHELL_DIRS),$(wildcard src/$(d)/*.c))
CORE_OBJ = $(CORE_SRC:%.c=$(BUILD)/%.o)
# The dashboard's files, compiled in (tools/embed.sh).
WEB_SRC	= $(sort $(wildcard src/web/page/*))
WEB_OBJ	= $(BUILD)/webfiles.o
SHELL_OBJ = $(SHELL_SRC:%.c=$(BUILD)/%.o) $(WEB_OBJ)
CORE_LIB = $(BUILD)/libvolerycore.a

UNIT_SRC = $(wildcard test/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:test/unit/%.c=$(BUILD)/test/%)

TASK_NAMES = import georeferencing segmentation anomaly_detection
TASK_BIN = $(addprefix tasks/,$(TASK_NAMES))
TEST_TASK_SRC = $(wildcard test/tasks/*.c)
TEST_TASK_BIN = $(TEST_TASK_SRC:%.c=%)

FUZZ_SRC = $(wildcard test/fuzz/fuzz_*.c)
FUZZ_BIN = $(FUZZ_SRC:test/fuzz/%.c=build/fuzz/%)

# modelsig.c stands for src/core/signature.c (linked first, the
# archive's member is never pulled): signatures cost a hash there.
SIM_SRC	= test/sim/simnet.c test/sim/evqueue.c test/sim/liar.c \
	test/sim/simckpt.c test/sim/simwake.c test/sim/modelsig.c

DEPS_OK	= $(BUILD)/.deps-ok
VOLERY	= $(if $(SANITIZE),$(BUILD)/volery,volery)

.PHONY: all binaries deps demo test unit integration fuzz check valgrind clean sim seeds simtest simtraces simsweep bench bench-core bench-start bench-throttle bench-checkpoint bench-transfer bench-side bench-waiting bench-bigpost bench-office \
	layering \
	install uninstall deb FORCE
.DEFAULT_GOAL := all

all: $(VOLERY) $(TASK_BIN) $(BUILD)/volery-sim

# The simulator: the real core on a simulated LAN (test/sim).
$(BUILD)/volery-sim: test/sim/main.c $(SIM_SRC) test/sim/simnet.h \
    test/sim/arrivals.c test/sim/arrivals.h test/sim/evqueue.h \
    test/sim/simckpt.h $(CORE_LIB)
	$(CC) $(ALL_CFLAGS) $(CORE_INC) -Itest/sim $(LDFLAGS) test/sim/main.c \
	    test/sim/arrivals.c $(SIM_SRC) \
	    -o $@ $(CORE_LIB) $(CORE_LIBS) -lm

# The placement report (small runs; 50 seeds, as 10 are too few to tell
# a few per cent) runs beside the table, on the other core.  The table's
# 1000-node runs keep 3 GB in huge pages (malloc's tunable; a glibc
# without it ignores it): fewer TLB misses, ~7 % faster.  After the
# report, on its core: 10 000 seeds of small pools with a certified liar
# (-F) and every fault, half of them without partitions (where a run the
# liar claims must have a majority's votes to be told final).
SIM_ENV	= GLIBC_TUNABLES=glibc.malloc.hugetlb=1
sim: $(BUILD)/volery-sim
	@out=$$(mktemp) || exit 1; \
	{ $(SIM_ENV) tools/placement-report.sh $(BUILD)/volery-sim 50 && \
	  tools/sim-checkpoint.sh $(BUILD)/volery-sim 5 && \
	  $(BUILD)/volery-sim -S 5000 -n 3 -w bag -t 8 -T 200 -F 6 -l 10 \
	    -d 5 -C 1 -P 1 -X 1 -q && \
	  $(BUILD)/volery-sim -S 5000 -s 5001 -n 3 -w bag -t 8 -T 200 -F 6 \
	    -l 10 -d 5 -C 1 -X 1 -q; } >$$out 2>&1 & \
	pid=$$!; \
	$(SIM_ENV) $(BUILD)/volery-sim -R; rc=$$?; \
	wait $$pid || rc=1; \
	cat $$out; rm -f $$out; exit $$rc

# What a big map costs a tick and a message (a benchmark, not a test).
$(BUILD)/bench-core: tools/bench_core.c $(CORE_LIB)
	$(CC) $(ALL_CFLAGS) $(CORE_INC) $(LDFLAGS) $< -o $@ $(CORE_LIB) \
	    $(CORE_LIBS)

bench-core: $(BUILD)/bench-core
	$(BUILD)/bench-core

# How long a run takes to start: RUN or `volery run` to the task's first
# instruction, and the node's start to it (a benchmark, not a test).
$(BUILD)/stamp: tools/stamp.c
	$(CC) $(ALL_CFLAGS) $< -o $@

bench-start: all $(BUILD)/stamp
	$(PYTHON) tools/bench_start.py --stamp $(BUILD)/stamp

# Throttle instead of stop (issue 37): the user's busy loop beside a
# throttled task on one CPU; shares printed.  As root.
bench-throttle: all
	$(PYTHON) tools/bench_throttle.py

bench-checkpoint: all
	@tools/build-criu.sh build/criu
	$(PYTHON) tools/bench_checkpoint.py

# Input files moved by the pool (issue 39): a fetch beside cat | nc
# between two namespaces, and a fan-out to 8 hosts beside 8 sequential
# copies.  As root.
bench-transfer: all
	@tools/install-deps.sh nc:netcat-openbsd
	$(PYTHON) tools/bench_transfer.py

# Side by side in one sitting (issue 36): W1 throughput (a workflow file,
# a CLI call per task, pipelined RUNs), W2 chains and W3 idle starts, for
# volery, a fork loop, task-spooler and Slurm at its best (root: 9 slurmd);
# ratios printed.  A benchmark, not a test.
bench-side: all $(BUILD)/stamp
	@tools/install-deps.sh python3:python3 tsp:task-spooler \
	    sbatch:slurm-wlm
	$(PYTHON) tools/bench_side.py --stamp $(BUILD)/stamp

# What a queue no node can run yet costs a pool, batch after batch
# (issue 40 point 1).  A benchmark, not a test.
bench-waiting: all
	$(PYTHON) tools/bench_waiting.py

# 100 nodes, each in a network namespace of its own on one bridge: boot,
# idle cost, throughput, a kill -9, beside the simulator's cell (issue 40
# point 3).  As root; a benchmark, not a test.
bench-office: all
	@tools/install-deps.sh ip:iproute2
	$(PYTHON) tools/bench_office.py $(if $(OFFICE_NODES),--nodes $(OFFICE_NODES))

# A 4096-task workflow POSTed while another client asks NODES: the
# longest answer meanwhile (issue 40 point 2).  A benchmark, not a test.
bench-bigpost: all
	$(PYTHON) tools/bench_bigpost.py

# make bench [QUICK=1]: the thesis' tables, kills, throughput, latency and
# idle cost on a LAN of network namespaces (root); tables on stdout, data
# and plots in build/bench.  Numbers, not assertions.  BENCH_SLURM=1 runs
# the same workloads on Slurm beside ours (slurm-wlm installed, root).
bench: all
	@tools/install-deps.sh python3:python3 ip:iproute2 nft:nftables \
	    gnuplot:gnuplot-nox
	$(PYTHON) tools/bench_lan.py $(if $(QUICK),--quick) $(if $(BENCH_SLURM),--slurm) \
	    --out build/bench

# The seed papers' experiments beside their numbers (a report, not in
# `make test`; about 10 minutes on 2 cores).  SEEDS: paired seeds a cell.
SEEDS ?= 8
seeds: $(BUILD)/volery-sim
	@$(PYTHON) tools/seeds-report.py $(BUILD)/volery-sim $(SEEDS)

# The large sweep (a benchmark target, not in `make test`): thousands of
# seeds per fault mix, bigger clusters.
SWEEP_SEEDS ?= 5000
simsweep: $(BUILD)/volery-sim
	@set -e; for f in "-n 5 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2" \
	    "-n 9 -l 10 -d 5 -j 5 -c 10 -C 3 -P 3 -B 3 -k 12" \
	    "-n 3 -l 20 -d 10 -j 10 -c 20 -C 2 -P 2 -B 2 -k 6" \
	    "-n 12 -a weibull -l 5 -j 5 -c 5 -P 2 -k 14" \
	    "-n 30 -l 10 -d 5 -j 5 -c 10 -C 4 -P 4 -B 4 -k 33" \
	    "-n 6 -w bag -t 60 -l 10 -d 5 -j 5 -c 10 -C 3 -P 3 -B 3" \
	    "-n 9 -w bag -t 200 -T 2 -E 30 -l 10 -d 5 -j 2 -c 10 -C 3 -P 3 -B 3" \
	    "-n 5 -k 6 -l 40 -d 10 -j 30 -C 2 -c 30 -P 2 -X 4" \
	    "-n 7 -T 300 -l 10 -d 20 -j 50 -Y 3 -K 2000 -C 2 -X 3" \
	    "-n 9 -k 10 -T 300 -Q 32 -G -M 2 -P 2 -l 5 -X 2 -O 10" \
	    "-n 6 -w bag -t 60 -l 20 -C 3 -P 2 -X 3 -O 20" \
	    "-n 5 -k 16 -T 300 -W 5000 -A test/sim/away.trace -l 10 -X 2" \
	    "-U -n 5 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2" \
	    "-n 5 -l 10 -j 5 -c 10 -C 4 -P 2 -B 2 -Z 30" \
	    "-n 5 -k 30 -T 300 -l 20 -d 10 -j 30 -C 3 -c 30 -P 2 -X 4 -W 10000" \
	    "-n 3 -k 4 -T 200 -l 30 -d 20 -j 80 -P 3 -C 2 -c 30 -B 3 -X 3 -K 1000" \
	    "-n 9 -w bag -t 60 -L 4" \
	    "-o fairshare -n 5 -w users -t 60 -T 300 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2" \
	    "-n 7 -w bag -t 60 -T 300 -g 2 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2 -X 2" \
	    "-n 7 -w bag -t 60 -T 300 -L 3 -l 10 -d 5 -j 20 -c 10 -C 2 -P 2 -B 2 -X 2" \
	    "-n 7 -w bag -t 60 -y 4 -l 10 -d 5 -j 5 -c 10 -C 2 -P 2 -B 2"; do \
	    echo "volery-sim $$f:"; \
	    $(BUILD)/volery-sim -S $(SWEEP_SEEDS) -s 100000 -k 8 -T 500 -q $$f; \
	done

# Replayed failing seeds, a short sweep, and the kept event traces of
# fixed seeds (a refactor must leave them byte-identical): part of
# `make test`.  `make simtraces` records the traces anew, on purpose.
# Under the sanitizers (make check) a tenth of the sweep, and no
# traces: the plain build compares those, byte for byte.
simtest: $(BUILD)/volery-sim
	@tools/install-deps.sh xz:xz-utils
	@tools/sim-regress.sh $(BUILD)/volery-sim $(if $(SANITIZE),10,1)
	$(if $(SANITIZE),,@tools/sim-traces.sh $(BUILD)/volery-sim)

simtraces: $(BUILD)/volery-sim
	@tools/install-deps.sh xz:xz-utils
	@tools/sim-traces.sh --record $(BUILD)/volery-sim

deps: $(DEPS_OK)
$(DEPS_OK): tools/install-deps.sh
	@tools/install-deps.sh
	@mkdir -p $(@D) && touch $@

$(BUILD)/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SHELL_INC) $(PKG_CFLAGS) -c $< -o $@

# The version: the Debian changelog's first line (make deb names the
# package by it).
VERSION	= $(shell sed -n '1s/.*(\(.*\)).*/\1/p' tools/debian/changelog)

# The paths the binary knows (where submit finds the installed task
# descriptions, the operator key): rewritten when PREFIX or SYSCONFDIR
# change, so what uses them is built again.
PATHS_H	= $(BUILD)/paths.h
$(PATHS_H): FORCE
	@mkdir -p $(@D)
	@printf '#define VOLERY_TASKS_DIR "%s"\n#define VOLERY_SYSCONF_DIR "%s"\n#define VOLERY_VERSION "%s"\n' \
	    '$(PREFIX)/lib/volery/tasks' '$(SYSCONFDIR)/volery' '$(VERSION)' >$@.new
	@cmp -s $@.new $@ && rm -f $@.new || mv -f $@.new $@
FORCE:
PATHS_USERS = $(addprefix $(BUILD)/src/cli/,cmd-submit.o conn.o cmd-auth.o main.o)
$(PATHS_USERS): $(PATHS_H)
$(PATHS_USERS): \
	ALL_CFLAGS += -include $(PATHS_H)

# The core links without libevent: its objects get no pkg-config flags.
$(BUILD)/src/core/%.o: src/core/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CORE_INC) $(CORE_ONLY) -c $< -o $@
$(BUILD)/src/wire/%.o: src/wire/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CORE_INC) $(CORE_ONLY) -c $< -o $@

$(CORE_LIB): $(CORE_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/webfiles.c: $(WEB_SRC) tools/embed.sh
	@mkdir -p $(@D)
	tools/embed.sh $(WEB_SRC) >$@.new && mv -f $@.new $@
$(WEB_OBJ): $(BUILD)/webfiles.c
	$(CC) $(ALL_CFLAGS) -Isrc/web -c $< -o $@

$(VOLERY): $(SHELL_OBJ) $(CORE_LIB)
	$(CC) $(LDFLAGS) -o $@ $(SHELL_OBJ) $(CORE_LIB) $(VOLERY_LIBS) -pthread

# The sample PLMI2 tasks: one source, four programs.
tasks/import: TASK_DEFS = -DTASK_INPUTS=0 -DTASK_OUTPUTS=3 -DTASK_NEEDS_PATH=1
tasks/georeferencing: TASK_DEFS = -DTASK_INPUTS=3 -DTASK_OUTPUTS=2
tasks/segmentation: TASK_DEFS = -DTASK_INPUTS=3 -DTASK_OUTPUTS=1
tasks/anomaly_detection: TASK_DEFS = -DTASK_INPUTS=1 -DTASK_OUTPUTS=1
$(TASK_BIN): tasks/simtask.c | $(DEPS_OK)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(CPPFLAGS) -O2 -g $(TASK_CFLAGS) \
	    -DTASK_NAME='"$(@F)"' $(TASK_DEFS) $< -o $@ $(TASK_LDFLAGS)

test/tasks/%: test/tasks/%.c
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -g $< -o $@

# A unit test of a shell module names the files it needs beside the core.
UNIT_EXTRA_test_instore = src/state/instore.c src/state/putfile.c \
	src/sys/hashcopy.c
$(BUILD)/test/test_instore: $(UNIT_EXTRA_test_instore)

$(BUILD)/test/%: test/unit/%.c test/unit/testutil.h $(SIM_SRC) \
    test/sim/simnet.h test/sim/evqueue.h $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CORE_INC) -Itest/sim -Isrc/core \
	    $(if $(UNIT_EXTRA_$(@F)),$(SHELL_INC)) $(LDFLAGS) $< \
	    $(SIM_SRC) $(UNIT_EXTRA_$(@F)) -o $@ \
	    $(CORE_LIB) $(CORE_LIBS) $(shell pkg-config --cflags --libs cmocka)

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do $$t; done

integration: all $(TEST_TASK_BIN) | $(DEPS_OK)
	@tools/install-deps.sh python3:python3 ip:iproute2 nft:nftables tmux:tmux man:man-db curl:curl \
	    libfaketime chromium:chromium chromedriver:chromium-driver python3-selenium
	@tools/build-criu.sh build/criu
	$(PYTHON) test/integration/run.py --volery ./$(VOLERY)

# libFuzzer needs clang; each parser gets FUZZ_SECONDS of random input.
# Parsers outside the core bring their file and library.
FUZZ_EXTRA_fuzz_workflow = src/submit/wfload.c src/submit/wfexpand.c \
	src/submit/arrayspec.c src/submit/runlimit.c src/submit/runreq.c src/submit/memsize.c \
	src/sys/xmltext.c src/sys/when.c $(SHELL_INC) \
	$(shell pkg-config --cflags libxml-2.0)
FUZZ_LIBS_fuzz_workflow = $(shell pkg-config --libs libxml-2.0)
FUZZ_EXTRA_fuzz_log = src/sys/logsearch.c src/sys/when.c $(SHELL_INC)
FUZZ_API_SRC = src/web/api.c src/web/taskjson.c src/state/history.c \
	src/state/journal.c src/sys/log.c src/sys/clock.c src/web/stats.c \
	src/state/pooltime.c src/state/statefile.c
FUZZ_EXTRA_fuzz_api = $(FUZZ_API_SRC) $(SHELL_INC)
FUZZ_LIBS_fuzz_api = $(shell pkg-config --libs jansson libevent)
build/fuzz/fuzz_api: $(FUZZ_API_SRC)
FUZZ_LIBS_fuzz_log = $(shell pkg-config --libs libpcre2-8)
FUZZ_EXTRA_fuzz_session = src/web/websession.c $(SHELL_INC)
FUZZ_WEBPOST_SRC = src/web/webpost.c src/web/taskjson.c src/submit/wfreq.c src/submit/wfload.c \
	src/submit/wfexpand.c src/submit/arrayspec.c src/submit/runlimit.c \
	src/submit/runreq.c src/submit/memsize.c src/sys/xmltext.c src/sys/when.c
FUZZ_EXTRA_fuzz_webpost = $(FUZZ_WEBPOST_SRC) $(SHELL_INC) \
	$(shell pkg-config --cflags libxml-2.0)
FUZZ_LIBS_fuzz_webpost = $(shell pkg-config --libs libxml-2.0 jansson uuid)
build/fuzz/fuzz_webpost: $(FUZZ_WEBPOST_SRC)
FUZZ_POOLTIME_SRC = src/state/pooltime.c src/sys/log.c src/sys/clock.c \
	src/state/statefile.c
FUZZ_EXTRA_fuzz_pooltime = $(FUZZ_POOLTIME_SRC) $(SHELL_INC)
FUZZ_LIBS_fuzz_pooltime = $(shell pkg-config --libs jansson)
build/fuzz/fuzz_pooltime: $(FUZZ_POOLTIME_SRC)
build/fuzz/fuzz_session: src/web/websession.c
build/fuzz/fuzz_workflow: src/submit/wfload.c src/submit/wfexpand.c \
    src/submit/arrayspec.c src/submit/runlimit.c src/submit/runreq.c src/submit/memsize.c \
    src/sys/xmltext.c src/sys/when.c
build/fuzz/fuzz_log: src/sys/logsearch.c src/sys/when.c
FUZZ_EXTRA_fuzz_criuimg = src/run/criuimg.c $(SHELL_INC)
build/fuzz/fuzz_criuimg: src/run/criuimg.c
# The core is compiled once, instrumented, for all of them.
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE $(CORE_INC) -g -O1
FUZZ_CORE_OBJ = $(CORE_SRC:src/%.c=build/fuzz/obj/%.o)
build/fuzz/obj/%.o: src/%.c | $(DEPS_OK)
	@tools/install-deps.sh clang:clang libclang-rt-dev
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined \
	    -MMD -MP -c $< -o $@
build/fuzz/libcore.a: $(FUZZ_CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^
build/fuzz/%: test/fuzz/%.c build/fuzz/libcore.a | $(DEPS_OK)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined $< \
	    $(FUZZ_EXTRA_$*) -o $@ build/fuzz/libcore.a $(FUZZ_LIBS_$*) \
	    $(CORE_LIBS)
-include $(FUZZ_CORE_OBJ:.o=.d)

# Nothing here waits on a clock: the fuzzers are built and run two at a
# time (clang installed first, once).  An input that takes 30 s is a
# hang, and fails the run (libFuzzer would wait 20 minutes).
FUZZ_JOBS ?= 2
fuzz: | $(DEPS_OK)
	@tools/install-deps.sh clang:clang libclang-rt-dev
	@$(MAKE) -s -j$(FUZZ_JOBS) $(FUZZ_BIN)
	@printf '%s\n' $(FUZZ_BIN) | xargs -P $(FUZZ_JOBS) -I @ sh -c '\
	    n=$$(basename @); echo "fuzz: @ ($(FUZZ_SECONDS)s)"; \
	    mkdir -p build/fuzz/corpus-$$n; \
	    @ -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=30 \
	        build/fuzz/corpus-$$n test/fuzz/seeds 2>build/fuzz/$$n.log || \
	        { tail -40 build/fuzz/$$n.log; exit 255; }'

# Compiling waits on no clock: two jobs; the tests after it run alone.
BUILD_JOBS ?= 2
binaries: all $(UNIT_BIN) $(TEST_TASK_BIN)

check:
	$(MAKE) -j$(BUILD_JOBS) BUILD=build/san SANITIZE=1 binaries
	$(MAKE) BUILD=build/san SANITIZE=1 unit simtest integration

VALGRIND = valgrind -q --error-exitcode=99 --leak-check=full \
	   --errors-for-leak-kinds=definite
valgrind: all $(UNIT_BIN) $(TEST_TASK_BIN)
	@tools/install-deps.sh valgrind:valgrind python3:python3
	@tools/build-criu.sh build/criu
	@set -e; for t in $(UNIT_BIN); do $(VALGRIND) $$t; done
	VOLERY_WRAP="$(VALGRIND)" VOLERY_TEST_TIMEOUT=60 \
	    $(PYTHON) test/integration/run.py --volery ./volery

# The structure the compiler cannot check (tools/check-layering.sh).
layering: $(CORE_LIB)
	@tools/check-layering.sh $(CORE_LIB)

test:
	$(MAKE) -j$(BUILD_JOBS) binaries
	$(MAKE) layering unit simtest integration fuzz check valgrind

demo: all
	tools/demo.sh

# A soak on a namespace LAN of 7 nodes under random faults (not part of
# make test): SOAK_MINUTES of work, then every acknowledged task checked.
SOAK_MINUTES ?= 3
soak: all $(TEST_TASK_BIN)
	@tools/install-deps.sh python3:python3 ip:iproute2 nft:nftables
	$(PYTHON) tools/soak.py --minutes $(SOAK_MINUTES)

# make install [PREFIX=/usr/local] [SYSCONFDIR=/etc] [DESTDIR=]: the
# binary, manual pages, the sample tasks and workflow, a systemd unit and
# sleep hook, a logrotate file, bash completion, the state and log directories, and a
# config in $(SYSCONFDIR)/volery (with no <name>: the host name is the
# node's) that is never overwritten, nor removed by uninstall; as root
# with no DESTDIR, the user volery that tasks run as.
PREFIX	?= /usr/local
SYSCONFDIR ?= /etc
BINDIR	= $(DESTDIR)$(PREFIX)/bin
MANDIR	= $(DESTDIR)$(PREFIX)/share/man
ETCDIR	= $(DESTDIR)$(SYSCONFDIR)/volery
LIBDIR	= $(DESTDIR)$(PREFIX)/lib/volery
DOCDIR	= $(DESTDIR)$(PREFIX)/share/doc/volery
UNITDIR	= $(DESTDIR)$(PREFIX)/lib/systemd/system
SLEEPDIR = $(DESTDIR)$(PREFIX)/lib/systemd/system-sleep
COMPDIR	= $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ROTDIR	= $(DESTDIR)$(SYSCONFDIR)/logrotate.d
STATEDIR = $(DESTDIR)/var/lib/volery
LOGDIR	= $(DESTDIR)/var/log/volery
MAN_PAGES = man/volery.1 man/volery.conf.5 man/volery-task.5 man/volery-protocol.7 \
	man/volery-api.7
TASK_XML = $(addsuffix .xml,$(TASK_BIN))
# Installed files that name the install's own paths.
INSTALL_SED = sed -e 's|/etc/volery|$(SYSCONFDIR)/volery|g' \
	-e 's|/usr/local|$(PREFIX)|g' -e 's|@PREFIX@|$(PREFIX)|g' \
	-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g'

install: all
	install -d $(BINDIR) $(ETCDIR) $(LIBDIR)/tasks $(DOCDIR) $(UNITDIR) $(SLEEPDIR) \
	    $(MANDIR)/man1 $(MANDIR)/man5 $(MANDIR)/man7 $(COMPDIR) $(ROTDIR)
	install -d -m 711 $(STATEDIR)
	install -d -m 750 $(LOGDIR)
	install -m 755 volery $(BINDIR)/volery
	install -m 755 $(TASK_BIN) $(LIBDIR)/tasks/
	install -m 644 $(TASK_XML) $(LIBDIR)/tasks/
	for m in $(MAN_PAGES); do s=$${m##*.}; \
	    $(INSTALL_SED) $$m >$(MANDIR)/man$$s/$${m#man/} && \
	    chmod 644 $(MANDIR)/man$$s/$${m#man/} || exit 1; done
	sed -e '/<name>.*<\/name>/d' \
	    -e 's|<tasks_dir>.*</tasks_dir>|<tasks_dir>$(PREFIX)/lib/volery/tasks</tasks_dir>|' \
	    -e 's|<state_dir>.*</state_dir>|<state_dir>/var/lib/volery</state_dir>\n  <socket>/run/volery/volery.sock</socket>|' \
	    -e 's|<log_file>.*</log_file>|<log_file>/var/log/volery/volery.log</log_file>|' \
	    conf/volery.conf.xml > $(DOCDIR)/volery.conf.xml
	@# The node's config, and logrotate's, belong to the admin once there.
	test -e $(ETCDIR)/volery.conf.xml || \
	    install -m 644 $(DOCDIR)/volery.conf.xml $(ETCDIR)/volery.conf.xml
	test -e $(ROTDIR)/volery || \
	    install -m 644 conf/volery.logrotate $(ROTDIR)/volery
	$(INSTALL_SED) conf/workflow.xml > $(DOCDIR)/workflow.xml
	install -m 644 conf/params.xml $(DOCDIR)/
	$(INSTALL_SED) conf/volery.service.in > $(UNITDIR)/volery.service
	$(INSTALL_SED) conf/volery.sleep.in > $(SLEEPDIR)/volery
	chmod 755 $(SLEEPDIR)/volery
	install -m 644 conf/volery.bash-completion $(COMPDIR)/volery
	@# The users no one's tasks run as (run_as in volery.conf(5)):
	@# volery and a slot user per core, each run its own uid; made once
	@# when installing for this host as root, never removed by uninstall.
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then \
	    for u in volery $$(seq -f volery-slot%g 1 $$(nproc)); do \
		getent passwd $$u >/dev/null && continue; \
		echo "creating the system user $$u, whom tasks run as"; \
		useradd --system --user-group --no-create-home \
		    --home-dir /nonexistent --shell /usr/sbin/nologin \
		    --comment "volery tasks" $$u || exit 1; \
	    done; \
	fi

# What install put there, but the admin's: the config, logrotate's, the
# state and the logs stay.
uninstall:
	rm -f $(BINDIR)/volery $(MANDIR)/man1/volery.1 \
	    $(MANDIR)/man5/volery.conf.5 $(MANDIR)/man5/volery-task.5 \
	    $(MANDIR)/man7/volery-protocol.7 $(MANDIR)/man7/volery-api.7 \
	    $(UNITDIR)/volery.service $(SLEEPDIR)/volery \
	    $(COMPDIR)/volery
	rm -rf $(LIBDIR) $(DOCDIR)

# make deb: a Debian package of this tree (tools/debian), built with
# dpkg-buildpackage and checked with lintian, in build/deb.
deb:
	@tools/install-deps.sh dpkg-buildpackage:dpkg-dev dh:debhelper \
	    lintian:lintian fakeroot:fakeroot
	rm -rf build/deb && mkdir -p build/deb/volery-$(VERSION)
	git ls-files -z --cached --others --exclude-standard 2>/dev/null | xargs -0 -I{} cp --parents {} \
	    build/deb/volery-$(VERSION)/ 2>/dev/null || \
	    tar --exclude=./build --exclude=./.git -cf - . | \
	    tar -xf - -C build/deb/volery-$(VERSION)
	cp -r tools/debian build/deb/volery-$(VERSION)/debian
	cd build/deb/volery-$(VERSION) && \
	    dpkg-buildpackage -us -uc -b >../build.log 2>&1 || \
	    { tail -40 ../build.log; exit 1; }
	lintian --fail-on error,warning build/deb/volery_$(VERSION)_*.deb
	@ls build/deb/*.deb

clean:
	rm -rf build volery $(TASK_BIN) $(TEST_TASK_BIN)

-include $(CORE_OBJ:.o=.d) $(SHELL_OBJ:.o=.d)
