# icache-lab - top-level Makefile.
#
#   make                  build everything into build/
#   make check            the whole test suite (ends with "N passed, N failed")
#   make demo             install missing packages (as root), build, record the
#                         default scenario and open it in the viewer
#   make bench            side-by-side measurements (QUICK=1 for a short run)
#   make format-check     fail if clang-format would change a source file
#   make install PREFIX=/usr/local
#   make clean
#
# Variants: SAN=address|thread|undefined builds with that sanitizer into
# build/SAN/; TRACE=0 compiles every tracepoint out (build/notrace/).

PREFIX ?= /usr/local
CC ?= cc
SAN ?=
TRACE ?= 1

# BUILD may be given on the command line to keep several trees apart.
ifeq ($(SAN),)
  ifeq ($(TRACE),0)
    BUILD ?= build/notrace
  else
    BUILD ?= build
  endif
else
  BUILD ?= build/$(SAN)$(if $(filter 1,$(PLAIN_LOCKS)),-plain)
endif

PKGS_TRACE := lttng-ust
PKGS_CTL := lttng-ctl
PKGS_VIEW := babeltrace2 ncursesw

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
CFLAGS_BASE := -std=gnu11 -O2 -g $(WARN) -pthread -D_GNU_SOURCE \
	-DLTTNG_UST_COMPAT_API_VERSION=1 -I.
LDFLAGS_BASE := -pthread

ifneq ($(SAN),)
  CFLAGS_BASE += -fsanitize=$(SAN) -fno-omit-frame-pointer
  LDFLAGS_BASE += -fsanitize=$(SAN)
  ifeq ($(SAN),undefined)
    CFLAGS_BASE += -fno-sanitize-recover=undefined
  endif
endif

# PLAIN_LOCKS=1: spin_lock() blocks without a trylock first, so that
# ThreadSanitizer and Helgrind see every lock order (sim/core/lock.c).
ifeq ($(PLAIN_LOCKS),1)
  CFLAGS_BASE += -DICACHE_PLAIN_LOCKS=1
endif

ifeq ($(TRACE),0)
  CFLAGS_BASE += -DICACHE_TRACE=0
  TRACE_LIBS :=
else
  TRACE_LIBS := $(shell pkg-config --libs $(PKGS_TRACE) 2>/dev/null || echo -llttng-ust -llttng-ust-common -ldl)
endif
CTL_LIBS := $(shell pkg-config --libs $(PKGS_CTL) 2>/dev/null || echo -llttng-ctl)
VIEW_CFLAGS := $(shell pkg-config --cflags $(PKGS_VIEW) 2>/dev/null)
VIEW_LIBS := $(shell pkg-config --libs $(PKGS_VIEW) 2>/dev/null || echo -lbabeltrace2 -lncursesw -ltinfo)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt)

CFLAGS := $(CFLAGS_BASE) $(EXTRA_CFLAGS)
LDFLAGS := $(LDFLAGS_BASE) $(EXTRA_LDFLAGS)

# ---- lib/: what every program shares ---------------------------------------
# Checked allocation, the JSON writer, the babeltrace2 graph, fork/exec with
# capture, the --keys notation and the terminal palette.  An archive: each
# program pulls in only the objects it uses (icache-sim links no curses).

