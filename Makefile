# SPDX-License-Identifier: MIT
# pmtools: pmcollect (record) and pmanalyze (model). `make`, `make check`, `make demo`, `make bench`, `make fuzz`.

# `make` alone builds the tools (a rule in an included file must not become the default goal)
.DEFAULT_GOAL := all
prefix ?= /usr/local
bindir ?= $(prefix)/bin
mandir ?= $(prefix)/share/man
DESTDIR ?=

CC ?= cc
AR ?= ar
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wundef \
	-Wvla -Wwrite-strings -Wcast-qual -Wpointer-arith
ifeq ($(CI),true)
WARN += -Werror
endif
SANITIZE ?=
ifneq ($(SANITIZE),)
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

# Libraries of each layer, as pkg-config-name:debian-package (.ci/deps.sh installs the packages).
# Each layer compiles with its own headers only and each tool links its own list.
FORMATS_PKGS := libzstd:libzstd-dev zlib:zlib1g-dev
COMMON_PKGS := hwloc:libhwloc-dev
COLLECTOR_PKGS := libcjson:libcjson-dev hwloc:libhwloc-dev numa:libnuma-dev papi:libpapi-dev \
	libtracefs:libtracefs-dev libtraceevent:libtraceevent-dev zlib:zlib1g-dev
ANALYZER_PKGS := libcjson:libcjson-dev hwloc:libhwloc-dev gsl:libgsl-dev xgboost:libxgboost-dev libdw:libdw-dev \
	cairo:libcairo2-dev fontconfig:libfontconfig-dev
TEST_PKGS := cmocka:libcmocka-dev
pc = $(sort $(foreach p,$(1),$(firstword $(subst :, ,$(p)))))
# := so pkg-config runs once per make, not once per compile; empty when a package is missing, and
# then the pkgcheck target stops the build with the package names before anything compiles.
FORMATS_CFLAGS := $(shell pkg-config --cflags $(call pc,$(FORMATS_PKGS)) 2>/dev/null)
COMMON_CFLAGS := $(shell pkg-config --cflags $(call pc,$(COMMON_PKGS)) 2>/dev/null)
COLLECTOR_CFLAGS := $(shell pkg-config --cflags $(call pc,$(COLLECTOR_PKGS) $(FORMATS_PKGS)) 2>/dev/null)
ANALYZER_CFLAGS := $(shell pkg-config --cflags $(call pc,$(ANALYZER_PKGS) $(FORMATS_PKGS)) 2>/dev/null)
ALL_PKG_CFLAGS := $(shell pkg-config --cflags $(call pc,$(COLLECTOR_PKGS) $(ANALYZER_PKGS) $(FORMATS_PKGS)) 2>/dev/null)
PMCOLLECT_LIBS := $(shell pkg-config --libs $(call pc,$(COLLECTOR_PKGS) $(FORMATS_PKGS) $(COMMON_PKGS)) 2>/dev/null) -lm
PMANALYZE_LIBS := $(shell pkg-config --libs $(call pc,$(ANALYZER_PKGS) $(FORMATS_PKGS) $(COMMON_PKGS)) 2>/dev/null) -lm
TEST_LIBS := $(shell pkg-config --libs $(call pc,$(COLLECTOR_PKGS) $(ANALYZER_PKGS) $(FORMATS_PKGS) $(COMMON_PKGS) $(TEST_PKGS)) 2>/dev/null) -lm -lpthread

CFLAGS ?= -O2 -g
BASE_CFLAGS = -std=gnu11 -D_GNU_SOURCE $(WARN) $(SANFLAGS) -Iformats -Icommon
# -MMD -MP: each object records the headers it included (build/.../x.d), so a header change
# rebuilds exactly its users.
DEPFLAGS = -MMD -MP
LAYER_CFLAGS = $(ALL_PKG_CFLAGS)
ALL_CFLAGS = $(BASE_CFLAGS) $(LAYER_CFLAGS) $(CFLAGS)

