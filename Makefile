# SPDX-License-Identifier: MIT
# pmtools: pmcollect (record) and pmanalyze (model). `make`, `make check`, `make demo`, `make bench`, `make fuzz`.

prefix ?= /usr/local
bindir ?= $(prefix)/bin
mandir ?= $(prefix)/share/man
DESTDIR ?=

CC ?= cc
PKGS := libzstd libcjson hwloc numa zlib papi libtracefs libtraceevent libdw
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wundef \
	-Wvla -Wwrite-strings -Wcast-qual -Wpointer-arith
ifeq ($(CI),true)
WARN += -Werror
endif
SANITIZE ?=
ifneq ($(SANITIZE),)
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=gnu11 -D_GNU_SOURCE $(WARN) $(SANFLAGS) $(PKG_CFLAGS) -Iformats $(CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -lm -lpthread

# Build products go to build/ (or build-<sanitizer>/) and bin/.
comma := ,
B := build$(if $(SANITIZE),-$(subst $(comma),-,$(SANITIZE)))
BIN := $(if $(SANITIZE),$(B)/bin,bin)

FORMATS_SRC := $(wildcard formats/*.c)
COLLECTOR_SRC := $(filter-out collector/main.c,$(wildcard collector/*.c))
ANALYZER_SRC := $(filter-out analyzer/main.c,$(wildcard analyzer/*.c))
FORMATS_OBJ := $(FORMATS_SRC:%.c=$(B)/%.o)
COLLECTOR_OBJ := $(COLLECTOR_SRC:%.c=$(B)/%.o)
ANALYZER_OBJ := $(ANALYZER_SRC:%.c=$(B)/%.o)

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
WORKLOAD_SRC := $(wildcard tests/workloads/*.c)
WORKLOAD_BIN := $(WORKLOAD_SRC:tests/workloads/%.c=$(B)/workloads/%)

.PHONY: all deps check check-fast check-sanitize demo bench fuzz install clean tests
all: $(BIN)/pmcollect $(BIN)/pmanalyze

deps:
	@sh .ci/deps.sh

$(B)/%.o: %.c $(wildcard formats/*.h collector/*.h analyzer/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BIN)/pmcollect: $(B)/collector/main.o $(COLLECTOR_OBJ) $(FORMATS_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS_ALL)

$(BIN)/pmanalyze: $(B)/analyzer/main.o $(ANALYZER_OBJ) $(FORMATS_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS_ALL)

# Unit tests link every module of the tools except the two main files (cmocka harness).
$(B)/tests/%: tests/unit/%.c $(FORMATS_OBJ) $(COLLECTOR_OBJ) $(ANALYZER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Icollector -Ianalyzer -o $@ $^ $(LDLIBS_ALL) -lcmocka

# Workloads are plain programs: no project code, OpenMP where the name says so.
$(B)/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g $(WARN) $(SANFLAGS) $(if $(findstring omp,$*),-fopenmp) -o $@ $< -lpthread -lm

# Fuzz targets (tests/fuzz/fuzz_*.c) linked with the plain replay main instead of libFuzzer, so
# the corpus in tests/fuzz/corpus/<name>/ is replayed by every build of `make check` (t2100).
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
REPLAY_BIN := $(FUZZ_NAMES:%=$(B)/fuzz/replay-%)
$(B)/fuzz/replay-%: tests/fuzz/replay.c tests/fuzz/fuzz_%.c $(FORMATS_OBJ) $(ANALYZER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ianalyzer -o $@ $^ $(LDLIBS_ALL)

tests: all $(UNIT_BIN) $(WORKLOAD_BIN) $(REPLAY_BIN)

# ---- OpenMP regions (issue 17, docs/regions.md) ----
# libpmompt.so, the OMPT tool loaded into the traced program: its source is collector/ompt/ so the
# collector's collector/*.c wildcard does not link it; built with clang (omp-tools.h comes with
# clang/libomp, gcc has none), position-independent, only ompt_start_tool exported, never
# sanitized (it runs inside an uninstrumented program).
OMPT_CC ?= clang
OMPT_LIB := $(B)/lib/libpmompt.so
$(OMPT_LIB): collector/ompt/pmompt.c collector/ompt/pmompt.h
	@mkdir -p $(dir $@)
	$(OMPT_CC) -std=gnu11 -D_GNU_SOURCE $(WARN) -O2 -g -fPIC -shared -fvisibility=hidden -o $@ $<
# omp_regions needs LLVM's libomp (OMPT): clang -fopenmp=libomp instead of the gcc rule above.
$(B)/workloads/omp_regions: tests/workloads/omp_regions.c
	@mkdir -p $(dir $@)
	$(OMPT_CC) -std=gnu11 -O2 -g $(WARN) $(SANFLAGS) -fopenmp=libomp -o $@ $< -lm
# The test reader: runs a program with the tool and prints its symbolized region records.
$(B)/ompt/ompt_dump: tests/ompt/ompt_dump.c collector/ompt/pmompt.h $(FORMATS_OBJ) $(COLLECTOR_OBJ) $(ANALYZER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Icollector -Ianalyzer -o $@ $(filter %.c %.o,$^) $(LDLIBS_ALL)
$(COLLECTOR_OBJ): collector/ompt/pmompt.h
# The batch decoder's fuzz target needs the collector's object, which the generic fuzz rules do
# not link: these two rules take precedence over them for fuzz_ompt.
$(B)/fuzz/replay-ompt: tests/fuzz/replay.c tests/fuzz/fuzz_ompt.c $(B)/collector/ompt_reader.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Icollector -o $@ $^ $(LDLIBS_ALL)
build-fuzz/fuzz-ompt: tests/fuzz/fuzz_ompt.c collector/ompt_reader.c collector/ompt_reader.h collector/ompt/pmompt.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Icollector -o $@ $< collector/ompt_reader.c
tests: $(OMPT_LIB) $(B)/ompt/ompt_dump

# `make fuzz FUZZ_SECONDS=N`: builds each target with libFuzzer (clang) and runs it for N seconds,
# seeded from tests/fuzz/corpus/<name>/; new inputs go to build-fuzz/corpus-<name>/, crashes to
# build-fuzz/crash-<name>-*. The last line of build-fuzz/<name>.log says how many runs were made.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_CFLAGS = -std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all $(PKG_CFLAGS) -Iformats -Ianalyzer
build-fuzz/fuzz-%: tests/fuzz/fuzz_%.c $(FORMATS_SRC) $(ANALYZER_SRC) $(wildcard formats/*.h analyzer/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FORMATS_SRC) $(ANALYZER_SRC) $(LDLIBS_ALL)

fuzz: deps $(FUZZ_NAMES:%=build-fuzz/fuzz-%)
	@for t in $(FUZZ_NAMES); do \
		mkdir -p build-fuzz/corpus-$$t; \
		echo "fuzz-$$t: $(FUZZ_SECONDS) s, log build-fuzz/$$t.log"; \
		build-fuzz/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix=build-fuzz/crash-$$t- \
			build-fuzz/corpus-$$t tests/fuzz/corpus/$$t >build-fuzz/$$t.log 2>&1; \
		rc=$$?; grep -E '^Done|stat::number_of_executed_units|ERROR' build-fuzz/$$t.log; \
		[ $$rc -eq 0 ] || { echo "fuzz-$$t: failed (exit $$rc), see build-fuzz/$$t.log"; exit 1; }; \
	done

# The one test command (README, .ci/run): installs packages, builds, runs every test, then the
# same suite under AddressSanitizer+UndefinedBehaviorSanitizer. Last line: "N passed, N failed".
check: deps
	@$(MAKE) --no-print-directory tests
	@$(MAKE) --no-print-directory SANITIZE=address,undefined tests
	@sh tests/run-tests.sh $(B) build-address-undefined

check-fast: deps tests
	@sh tests/run-tests.sh $(B)

demo: deps
	@$(MAKE) --no-print-directory tests
	@sh tests/demo.sh $(B)

bench: all deps
	@$(MAKE) --no-print-directory tests
	@sh tests/bench/run.sh $(B)

install: all
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(mandir)/man1 $(DESTDIR)$(mandir)/man5
	install -m 755 bin/pmcollect bin/pmanalyze $(DESTDIR)$(bindir)/
	install -m 644 docs/pmcollect.1 docs/pmanalyze.1 $(DESTDIR)$(mandir)/man1/
	install -m 644 docs/pmtrace.5 $(DESTDIR)$(mandir)/man5/

clean:
	rm -rf build build-* bin
