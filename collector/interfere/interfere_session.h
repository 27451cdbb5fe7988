/* SPDX-License-Identifier: MIT */
/* interfere_session.h: what `pmcollect --interfere` holds across its runs (Casas & Bronevetsky §5):
 * the kind of interferer, their CPUs, the machine's calibration, the interferers running beside
 * the current run, and the keys that tag each run's RUN_BEGIN and RUN_END (formats/FORMAT.md). */
#ifndef PMC_INTERFERE_SESSION_H
#define PMC_INTERFERE_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "interfere.h"
#include "interfere_cal.h"
#include "sources/cpuset.h"

struct cJSON;

struct pmc_isess {
	enum pmc_interferer_kind kind;   /* PMC_CSTHR (cache) or PMC_BWTHR (bandwidth) */
	int cpus[PMC_CAL_MAX_K];         /* interferer j runs on cpus[j] */
	size_t ncpus;
	char cpus_text[256];             /* cpus as a cpulist */
	size_t csthr_bytes;              /* CSThr buffer, 0 = PMC_CSTHR_DEFAULT_BYTES */
	struct pmc_interference_cal cal; /* the machine's calibration (machine file or just measured) */
	/* the current run's interferers */
	struct pmc_interferer *ts[PMC_CAL_MAX_K];
	uint32_t k;
	struct pmc_interferer *fill[PMC_CAL_MAX_K]; /* fillers on cpus[k..ncpus-1] (PMC_FILLER) */
	uint32_t nfill;
	struct pmc_interferer_stats begin[PMC_CAL_MAX_K]; /* their counts when RUN_BEGIN was written */
};

/* "cache" -> PMC_CSTHR, "bandwidth" -> PMC_BWTHR. Returns 0 or -1 for any other word. */
int pmc_interfere_kind_parse(const char *word, enum pmc_interferer_kind *kind);

/* "cache" or "bandwidth" (the --interfere word and RUN_BEGIN "interference.kind"). */
const char *pmc_interfere_kind_name(enum pmc_interferer_kind kind);

/* The machine file's default path, in the manner of XDG caches (hwloc and LIKWID keep a machine
 * description per host too): $PMTOOLS_INTERFERENCE_FILE when set and not empty, else
 * $XDG_CACHE_HOME/pmtools/interference-<hostname>.json, else
 * $HOME/.cache/pmtools/interference-<hostname>.json. Returns 0, or -1 with why (no HOME, too long). */
int pmc_interference_file_default(char *buf, size_t size, char *why, size_t whysize);

/* Creates the directories of path's parent that are missing (mode 0755), like mkdir -p.
 * Returns 0 or -1 with why. */
int pmc_mkdir_parents(const char *path, char *why, size_t whysize);

/* Starts k interferers of s->kind on s->cpus[0..k-1] (k <= s->ncpus) for the next run. Returns 0
 * or -1 with why (nothing left running). */
int pmc_isess_start(struct pmc_isess *s, uint32_t k, char *why, size_t whysize);

/* Stops the current run's interferers (none is fine). */
void pmc_isess_stop(struct pmc_isess *s);

/* pmc_run_config.annotate for a session (arg = struct pmc_isess *): adds to RUN_BEGIN
 *   "interference": {"kind", "k", "thread": "CSThr|BWThr", "cpus", "fillers" (the placebo
 *                    threads on the other interferer CPUs), "csthr_bytes" (cache),
 *                    "left_bytes" (cache: C(k) of the calibration, null when not valid) or
 *                    "left_bytes_per_s" (bandwidth: B - k·BW1, Casas & Bronevetsky §5.2)}
 * and to RUN_END "interferers": {"k", "bytes_per_s" (their eq. 1 traffic over the run, summed),
 * "cpu_ns" (their CPU time over the run, summed; never part of the program's), "accesses"}. */
void pmc_isess_annotate(void *arg, struct cJSON *record, int end);

/* The CSThr buffer (is->csthr_bytes) for the first interferer CPU is->cpus[0] on topo: l2x times its
 * L2 when l2x > 0 (--csthr-l2), else the paper's 4 MB (Casas & Bronevetsky §5.1), or 2x the L2
 * where 4 MB is not larger than the L2 (a CSThr within its own core's cache takes none of the shared
 * one, §2.2), or 4 MB where hwloc shows no L2. Returns 0, or -1 with why when l2x > 0 and hwloc
 * shows no L2 above that CPU. */
int pmc_isess_csthr_size(struct pmc_isess *is, hwloc_topology_t topo, unsigned l2x, char *why,
			 size_t whysize);

/* Sets is->ncpus to n (at most PMC_CAL_MAX_K) and is->cpus_text to is->cpus[0..n-1] as a cpulist. */
void pmc_isess_set_ncpus(struct pmc_isess *is, size_t n);

/* Reads the machine file `file` into is->cal for an --interfere run (pmc_cal_read, checked against
 * topo's signature), refusing one without B, BW1 or a capacity curve. For CSThrs (kind) the buffer
 * is->csthr_bytes becomes the file's, as its capacity curve is per that size, unless l2x
 * (--csthr-l2) asked for another: that is an error. Returns 0, or -1 with a one-line reason in
 * why that says how to recalibrate. */
int pmc_isess_load_cal(struct pmc_isess *is, hwloc_topology_t topo, const char *file,
		       enum pmc_interferer_kind kind, unsigned l2x, char *why, size_t whysize);

/* The interferer counts of --levels (text; NULL = 0 to is->ncpus) into levels[0..*n-1]: sorted, 0
 * first, at least two, none above is->ncpus, at most max; for CSThrs with a calibration read from
 * cal_file (NULL: none) none at or past its capacity curve's end (Casas & Bronevetsky §5.1: k = 0..K). Returns 0, or -1
 * with a one-line reason in why and *n = 0. */
int pmc_isess_levels(const struct pmc_isess *is, const char *text, enum pmc_interferer_kind kind,
		     const char *cal_file, uint32_t *levels, size_t max, size_t *n, char *why, size_t whysize);

/* --interfere / --calibrate-interference in one session: the study (interferers' CPUs, levels,
 * the machine's calibration), the program's CPUs beside the interferers and the machine file. */
struct pmc_interfere_state {
	struct pmc_cpus interfere_prog; /* the program's CPUs beside the interferers */
	int have_cal;               /* isess.cal holds the machine's calibration */
	struct pmc_isess isess;
	char interference_file[4096]; /* the machine file (a path) */
};

#endif
