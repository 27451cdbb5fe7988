/* SPDX-License-Identifier: MIT */
/* counters.c: hardware counters of the traced process tree through PAPI's perf_event component:
 * one event set, inheritance on, attached to the root process, multiplexing off. */
#include "counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <papi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pmt.h"
#include "pm_cli.h"
#include "pm_sysfs.h"
#include "pm_util.h"

struct pmc_counters {
	int eventset;                     /* PAPI event set handle, PAPI_NULL when none */
	uint32_t n;                       /* events in the set, in the order added */
	char *names[PMT_MAX_COUNTERS];    /* concrete name of each event as PAPI accepted it */
	long long raw[PMT_MAX_COUNTERS];  /* PAPI_read/PAPI_stop buffer */
	int attached;                     /* PAPI_attach succeeded */
	int running;                      /* PAPI_start succeeded, not stopped yet */
	int thread_local;                 /* pmc_counters_open_thread_llc: counts its thread only */
};

/* A concrete event to try for a logical counter; vendor 0 means any CPU. */
struct pmc_candidate {
	int vendor;        /* PAPI_VENDOR_INTEL, PAPI_VENDOR_AMD or 0 */
	const char *name;  /* PAPI preset, libpfm4 native name (with unit masks), or perf:: generic */
};

/* A logical counter of the default set: the candidates are tried in order and the first one
 * PAPI can add is used; its concrete name is what the trace records. */
struct pmc_logical {
	const char *what;
	const struct pmc_candidate *cand;
	size_t ncand;
};

/* Cycles: PAPI_TOT_CYC exists on every CPU PAPI knows (papi_events.csv line 2: "Every CPU
 * automatically has PAPI_TOT_CYC and PAPI_TOT_INS"); the perf:: generic event is the kernel's own
 * mapping, for CPUs too new for the installed libpfm4 tables. */
static const struct pmc_candidate cycles_cand[] = {
	{0, "PAPI_TOT_CYC"},
	{0, "perf::PERF_COUNT_HW_CPU_CYCLES"},
};

static const struct pmc_candidate instr_cand[] = {
	{0, "PAPI_TOT_INS"},
	{0, "perf::PERF_COUNT_HW_INSTRUCTIONS"},
};

/* Stall cycles. PAPI 7.0's papi_events.csv maps PAPI_RES_STL to RESOURCE_STALLS:ANY on Intel
 * SNB..SKX but defines it for no AMD Zen (sections amd64_fam17h_zen1/zen2, amd64_fam19h_zen3).
 * Intel Skylake and later: CYCLE_ACTIVITY:STALLS_TOTAL (cycles with no uop executed, libpfm4
 * intel_skl/icl/spr tables). AMD Zen2/Zen3/Zen4: DISPATCH_RESOURCE_STALL_CYCLES_1 (PMCx0AE,
 * "cycles where a dispatch group is valid but does not get dispatched due to a token stall"),
 * with the unit masks that exist under these names in all three libpfm4 tables
 * (lib/events/amd64_events_fam17h_zen2.h, amd64_events_fam19h_zen3.h, amd64_events_fam19h_zen4.h):
 * back-end resources full (register files, load/store queues, taken-branch buffer). It is a
 * back-end stall count; ls_not_halted_cyc/CYCLES_NOT_IN_HALT is not a stall event. The perf::
 * generic stalled-cycles-backend is last: the kernel maps it on only a few CPUs (Zen1 among them). */
static const struct pmc_candidate stall_cand[] = {
	{0, "PAPI_RES_STL"},
	{PAPI_VENDOR_INTEL, "CYCLE_ACTIVITY:STALLS_TOTAL"},
	{PAPI_VENDOR_INTEL, "RESOURCE_STALLS:ANY"},
	{PAPI_VENDOR_AMD, "DISPATCH_RESOURCE_STALL_CYCLES_1:INT_PHY_REG_FILE_RSRC_STALL:LOAD_QUEUE_RSRC_STALL"
			  ":STORE_QUEUE_RSRC_STALL:TAKEN_BRANCH_BUFFER_RSRC_STALL:FP_REG_FILE_RSRC_STALL"},
	{0, "perf::PERF_COUNT_HW_STALLED_CYCLES_BACKEND"},
};