# Build products go to build/ (or build-<sanitizer>/) and bin/.
comma := ,
B := build$(if $(SANITIZE),-$(subst $(comma),-,$(SANITIZE)))
BIN := $(if $(SANITIZE),$(B)/bin,bin)

FORMATS_SRC := $(wildcard formats/*.c)
COMMON_SRC := $(wildcard common/*.c)
# The collector's layers are folders too (collector/README.md says which may include which); its
# files name a header of another folder by its path from collector/ ("sources/counters.h"). cli/
# (the front end), ompt/ and mpi/ (libraries preloaded into the traced program) are not in the archive.
COLLECTOR_DIRS := collector/sources collector/omp collector/interfere collector/session
COLLECTOR_SRC := $(wildcard $(COLLECTOR_DIRS:%=%/*.c))
# Tests, fuzz targets and bench drivers include the collector's headers by their bare names.
COLLECTOR_INC := -Icollector $(COLLECTOR_DIRS:%=-I%)
# pmcollect's front end (options, main(), the files that print): linked into the tool only
COLLECTOR_CLI_SRC := $(wildcard collector/cli/*.c)
# The analyzer's layers are folders (analyzer/README.md says which may include which); its own
# files name a header of another folder by its path from analyzer/ ("model/estimate.h").
# pmanalyze's front end below main.c (analyzer/cli/: it prints and exits): linked into the tool only
ANALYZER_CLI_SRC := $(wildcard analyzer/cli/*.c)
ANALYZER_DIRS := $(sort $(patsubst %/,%,$(dir $(wildcard analyzer/*/*.c analyzer/*/*.h))))
ANALYZER_SRC := $(filter-out analyzer/main.c $(ANALYZER_CLI_SRC),$(wildcard analyzer/*.c $(ANALYZER_DIRS:%=%/*.c)))
# Tests and fuzz targets include the analyzer's headers by their bare names, from any folder.
ANALYZER_INC := -Ianalyzer $(ANALYZER_DIRS:%=-I%)

# One static archive per layer. Archives are linked highest layer first and the linker takes
# each in one pass, so a lower layer calling up (formats into the analyzer, common into formats)
# fails to link: common < formats < collector, analyzer.
LIBPMT = $(B)/libpmt.a
LIBPMCOMMON = $(B)/libpmcommon.a
LIBPMCOLLECT = $(B)/libpmcollect.a
LIBPMANALYZE = $(B)/libpmanalyze.a
$(LIBPMT): $(FORMATS_SRC:%.c=$(B)/%.o)
$(LIBPMCOMMON): $(COMMON_SRC:%.c=$(B)/%.o)
$(LIBPMCOLLECT): $(COLLECTOR_SRC:%.c=$(B)/%.o)
$(LIBPMANALYZE): $(ANALYZER_SRC:%.c=$(B)/%.o)

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
WORKLOAD_SRC := $(wildcard tests/workloads/*.c)
WORKLOAD_BIN := $(WORKLOAD_SRC:tests/workloads/%.c=$(B)/workloads/%)

.PHONY: all deps pkgcheck pkgcheck-omp pkgcheck-tests check check-fast check-accuracy check-sanitize demo bench fuzz fuzz-run \
	install clean tests
all: $(BIN)/pmcollect $(BIN)/pmanalyze $(B)/lib/libpmompt.so

deps:
	@sh .ci/deps.sh

# Stops with the missing Debian packages and `make deps` instead of a missing-header error.
pkgcheck:
	@sh .ci/pkgcheck.sh $(firstword $(CC)) $(sort $(FORMATS_PKGS) $(COMMON_PKGS) $(COLLECTOR_PKGS) $(ANALYZER_PKGS))
pkgcheck-tests: pkgcheck
	@sh .ci/pkgcheck.sh $(firstword $(CC)) $(TEST_PKGS)

$(B)/formats/%.o: LAYER_CFLAGS = $(FORMATS_CFLAGS)
$(B)/common/%.o: LAYER_CFLAGS = $(COMMON_CFLAGS)
$(B)/collector/%.o: LAYER_CFLAGS = $(COLLECTOR_CFLAGS) -Icollector
$(B)/analyzer/%.o: LAYER_CFLAGS = $(ANALYZER_CFLAGS) -Ianalyzer
$(B)/%.o: %.c | pkgcheck
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

%.a:
	@rm -f $@
	$(AR) rcs $@ $^

$(BIN)/pmcollect: $(COLLECTOR_CLI_SRC:%.c=$(B)/%.o) $(LIBPMCOLLECT) $(LIBPMT) $(LIBPMCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PMCOLLECT_LIBS)

$(BIN)/pmanalyze: $(B)/analyzer/main.o $(ANALYZER_CLI_SRC:%.c=$(B)/%.o) $(LIBPMANALYZE) $(LIBPMT) $(LIBPMCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(PMANALYZE_LIBS)

# Unit tests (cmocka harness) link the layers' archives: each test pulls in only the objects it
# uses. The test's own .d goes to $(B)/dep/.
TEST_ARCHIVES = $(LIBPMCOLLECT) $(LIBPMANALYZE) $(LIBPMT) $(LIBPMCOMMON)
$(B)/tests/%: tests/unit/%.c $(TEST_ARCHIVES) | pkgcheck-tests
	@mkdir -p $(dir $@) $(B)/dep
	$(CC) $(ALL_CFLAGS) $(COLLECTOR_INC) $(ANALYZER_INC) -MMD -MP -MF $(B)/dep/$*.d -MT $@ -o $@ $(filter %.c %.a,$^) $(TEST_LIBS) -lcmocka

# Workloads are plain programs: no project code, OpenMP where the name says so. They are built
# without the sanitizers in every build: they produce the ground truth (their own CPU clocks), and
# ASan's runtime would add its own work to what they measure (issue 11); the tools are what the
# sanitizer pass checks. Header dependencies (workload.h) come from -MMD.
$(B)/workloads/%: tests/workloads/%.c | pkgcheck
	@mkdir -p $(dir $@) $(B)/dep
	$(CC) -std=gnu11 -O2 -g $(WARN) $(if $(findstring omp,$*),-fopenmp) -MMD -MP \
		-MF $(B)/dep/workload-$*.d -MT $@ -o $@ $< -lpthread -lm

# The MPI + OpenMP workload of t3700 (issue 18), built with Open MPI's mpicc where it is installed
# (openmpi-bin, libopenmpi-dev: .ci/deps.sh installs them); without it t3700 skips the MPI job.
MPICC ?= mpicc
HAVE_MPICC := $(shell command -v $(MPICC) 2>/dev/null)
$(B)/workloads/hybrid_workload: tests/workloads/mpi/hybrid_workload.c tests/workloads/workload.h
	@mkdir -p $(dir $@)
	$(MPICC) -std=gnu11 -O2 -g $(WARN) -fopenmp -o $@ $< -lm
tests: $(if $(HAVE_MPICC),$(B)/workloads/hybrid_workload $(B)/workloads/mpi_imbalance)
# Issue 31's job of known unequal work meeting in busy-polling MPI_Barrier and MPI_Allreduce.
$(B)/workloads/mpi_imbalance: tests/workloads/mpi/mpi_imbalance.c tests/workloads/workload.h
	@mkdir -p $(dir $@)
	$(MPICC) -std=gnu11 -O2 -g $(WARN) -o $@ $< -lm

# Fuzz targets (tests/fuzz/fuzz_*.c) linked with the plain replay main instead of libFuzzer, so
# the corpus in tests/fuzz/corpus/<name>/ is replayed by every build of `make check` (t2100).
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
REPLAY_BIN := $(FUZZ_NAMES:%=$(B)/fuzz/replay-%)
FUZZ_ARCHIVES = $(LIBPMANALYZE) $(LIBPMT) $(LIBPMCOMMON)
$(B)/fuzz/replay-%: tests/fuzz/replay.c tests/fuzz/fuzz_%.c $(FUZZ_ARCHIVES) | pkgcheck
	@mkdir -p $(dir $@) $(B)/dep
	$(CC) $(ALL_CFLAGS) $(ANALYZER_INC) -MMD -MP -MF $(B)/dep/replay-$*.d -MT $@ -o $@ $(filter %.c %.a,$^) $(PMANALYZE_LIBS)

tests: all $(UNIT_BIN) $(WORKLOAD_BIN) $(REPLAY_BIN) $(B)/bench/gentrace $(B)/bench/gentoep \
	$(B)/bench/genranks

# The synthetic trace generator: make bench's large traces, and with a seed the family of traces
# of the invariants' property test (t2700, issue 19).
$(B)/bench/gentrace: tests/bench/gentrace.c $(LIBPMT) | pkgcheck
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $(filter %.c %.a,$^) $(PMANALYZE_LIBS)

# The rank traces of a synthetic MPI job: make bench's merge, and the property test's job reports
# (t2700, issue 19).
$(B)/bench/genranks: tests/bench/genranks.c $(LIBPMT) | pkgcheck
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $(filter %.c %.a,$^) $(PMANALYZE_LIBS)

# The synthetic TOEP training set of known answer (t3510, issue 16).
$(B)/bench/gentoep: tests/bench/gentoep.c $(LIBPMT) | pkgcheck
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $(filter %.c %.a,$^) $(PMANALYZE_LIBS)

# ---- OpenMP regions (issue 17, docs/regions.md) ----
# libpmompt.so, the OMPT tool loaded into the traced program: its source is collector/ompt/ so the
# collector's COLLECTOR_DIRS wildcard does not link it; built with clang (omp-tools.h comes with
# clang/libomp, gcc has none), position-independent, only ompt_start_tool exported, never
# sanitized (it runs inside an uninstrumented program). Linked with PAPI (libpapi-dev, already the
# collector's) for the per-thread counters of PMT_OMPT_EVENTS; PAPI is initialized only then.
OMPT_CC ?= clang
OMPT_LIB := $(B)/lib/libpmompt.so
$(OMPT_LIB): collector/ompt/pmompt.c collector/ompt/pmompt.h | pkgcheck pkgcheck-omp
	@mkdir -p $(dir $@)
	$(OMPT_CC) -std=gnu11 -D_GNU_SOURCE $(WARN) -O2 -g -fPIC -shared -fvisibility=hidden -o $@ $< -lpapi
# clang and LLVM's omp-tools.h (Debian clang, libomp-dev): checked before the first compile, like
# pkgcheck, so a machine without them gets the install line rather than a compiler error.
pkgcheck-omp:
	@if ! command -v $(OMPT_CC) >/dev/null 2>&1 || \
	    ! echo '#include <omp-tools.h>' | $(OMPT_CC) -fopenmp=libomp -E -x c - >/dev/null 2>&1; then \
		echo "pmtools: cannot build the OMPT tool: missing $(OMPT_CC) or omp-tools.h (Debian packages: clang libomp-dev)" >&2; \
		echo "pmtools: run 'make deps' as root, or: apt-get install -y clang libomp-dev" >&2; exit 1; fi
# omp_regions needs LLVM's libomp (OMPT): clang -fopenmp=libomp instead of the gcc rule above.
$(B)/workloads/omp_regions: tests/workloads/omp_regions.c | pkgcheck-omp
	@mkdir -p $(dir $@)
	$(OMPT_CC) -std=gnu11 -O2 -g $(WARN) -fopenmp=libomp -o $@ $< -lm
# The same workload built by GCC (libgomp's GOMP ABI, no OMPT): t3410 records it with
# `pmcollect --omp-runtime llvm`, which preloads libomp, and checks its regions' names and A.
OMP_GCC ?= gcc
$(B)/workloads/omp_regions_gcc: tests/workloads/omp_regions.c | pkgcheck
	@mkdir -p $(dir $@)
	$(OMP_GCC) -std=gnu11 -O2 -g $(WARN) -fopenmp -o $@ $< -lm
tests: $(B)/workloads/omp_regions_gcc
# omp_sde defines its own PAPI software-defined event (libsde, from libpapi-dev): per-thread
# counter deltas of known value for the tool's PAPI path on machines without hardware counters.
$(B)/workloads/omp_sde: tests/workloads/omp_sde.c | pkgcheck pkgcheck-omp
	@mkdir -p $(dir $@)
	$(OMPT_CC) -std=gnu11 -O2 -g $(WARN) -fopenmp=libomp -o $@ $< -lsde
# The test reader: runs a program with the tool and prints its symbolized region records.
$(B)/ompt/ompt_dump: tests/ompt/ompt_dump.c $(LIBPMCOLLECT) $(LIBPMANALYZE) $(LIBPMT) $(LIBPMCOMMON) | pkgcheck
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_PKG_CFLAGS) $(COLLECTOR_INC) $(ANALYZER_INC) -o $@ $(filter %.c %.a,$^) $(TEST_LIBS)
# The batch decoder's fuzz target needs the collector's object, which the generic fuzz rules do
# not link: these two rules take precedence over them for fuzz_ompt.
$(B)/fuzz/replay-ompt: tests/fuzz/replay.c tests/fuzz/fuzz_ompt.c $(LIBPMCOLLECT) $(LIBPMT) $(LIBPMCOMMON) | pkgcheck
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(COLLECTOR_INC) -o $@ $(filter %.c %.a,$^) $(PMCOLLECT_LIBS)
build-fuzz/fuzz-ompt: tests/fuzz/fuzz_ompt.c collector/omp/ompt_reader.c collector/omp/ompt_reader.h collector/ompt/pmompt.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(COLLECTOR_INC) -o $@ $< collector/omp/ompt_reader.c
tests: $(OMPT_LIB) $(B)/ompt/ompt_dump

# ---- MPI time per rank (issue 31, docs/mpi.md) ----
# libpmmpi.so, the PMPI preload library of `pmcollect --mpi`: built with mpicc against the MPI the
# machine has (Debian libopenmpi-dev), never sanitized (it runs inside an uninstrumented program),
# only the MPI_ symbols exported. Without mpicc it is not built and pmcollect --mpi says so.
MPI_LIB := $(B)/lib/libpmmpi.so
$(MPI_LIB): collector/mpi/pmmpi.c collector/mpi/pmmpi.h
	@mkdir -p $(dir $@)
	$(MPICC) -std=gnu11 -D_GNU_SOURCE $(WARN) -O2 -g -fPIC -shared -fvisibility=hidden -o $@ $<
ifneq ($(HAVE_MPICC),)
all: $(MPI_LIB)
tests: $(MPI_LIB)
endif

# `make fuzz FUZZ_SECONDS=N`: builds each target with libFuzzer (clang) and runs it for N seconds,
# seeded from tests/fuzz/corpus/<name>/; new inputs go to build-fuzz/corpus-<name>/, crashes to
# build-fuzz/crash-<name>-*. The last line of build-fuzz/<name>.log says how many runs were made.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
# The layers are built again with clang for libFuzzer (coverage and sanitizers in every object),
# into build-fuzz/ with the same archives.
FZ := build-fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -std=gnu11 -D_GNU_SOURCE -g -O1 $(FUZZ_SAN) $(ALL_PKG_CFLAGS) -Iformats -Icommon $(ANALYZER_INC)
$(FZ)/obj/%.o: %.c | pkgcheck
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c -o $@ $<
$(FZ)/libpmt.a: $(FORMATS_SRC:%.c=$(FZ)/obj/%.o)
$(FZ)/libpmcommon.a: $(COMMON_SRC:%.c=$(FZ)/obj/%.o)
$(FZ)/libpmanalyze.a: $(ANALYZER_SRC:%.c=$(FZ)/obj/%.o)
$(FZ)/fuzz-%: tests/fuzz/fuzz_%.c $(FZ)/libpmanalyze.a $(FZ)/libpmt.a $(FZ)/libpmcommon.a
	@mkdir -p $(dir $@) $(FZ)/dep
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -MF $(FZ)/dep/fuzz-$*.d -MT $@ \
		-o $@ $(filter %.c %.a,$^) $(PMANALYZE_LIBS)

# deps first, then a new make: its pkg-config results (:=) see the packages deps installed.
fuzz: deps
	@$(MAKE) --no-print-directory fuzz-run

fuzz-run: $(FUZZ_NAMES:%=build-fuzz/fuzz-%)
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
# Both builds compile with four jobs, and their tests run four at a time from one queue
# (tests/run-tests.sh; PMT_JOBS=1 runs them one after the other): on a host that other jobs keep
# busy, the share of the CPUs a build gets grows with the processes it runs.
check: deps
	@$(MAKE) --no-print-directory -j4 tests
	@$(MAKE) --no-print-directory -j4 SANITIZE=address,undefined tests
	@sh tests/run-tests.sh $(B) build-address-undefined

check-fast: deps
	@$(MAKE) --no-print-directory tests
	@sh tests/run-tests.sh $(B)

# The accuracy figures that need a quiet machine (PMT_ACCURACY=strict in tests/cli/lib.sh): the
# normal build's whole suite, with the sampled estimator at 3% of the ground truth and a
# compute-bound program's |omega(2)| < 0.15 (docs/model.md, "Accuracy"). make bench runs it too.
check-accuracy: deps
	@$(MAKE) --no-print-directory tests
	@PMT_ACCURACY=strict sh tests/run-tests.sh $(B)

demo: deps
	@$(MAKE) --no-print-directory tests
	@sh tests/demo.sh $(B)

bench: deps
	@$(MAKE) --no-print-directory tests
	@PMT_ACCURACY=strict sh tests/run-tests.sh $(B)
	@sh tests/bench/run.sh $(B)

install: all
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(mandir)/man1 $(DESTDIR)$(mandir)/man5
	install -m 755 bin/pmcollect bin/pmanalyze $(DESTDIR)$(bindir)/
	install -d $(DESTDIR)$(prefix)/lib/pmtools
	install -m 755 $(OMPT_LIB) $(DESTDIR)$(prefix)/lib/pmtools/
	$(if $(HAVE_MPICC),install -m 755 $(MPI_LIB) $(DESTDIR)$(prefix)/lib/pmtools/)
	install -m 644 docs/pmcollect.1 docs/pmanalyze.1 $(DESTDIR)$(mandir)/man1/
	install -m 644 docs/pmtrace.5 $(DESTDIR)$(mandir)/man5/

clean:
	rm -rf build build-* bin

# Header dependencies recorded by -MMD (absent before the first build), in every sub-folder.
-include $(wildcard $(B)/*/*.d $(B)/*/*/*.d $(B)/*/*/*/*.d $(FZ)/obj/*/*.d $(FZ)/obj/*/*/*.d $(FZ)/obj/*/*/*/*.d $(FZ)/dep/*.d)

# Active interference (collector/interfere/interfere.c): BWThr's identity() must stay opaque to the compiler
# (Casas & Bronevetsky Fig. 2), so its file is never part of link-time optimisation.
$(B)/collector/interfere/identity.o: ALL_CFLAGS += -fno-lto
# The calibration driver of docs/interference.md (BW1, B, capacity left): `make interfere-cal`.
$(B)/bench/interfere_cal: tests/bench/interfere_cal.c $(B)/libpmcollect.a $(B)/libpmt.a $(B)/libpmcommon.a | pkgcheck
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(COLLECTOR_INC) -o $@ $(filter %.c %.a,$^) $(PMCOLLECT_LIBS)
.PHONY: interfere-cal
interfere-cal: $(B)/bench/interfere_cal