LAB_SRCS := $(wildcard lib/*.c)
LAB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LAB_SRCS))
LAB_LIB := $(BUILD)/lib/liblab.a

# ---- the simulator --------------------------------------------------------

SIM_SRCS := $(wildcard sim/core/*.c sim/schemes/*.c sim/engine/*.c sim/script/*.c) \
	$(filter-out sim/cmd/sim_main.c,$(wildcard sim/cmd/*.c))
ifneq ($(TRACE),0)
  SIM_SRCS += tracepoints/icache_tp.c
endif
SIM_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(SIM_SRCS))
SIM_LIB := $(BUILD)/lib/libicache.a
SIM_BIN := $(BUILD)/bin/icache-sim
# record reads its trace back with libbabeltrace2 (sim/cmd/trace_count.c).
BT_LIBS := $(shell pkg-config --libs babeltrace2 2>/dev/null || echo -lbabeltrace2)
# RCU (sim/core/rcu.c): liburcu's membarrier flavour, no signals.
URCU_LIBS := $(shell pkg-config --libs liburcu-memb 2>/dev/null || echo -lurcu-memb -lurcu-common)
SIM_LIBS := $(TRACE_LIBS) $(CTL_LIBS) $(BT_LIBS) $(URCU_LIBS) -lm
# The clock plugin of `record --virtual` (tracepoints/vclock_plugin.c) finds
# the virtual clock in icache-sim by name: export those two symbols.
SIM_EXPORTS := -Wl,--export-dynamic-symbol=icache_vclock_read \
	-Wl,--export-dynamic-symbol=icache_vclock_attach
ifneq ($(TRACE),0)
  VCLOCK_SO := $(BUILD)/lib/icache-lab/icache-vclock.so
endif

# ---- the viewer and the lessons (optional until their sources exist) ----

VIEW_SRCS := $(filter-out viewer/view_main.c viewer/fuzz_%.c,$(wildcard viewer/*.c))
VIEW_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(VIEW_SRCS))
VIEW_LIB := $(BUILD)/lib/libicview.a
VIEW_BIN := $(if $(wildcard viewer/view_main.c),$(BUILD)/bin/icache-view)

LESSON_SRCS := $(filter-out lessons/src/lesson_main.c,$(wildcard lessons/src/*.c))
LESSON_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LESSON_SRCS))
LESSON_BIN := $(if $(wildcard lessons/src/lesson_main.c),$(BUILD)/bin/icache-lesson)

# ---- tests -------------------------------------------------------------

TEST_SRCS := $(wildcard tests/test_*.c)
# Check forks a child per test; liblttng-ust must be told about the fork or
# its destructor crashes in the child.  liblttng-ust-fork wraps fork().
ifneq ($(TRACE),0)
  TEST_FORK_LIBS := -Wl,--no-as-needed -llttng-ust-fork -Wl,--as-needed
endif
TEST_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
# Helpers every suite links (tests/tmux.c: the real terminal).
TEST_OBJS := $(BUILD)/obj/tests/tmux.o
# Made only by a pattern rule, they would be intermediate files that make
# deletes after each build, then remakes with every test binary next time.
.SECONDARY: $(TEST_OBJS)

BINS := $(SIM_BIN) $(VIEW_BIN) $(LESSON_BIN)

# Test-only builds of icache-sim with `merged` broken on purpose, one way
# each (ICACHE_BREAK_<name> in sim/schemes/merged.c): tests/test_checker.c
# proves that the checker reports each.  Only merged.o differs.
BREAKS := missed_wakeup freed_hashed duplicate_inode unlocked_ref nested_ilock
# The same for vfs-scale's RCU lookup (ICACHE_BREAK_<name> in vfs-scale.c).
BREAKS_VFS := rcu_no_recheck rcu_sleep
BREAK_BINS := $(foreach b,$(BREAKS),$(BUILD)/break/$(b)/icache-sim) \
	$(foreach b,$(BREAKS_VFS),$(BUILD)/break-vfs-scale/$(b)/icache-sim)

.PHONY: all check demo bench install clean deps format format-check fuzz traces check-dummy-event
all: $(BINS) $(VCLOCK_SO) $(TEST_BINS) $(BREAK_BINS)

# A scheme's events name their lines as lines of the scheme's own file
# (SRC_FILE_ID, sim/core/lock.h).
SCHEME_SRC_FLAG = $(if $(filter sim/schemes/%,$<),-DSRC_FILE_ID=SRC_scheme)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SCHEME_SRC_FLAG) $(if $(filter viewer/% lessons/% lib/%,$<),$(VIEW_CFLAGS)) -MMD -MP -c $< -o $@

# Each scheme file's name and POSIX cksum(1), for run_begin (registry.c):
# a viewer showing the source checks it has the file the run was built from.
SCHEME_FILES := $(filter-out sim/schemes/registry.c,$(wildcard sim/schemes/*.c))
$(BUILD)/gen/scheme_src.h: $(SCHEME_FILES) Makefile
	@mkdir -p $(dir $@)
	@for f in $(SCHEME_FILES); do set -- $$(cksum < $$f); \
		echo "{ \"$$f\", $${1}u },"; done > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/sim/schemes/registry.o: $(BUILD)/gen/scheme_src.h
$(BUILD)/obj/sim/schemes/registry.o: CFLAGS += -I$(BUILD)/gen

$(LAB_LIB): $(LAB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(SIM_LIB): $(SIM_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(SIM_BIN): $(BUILD)/obj/sim/cmd/sim_main.o $(SIM_LIB) $(LAB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(SIM_EXPORTS) -o $@ $^ $(SIM_LIBS)

# Where record looks for it: next to the binary, ../lib/icache-lab/.
$(VCLOCK_SO): tracepoints/vclock_plugin.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $< -ldl

$(BUILD)/break/%/icache-sim: sim/schemes/merged.c $(BUILD)/obj/sim/cmd/sim_main.o $(SIM_LIB) $(LAB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DSRC_FILE_ID=SRC_scheme -DICACHE_BREAK_$* -c $< -o $(dir $@)merged.o
	$(CC) $(LDFLAGS) $(SIM_EXPORTS) -o $@ $(BUILD)/obj/sim/cmd/sim_main.o $(dir $@)merged.o $(SIM_LIB) \
		$(LAB_LIB) $(SIM_LIBS)

$(BUILD)/break-vfs-scale/%/icache-sim: sim/schemes/vfs-scale.c $(BUILD)/obj/sim/cmd/sim_main.o $(SIM_LIB) $(LAB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DSRC_FILE_ID=SRC_scheme -DICACHE_BREAK_$* -c $< -o $(dir $@)vfs-scale.o
	$(CC) $(LDFLAGS) $(SIM_EXPORTS) -o $@ $(BUILD)/obj/sim/cmd/sim_main.o $(dir $@)vfs-scale.o $(SIM_LIB) \
		$(LAB_LIB) $(SIM_LIBS)

$(VIEW_LIB): $(VIEW_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/bin/icache-view: $(BUILD)/obj/viewer/view_main.o $(VIEW_LIB) $(LAB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(VIEW_LIBS) -lm

$(BUILD)/bin/icache-lesson: $(BUILD)/obj/lessons/src/lesson_main.o $(LESSON_OBJS) $(VIEW_LIB) $(LAB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(VIEW_LIBS) -lm

# Every test links the simulator library, and the viewer's if it exists.
$(BUILD)/tests/%: tests/%.c tests/testutil.h tests/simenv.h $(TEST_OBJS) $(SIM_LIB) $(if $(VIEW_SRCS),$(VIEW_LIB)) $(LESSON_OBJS) $(LAB_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(VIEW_CFLAGS) -o $@ $< $(TEST_OBJS) $(LESSON_OBJS) $(SIM_LIB) $(if $(VIEW_SRCS),$(VIEW_LIB)) $(LAB_LIB) \
		$(LDFLAGS) $(CHECK_LIBS) $(TEST_FORK_LIBS) $(SIM_LIBS) $(VIEW_LIBS) -lm

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# ---- pre-recorded lesson traces ------------------------------------------
# One recording of each lesson's scenario, for machines with no LTTng
# session daemon: icache-lesson loads $(BUILD)/traces/NAME when it cannot
# record (lessons/src/lesson_trace.h).  test_lessons checks each against a
# fresh recording.

LESSON_TRACE_SCNS := $(sort $(shell sed -n 's/^scenario: *scenarios\///p' lessons/*.lesson 2>/dev/null))
LESSON_TRACES := $(patsubst %.scn,$(BUILD)/traces/%.stamp,$(LESSON_TRACE_SCNS))

traces: $(LESSON_TRACES)

$(BUILD)/traces/%.stamp: lessons/scenarios/%.scn $(SIM_BIN)
	@mkdir -p $(BUILD)/traces && rm -rf $(BUILD)/traces/$*
	$(SIM_BIN) play $< -o $(BUILD)/traces/$* > /dev/null
	@# the recorder writes 0770/0660: a student is not in root's group
	@chmod -R a+rX $(BUILD)/traces/$*
	@touch $@

# ---- the things a user types --------------------------------------------

check: all $(if $(filter 0,$(TRACE)),,traces)
	@BUILD=$(BUILD) SAN=$(SAN) ONLY="$(ONLY)" sh tests/run-all.sh

demo:
	@sh tools/install-deps.sh
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) sh tools/demo.sh

bench: all
	@BUILD=$(BUILD) QUICK=$(QUICK) sh bench/run.sh

deps:
	@sh tools/install-deps.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/icache-lab
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	$(if $(VCLOCK_SO),install -d $(DESTDIR)$(PREFIX)/lib/icache-lab && \
		install -m 755 $(VCLOCK_SO) $(DESTDIR)$(PREFIX)/lib/icache-lab/)
	cp -r lessons $(DESTDIR)$(PREFIX)/share/icache-lab/
	install -d $(DESTDIR)$(PREFIX)/share/icache-lab/sim/schemes \
		$(DESTDIR)$(PREFIX)/share/icache-lab/sim/core $(DESTDIR)$(PREFIX)/share/icache-lab/sim/engine
	install -m 644 $(SCHEME_FILES) $(DESTDIR)$(PREFIX)/share/icache-lab/sim/schemes/
	install -m 644 sim/core/icache.c sim/core/list_lru.c $(DESTDIR)$(PREFIX)/share/icache-lab/sim/core/
	install -m 644 sim/engine/workloads.c $(DESTDIR)$(PREFIX)/share/icache-lab/sim/engine/
	if [ -d $(BUILD)/traces ]; then mkdir -p $(DESTDIR)$(PREFIX)/share/icache-lab/traces && \
		for d in $(BUILD)/traces/*/; do cp -r $$d $(DESTDIR)$(PREFIX)/share/icache-lab/traces/; done; fi

fuzz:
	@BUILD=$(BUILD) FUZZ_SECONDS=$(or $(FUZZ_SECONDS),60) sh viewer/fuzz.sh

# Every C source and header; the LTTng provider header is a macro language
# clang-format cannot lay out, so it keeps its hand layout.
FORMAT_SRCS := $(filter-out tracepoints/icache_tp.h,$(wildcard lib/*.[ch] sim/*/*.[ch] \
	viewer/*.[ch] lessons/src/*.[ch] tests/*.[ch] tracepoints/*.[ch] bench/*.[ch]))

# The event path, proved: a separate tree built with one more row in the
# event table (tracepoints/icache_events.h) runs tests/test_events.c, which
# records that event and sees the viewer name and word it.
check-dummy-event:
	@$(MAKE) --no-print-directory BUILD=build/dummy-event \
		EXTRA_CFLAGS="$(EXTRA_CFLAGS) -DICACHE_TEST_DUMMY_EVENT" check ONLY=events

format:
	clang-format -i $(FORMAT_SRCS)

# Fails (and names the first misformatted lines) when `make format` would
# change anything.
format-check:
	clang-format --dry-run -Werror $(FORMAT_SRCS)

clean:
	rm -rf build