/* Last-level cache misses. Intel: PAPI_L3_TCM is LLC_MISSES in papi_events.csv (hsw..icx); the
 * architectural LLC_MISSES and LONGEST_LAT_CACHE:MISS are the same event (0x2e/0x41) under the
 * names libpfm4 uses for the generic and the model tables. AMD Zen: the L3 belongs to the CCX and
 * its miss counters are in the L3 PMU (amd64_fam19h_zen3_l3), which counts per CCX, not per
 * process, so it cannot be attached to a pid. The per-core substitute is "demand data-cache fills
 * served from outside the core's CCX": from another CCX's cache or from DRAM/IO, local or remote
 * node (PMCx043). libpfm4 names it DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM on Zen3 (unit masks
 * EXT_CACHE_LCL, MEM_IO_LCL, EXT_CACHE_RMT, MEM_IO_RMT) and Zen4 (NEAR_CACHE_NEAR_FAR,
 * DRAM_IO_NEAR, FAR_CACHE_NEAR_FAR, DRAM_IO_FAR), and DATA_CACHE_REFILLS_FROM_SYSTEM on Zen2
 * (LS_MABRESP_LCL_DRAM, LS_MABRESP_RMT_CACHE, LS_MABRESP_RMT_DRAM; LS_MABRESP_LCL_CACHE is left
 * out because it includes hits in the core's own L3). Unknown unit masks make the Zen4 string
 * fail on Zen3 and so on, so trying them in order selects the one for this CPU. */
static const struct pmc_candidate llc_cand[] = {
	{0, "PAPI_L3_TCM"},
	{PAPI_VENDOR_INTEL, "LLC_MISSES"},
	{PAPI_VENDOR_INTEL, "LONGEST_LAT_CACHE:MISS"},
	{PAPI_VENDOR_AMD, "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:NEAR_CACHE_NEAR_FAR:DRAM_IO_NEAR"
			  ":FAR_CACHE_NEAR_FAR:DRAM_IO_FAR"},
	{PAPI_VENDOR_AMD, "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_LCL:MEM_IO_LCL:EXT_CACHE_RMT:MEM_IO_RMT"},
	{PAPI_VENDOR_AMD, "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_DRAM:LS_MABRESP_RMT_CACHE"
			  ":LS_MABRESP_RMT_DRAM"},
};


static const struct pmc_logical default_set[] = {
	{"cycles", cycles_cand, PM_ARRAY_SIZE(cycles_cand)},
	{"instructions", instr_cand, PM_ARRAY_SIZE(instr_cand)},
	{"stall cycles", stall_cand, PM_ARRAY_SIZE(stall_cand)},
	{"last-level cache misses", llc_cand, PM_ARRAY_SIZE(llc_cand)},
};

int pmc_counter_kind(const char *name)
{
	for (size_t k = 0; name && k < PM_ARRAY_SIZE(default_set); k++)
		for (size_t i = 0; i < default_set[k].ncand; i++)
			if (strcmp(default_set[k].cand[i].name, name) == 0)
				return (int)k;
	return -1;
}

/* Sets why to a formatted one-line reason (truncated to whysize). */

/* Initializes PAPI once per process. PAPI_shutdown is never called: it would tear down state a
 * later pmc_counters_open in the same process needs, and PAPI keeps only a small reachable
 * allocation. Not thread-safe: call from the collector's main thread. Returns 0 or -1. */
static int papi_ready(char *why, size_t whysize)
{
	int r;

	if (PAPI_is_initialized() != PAPI_NOT_INITED)
		return 0;
	r = PAPI_library_init(PAPI_VER_CURRENT);
	if (r == PAPI_VER_CURRENT)
		return 0;
	if (r > 0)
		pm_set_why(why, whysize, "PAPI library version %d.%d does not match the headers (%d.%d)",
			PAPI_VERSION_MAJOR(r), PAPI_VERSION_MINOR(r), PAPI_VERSION_MAJOR(PAPI_VER_CURRENT),
			PAPI_VERSION_MINOR(PAPI_VER_CURRENT));
	else
		pm_set_why(why, whysize, "PAPI_library_init failed: %s", PAPI_strerror(r));
	return PMT_E_IO;
}

/* Finds the perf_event component and checks it can count a process tree (enabled, has
 * counters, supports attach and inherit). Returns its index, or -1 with a reason. */
static int perf_event_component(char *why, size_t whysize)
{
	const PAPI_component_info_t *info;
	int cidx = PAPI_get_component_index("perf_event");

	if (cidx < 0) {
		pm_set_why(why, whysize, "PAPI has no perf_event component: %s", PAPI_strerror(cidx));
		return PMT_E_IO;
	}
	info = PAPI_get_component_info(cidx);
	if (info == NULL) {
		pm_set_why(why, whysize, "PAPI perf_event component: no component information");
		return PMT_E_IO;
	}
	if (info->disabled) {
		pm_set_why(why, whysize, "PAPI perf_event component disabled: %s",
			info->disabled_reason[0] != '\0' ? info->disabled_reason : PAPI_strerror(info->disabled));
		return PMT_E_IO;
	}
	if (info->num_cntrs <= 0) {
		pm_set_why(why, whysize, "PAPI perf_event component has no hardware counters");
		return PMT_E_IO;
	}
	if (!info->attach || !info->inherit) {
		pm_set_why(why, whysize, "PAPI perf_event component cannot %s",
			!info->attach ? "attach to another process" : "inherit counters to children");
		return PMT_E_IO;
	}
	return cidx;
}

int pmc_kernel_counts_hardware(char *why, size_t whysize)
{
	struct perf_event_attr attr;
	long fd;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0L);
	if (fd >= 0) {
		close((int)fd);
		return 0;
	}
	err = errno;
	if (err == EACCES || err == EPERM)
		return 0;
	pm_set_why(why, whysize, "PAPI perf_event component enabled, but the kernel counts no hardware event "
		"(perf_event_open of cycles: %s; no hardware PMU exposed, as in many VMs)", strerror(err));
	return PMT_E_IO;
}

/* Adds one event by name and records the name. Returns PAPI_OK or a PAPI error code. */
static int add_event(struct pmc_counters *c, const char *name)
{
	char *copy;
	int r;

	if (c->n >= PMT_MAX_COUNTERS)
		return PAPI_ECNFLCT;
	copy = strdup(name);
	if (copy == NULL)
		return PAPI_ENOMEM;
	r = PAPI_add_named_event(c->eventset, name);
	if (r != PAPI_OK) {
		free(copy);
		return r;
	}
	c->names[c->n++] = copy;
	return PAPI_OK;
}

/* Explains a failed add of an explicitly requested event. */
static void explain_add(char *why, size_t whysize, const char *name, int r)
{
	switch (r) {
	case PAPI_ENOEVNT:
	case PAPI_ENOTPRESET:
	case PAPI_ENOSUPP: /* PAPI 7 returns this for a name no active component knows */
		pm_set_why(why, whysize, "event '%s' not found on this CPU (see papi_avail, papi_native_avail)", name);
		break;
	case PAPI_ECNFLCT:
		pm_set_why(why, whysize, "event '%s' does not fit on the counters with the others (multiplexing is off)", name);
		break;
	case PAPI_EPERM:
		pm_set_why(why, whysize, "event '%s' not permitted: %s (see /proc/sys/kernel/perf_event_paranoid)",
			name, PAPI_strerror(r));
		break;
	default:
		pm_set_why(why, whysize, "cannot count event '%s': %s", name, PAPI_strerror(r));
		break;
	}
}

/* Adds the comma-separated events; every one must be added. Returns 0 or -1 with a reason. */
static int add_explicit(struct pmc_counters *c, const char *events, char *why, size_t whysize)
{
	char *list = strdup(events), *save = NULL, *tok;
	int ret = -1;

	if (list == NULL) {
		pm_set_why(why, whysize, "out of memory");
		return PMT_E_NOMEM;
	}
	for (tok = strtok_r(list, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		int r;

		while (*tok == ' ' || *tok == '\t')
			tok++;
		end = tok + strlen(tok);
		while (end > tok && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (*tok == '\0')
			continue;
		if (c->n >= PMT_MAX_COUNTERS) {
			pm_set_why(why, whysize, "too many events (at most %u)", PMT_MAX_COUNTERS);
			goto out;
		}
		r = add_event(c, tok);
		if (r != PAPI_OK) {
			explain_add(why, whysize, tok, r);
			goto out;
		}
	}
	if (c->n == 0) {
		pm_set_why(why, whysize, "no event names in '%s'", events);
		goto out;
	}
	ret = 0;
out:
	free(list);
	return ret;
}

/* Adds the default set: for each logical counter the first candidate PAPI accepts. The ones
 * with no usable candidate are dropped and named in why; fails only if none is left. */
static int add_defaults(struct pmc_counters *c, char *why, size_t whysize)
{
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
	int vendor = hw != NULL ? hw->vendor : PAPI_VENDOR_UNKNOWN;
	char dropped[256] = "";
	size_t i, j, used = 0;

	for (i = 0; i < PM_ARRAY_SIZE(default_set); i++) {
		const struct pmc_logical *l = &default_set[i];
		int added = 0;

		for (j = 0; j < l->ncand && !added; j++) {
			if (l->cand[j].vendor != 0 && l->cand[j].vendor != vendor)
				continue;
			added = add_event(c, l->cand[j].name) == PAPI_OK;
		}
		if (!added && used < sizeof(dropped)) {
			int w = snprintf(dropped + used, sizeof(dropped) - used, "%s%s", used ? ", " : "", l->what);

			used += w > 0 ? (size_t)w : 0;
		}
	}
	if (c->n == 0) {
		pm_set_why(why, whysize, "none of the default events can be counted (%s)", dropped);
		return PMT_E_IO;
	}
	if (dropped[0] != '\0')
		pm_set_why(why, whysize, "default events not available on this CPU: %s", dropped);
	return 0;
}

/* Stops, detaches and frees the event set. */
static void release(struct pmc_counters *c)
{
	uint32_t i;

	if (c->eventset != PAPI_NULL) {
		if (c->running)
			PAPI_stop(c->eventset, c->raw);
		if (c->attached)
			PAPI_detach(c->eventset);
		PAPI_cleanup_eventset(c->eventset);
		PAPI_destroy_eventset(&c->eventset);
		c->eventset = PAPI_NULL;
	}
	for (i = 0; i < c->n; i++)
		free(c->names[i]);
	c->n = 0;
	c->running = c->attached = 0;
}

/* A new pmc_counters with an empty PAPI event set bound to component cidx (options need a
 * component: bind the set to perf_event before any event is added). Returns 0 with *out;
 * PMT_E_NOMEM (*out NULL); or PMT_E_IO with why and *out to release by the caller. */
static int new_eventset(struct pmc_counters **out, int cidx, int thread_local, char *why, size_t whysize)
{
	struct pmc_counters *c = calloc(1, sizeof(*c));
	int r;

	*out = c;
	if (c == NULL) {
		pm_set_why(why, whysize, "out of memory");
		return PMT_E_NOMEM;
	}
	c->eventset = PAPI_NULL;
	c->thread_local = thread_local;
	r = PAPI_create_eventset(&c->eventset);
	if (r != PAPI_OK) {
		c->eventset = PAPI_NULL;
		pm_set_why(why, whysize, "PAPI_create_eventset failed: %s", PAPI_strerror(r));
		return PMT_E_IO;
	}
	r = PAPI_assign_eventset_component(c->eventset, cidx);
	if (r != PAPI_OK) {
		pm_set_why(why, whysize, "PAPI_assign_eventset_component failed: %s", PAPI_strerror(r));
		return PMT_E_IO;
	}
	return 0;
}

int pmc_counters_open(struct pmc_counters **out, const char *events, char *why, size_t whysize)
{
	struct pmc_counters *c = NULL;
	PAPI_option_t opt;
	int cidx, r, ret = -1;

	if (why != NULL && whysize > 0)
		why[0] = '\0';
	if (out == NULL) {
		pm_set_why(why, whysize, "invalid arguments");
		return PMT_E_INVAL;
	}
	*out = NULL;
	if (papi_ready(why, whysize) != 0)
		return PMT_E_IO;
	cidx = perf_event_component(why, whysize);
	if (cidx < 0 || pmc_kernel_counts_hardware(why, whysize) != 0)
		return PMT_E_IO;

	r = new_eventset(&c, cidx, 0, why, whysize);
	if (r == PMT_E_NOMEM)
		return r;
	if (r != 0)
		goto out;
	/* Inherit before attach and before events: the perf_event component checks the option with
	 * a trial perf_event_open and then opens every event with attr.inherit set, so threads and
	 * processes the traced program creates after the attach are counted into the same totals.
	 * (With inherit PAPI leaves PERF_FORMAT_GROUP off and reads each event's descriptor, whose
	 * value the kernel sums over the live and exited inheriting tasks.) */
	memset(&opt, 0, sizeof(opt));
	opt.inherit.eventset = c->eventset;
	opt.inherit.inherit = PAPI_INHERIT_ALL;
	r = PAPI_set_opt(PAPI_INHERIT, &opt);
	if (r != PAPI_OK) {
		pm_set_why(why, whysize, "PAPI_set_opt(PAPI_INHERIT) failed: %s", PAPI_strerror(r));
		goto out;
	}
	/* Multiplexing stays off (never PAPI_set_multiplex): every event has its own counter for
	 * the whole run, so the values are counts, not estimates. Events that do not fit fail to add. */
	if (events != NULL)
		r = add_explicit(c, events, why, whysize);
	else
		r = add_defaults(c, why, whysize);
	if (r != 0)
		goto out;
	*out = c;
	c = NULL;
	ret = 0;
out:
	if (c != NULL) {
		release(c);
		free(c);
	}
	return ret;
}

/* Reads /proc/sys/kernel/perf_event_paranoid for an error hint; returns 99 when unknown. */
static int paranoid_level(void)
{
	char buf[32];
	long level;

	if (pm_sysfs_read_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) < 0 ||
	    pm_cli_parse_long(buf, -10, 10, &level) < 0)
		return 99;
	return (int)level;
}

int pmc_counters_attach(struct pmc_counters *c, pid_t pid, char *why, size_t whysize)
{
	int r;

	if (c == NULL || pid <= 0) {
		pm_set_why(why, whysize, "invalid arguments");
		return PMT_E_INVAL;
	}
	if (c->attached) {
		/* the previous run's process: PAPI_attach refuses a set that is attached already */
		if (c->running)
			PAPI_stop(c->eventset, c->raw);
		c->running = 0;
		r = PAPI_detach(c->eventset);
		if (r != PAPI_OK) {
			pm_set_why(why, whysize, "PAPI_detach from the previous run failed: %s", PAPI_strerror(r));
			return PMT_E_IO;
		}
		c->attached = 0;
	}
	/* PAPI_attach reopens the events of the set for pid (perf_event_open(pid, cpu=-1)) with the
	 * inherit flag set in pmc_counters_open. */
	r = PAPI_attach(c->eventset, (unsigned long)pid);
	if (r != PAPI_OK) {
		if (r == PAPI_EPERM)
			pm_set_why(why, whysize, "PAPI_attach to pid %d failed: %s (perf_event_paranoid is %d; "
				"need <= 1, CAP_PERFMON or root)", (int)pid, PAPI_strerror(r), paranoid_level());
		else
			pm_set_why(why, whysize, "PAPI_attach to pid %d failed: %s", (int)pid, PAPI_strerror(r));
		return PMT_E_IO;
	}
	c->attached = 1;
	r = PAPI_start(c->eventset);
	if (r != PAPI_OK) {
		pm_set_why(why, whysize, "PAPI_start failed: %s", PAPI_strerror(r));
		return PMT_E_IO;
	}
	c->running = 1;
	return 0;
}

uint32_t pmc_counters_count(const struct pmc_counters *c)
{
	return c != NULL ? c->n : 0;
}

const char *pmc_counters_name(const struct pmc_counters *c, uint32_t i)
{
	return c != NULL && i < c->n ? c->names[i] : NULL;
}

int pmc_counters_read(struct pmc_counters *c, int64_t *values)
{
	uint32_t i;

	if (c == NULL || values == NULL)
		return PMT_E_INVAL;
	if (!c->running || PAPI_read(c->eventset, c->raw) != PAPI_OK) {
		for (i = 0; i < c->n; i++)
			values[i] = INT64_MIN;
		return PMT_E_IO;
	}
	/* long long and int64_t are both 64-bit two's complement on Linux; a count never reaches
	 * INT64_MIN, so a read value cannot be mistaken for "not read". */
	for (i = 0; i < c->n; i++)
		values[i] = (int64_t)c->raw[i];
	return 0;
}

void pmc_counters_close(struct pmc_counters *c)
{
	int thread_local;

	if (c == NULL)
		return;
	thread_local = c->thread_local;
	release(c);
	free(c);
	if (thread_local)
		PAPI_unregister_thread(); /* frees PAPI's record of the calling thread */
}

/* PAPI_thread_init's thread id (PAPI 7.0: "a function that returns a unique thread ID"). */
static unsigned long papi_thread_id(void)
{
	return (unsigned long)pthread_self();
}

int pmc_counters_threads_init(char *why, size_t whysize)
{
	static int done;
	int r;

	if (done)
		return 0;
	if (papi_ready(why, whysize) < 0 || perf_event_component(why, whysize) < 0 ||
	    pmc_kernel_counts_hardware(why, whysize) < 0)
		return PMT_E_IO;
	r = PAPI_thread_init(papi_thread_id);
	if (r != PAPI_OK) {
		pm_set_why(why, whysize, "PAPI_thread_init failed: %s", PAPI_strerror(r));
		return PMT_E_IO;
	}
	done = 1;
	return 0;
}

int pmc_counters_open_thread_llc(struct pmc_counters **out, char *why, size_t whysize)
{
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
	int vendor = hw != NULL ? hw->vendor : PAPI_VENDOR_UNKNOWN;
	struct pmc_counters *c;
	int cidx, r;

	if (out == NULL)
		return PMT_E_INVAL;
	*out = NULL;
	cidx = perf_event_component(why, whysize);
	if (cidx < 0)
		return PMT_E_IO;
	r = new_eventset(&c, cidx, 1, why, whysize);
	if (r == PMT_E_NOMEM)
		return r;
	if (r != 0)
		goto fail;
	for (size_t j = 0; j < PM_ARRAY_SIZE(llc_cand) && c->n == 0; j++)
		if (llc_cand[j].vendor == 0 || llc_cand[j].vendor == vendor)
			(void)add_event(c, llc_cand[j].name);
	if (c->n == 0) {
		pm_set_why(why, whysize, "no last-level cache miss event on this CPU (tried PAPI_L3_TCM and "
			   "the native fallbacks, docs/counters.md)");
		goto fail;
	}
	r = PAPI_start(c->eventset);
	if (r != PAPI_OK) {
		pm_set_why(why, whysize, "PAPI_start of %s failed: %s", c->names[0], PAPI_strerror(r));
		goto fail;
	}
	c->running = 1;
	*out = c;
	return 0;
fail:
	pmc_counters_close(c);
	return PMT_E_IO;
}

void pmc_counts_sum(const int64_t *vals, size_t nthreads, uint32_t nevents, int64_t *sum)
{
	for (uint32_t i = 0; i < nevents; i++) {
		int64_t acc = 0;

		for (size_t t = 0; t < nthreads && acc != PMT_COUNTER_INVALID; t++) {
			int64_t v = vals[t * nevents + i];

			/* a count is >= 0; INT64_MIN is "not read", a negative one is not a count */
			if (v == PMT_COUNTER_INVALID || v < 0 || acc > INT64_MAX - v)
				acc = PMT_COUNTER_INVALID;
			else
				acc += v;
		}
		sum[i] = acc;
	}
}

void pmc_counts_since(int64_t *values, const int64_t *values0, uint32_t n)
{
	for (uint32_t i = 0; values0 && i < n; i++) {
		if (values[i] == PMT_COUNTER_INVALID || values0[i] == PMT_COUNTER_INVALID ||
		    values[i] < values0[i])
			values[i] = PMT_COUNTER_INVALID;
		else
			values[i] -= values0[i];
	}
}

struct pmc_thread_counters {
	char events[512];                 /* the events as pmc_counters_open's list: "A,B" */
	char *names[2];                   /* the concrete names, as like had them */
	uint32_t nev;
	struct pmc_counters **sets;       /* one started set per thread, [n] */
	pid_t *tids;                      /* the thread of each set, [n] */
	size_t n, cap_sets, cap_tids;
	int64_t *rows;                    /* pmc_thread_counters_read's buffer, [n * nev] */
	size_t cap_rows;
};

size_t pmc_thread_counters_cap(uint64_t nofile, uint64_t in_use, uint32_t nevents)
{
	uint64_t n;

	if (nevents == 0 || nofile <= in_use)
		return 0;
	n = (nofile - in_use) / 2 / nevents;
	return n > PMC_THREAD_COUNTERS_MAX ? PMC_THREAD_COUNTERS_MAX : (size_t)n;
}

uint32_t pmc_snapshot_every(size_t threads, uint32_t nevents, uint64_t interval_ns,
			    uint64_t duration_ns)
{
	uint64_t reads = (uint64_t)threads * nevents, k, kmax;

	if (interval_ns == 0)
		return 1;
	k = (reads + PMC_SNAPSHOT_READS - 1) / PMC_SNAPSHOT_READS;
	/* 8 snapshots per quarter: 32 in the window */
	kmax = duration_ns ? duration_ns / interval_ns / 32 : PMC_SNAPSHOT_MAX_NS / interval_ns;
	if (k > kmax)
		k = kmax;
	return k < 1 ? 1 : k > UINT32_MAX ? UINT32_MAX : (uint32_t)k;
}

int pmc_thread_counters_open(struct pmc_thread_counters **out, const struct pmc_counters *like,
			     char *why, size_t whysize)
{
	struct pmc_thread_counters *t;
	size_t used = 0;

	if (out == NULL) {
		pm_set_why(why, whysize, "invalid arguments");
		return PMT_E_INVAL;
	}
	*out = NULL;
	if (like == NULL) {
		pm_set_why(why, whysize, "no hardware counters");
		return PMT_E_INVAL;
	}
	if (!(t = calloc(1, sizeof(*t)))) {
		pm_set_why(why, whysize, "out of memory");
		return PMT_E_NOMEM;
	}
	/* cycles first, then instructions: the order of the values read */
	for (int kind = PMC_KIND_CYCLES; kind <= PMC_KIND_INSTRUCTIONS; kind++) {
		for (uint32_t i = 0; i < like->n; i++) {
			int w;

			if (pmc_counter_kind(like->names[i]) != kind)
				continue;
			w = snprintf(t->events + used, sizeof(t->events) - used, "%s%s", used ? "," : "",
				     like->names[i]);
			if (w < 0 || (size_t)w >= sizeof(t->events) - used)
				break; /* cannot happen with the candidates' names; leaves the event out */
			used += (size_t)w;
			t->names[t->nev++] = like->names[i];
			break;
		}
	}
	if (t->nev == 0) {
		pm_set_why(why, whysize, "the counted events (-e) include neither cycles nor instructions");
		free(t);
		return PMT_E_INVAL;
	}
	/* like outlives t (the session's set): the names are borrowed */
	*out = t;
	return 0;
}

int pmc_thread_counters_has(const struct pmc_thread_counters *t, pid_t tid)
{
	for (size_t k = 0; t && k < t->n; k++)
		if (t->tids[k] == tid)
			return 1;
	return 0;
}

int pmc_thread_counters_add(struct pmc_thread_counters *t, pid_t tid, char *why, size_t whysize)
{
	struct pmc_counters *c = NULL;
	char cwhy[256];
	int r;

	if (t == NULL || tid <= 0 || pmc_thread_counters_has(t, tid)) {
		pm_set_why(why, whysize, "invalid arguments");
		return PMT_E_INVAL;
	}
	if (t->n >= PMC_THREAD_COUNTERS_MAX) {
		pm_set_why(why, whysize, "more than %u threads", PMC_THREAD_COUNTERS_MAX);
		return PMT_E_LIMIT;
	}
	if (PM_GROW(t->sets, t->cap_sets, t->n + 1) < 0 || PM_GROW(t->tids, t->cap_tids, t->n + 1) < 0 ||
	    PM_GROW(t->rows, t->cap_rows, (t->n + 1) * t->nev) < 0) {
		pm_set_why(why, whysize, "out of memory");
		return PMT_E_NOMEM;
	}
	r = pmc_counters_open(&c, t->events, cwhy, sizeof(cwhy));
	if (r == 0)
		r = pmc_counters_attach(c, tid, cwhy, sizeof(cwhy));
	if (r != 0) {
		pm_set_why(why, whysize, "thread %d: %s", (int)tid, cwhy);
		pmc_counters_close(c);
		return r == PMT_E_NOMEM ? r : PMT_E_IO;
	}
	t->sets[t->n] = c;
	t->tids[t->n++] = tid;
	return 0;
}

size_t pmc_thread_counters_threads(const struct pmc_thread_counters *t)
{
	return t != NULL ? t->n : 0;
}

uint32_t pmc_thread_counters_count(const struct pmc_thread_counters *t)
{
	return t != NULL ? t->nev : 0;
}

const char *pmc_thread_counters_name(const struct pmc_thread_counters *t, uint32_t i)
{
	return t != NULL && i < t->nev ? t->names[i] : NULL;
}

int pmc_thread_counters_read(struct pmc_thread_counters *t, int64_t *values)
{
	int rc = 0;

	if (t == NULL || values == NULL)
		return PMT_E_INVAL;
	for (size_t k = 0; k < t->n; k++)
		if (pmc_counters_read(t->sets[k], t->rows + k * t->nev) < 0)
			rc = PMT_E_IO; /* its row is PMT_COUNTER_INVALID: so are the sums */
	pmc_counts_sum(t->rows, t->n, t->nev, values);
	return rc;
}

void pmc_thread_counters_close(struct pmc_thread_counters *t)
{
	if (t == NULL)
		return;
	for (size_t k = 0; k < t->n; k++)
		pmc_counters_close(t->sets[k]);
	free(t->sets);
	free(t->tids);
	free(t->rows);
	free(t);
}
