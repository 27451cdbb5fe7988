/* SPDX-License-Identifier: MIT */
/* test_interfere.c: interferer placement on synthetic hwloc topologies (tests/fixtures/hwloc/),
 * the CSThr buffer size, the calibration arithmetic and machine file, and short real runs of
 * BWThr, CSThr, the probe and the triad that assert only what holds on any machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "counters.h"
#include "interfere.h"
#include "interfere_cal.h"
#include "pm_util.h"
#include "testlib.h"

#define MB (1024.0 * 1024.0)

/* Loads tests/fixtures/hwloc/<name> (relative to $PMT_TOP, else the current directory). */
static hwloc_topology_t load(const char *name)
{
	const char *top = getenv("PMT_TOP");
	char path[1024];
	hwloc_topology_t t;

	snprintf(path, sizeof(path), "%s/tests/fixtures/hwloc/%s", top ? top : ".", name);
	assert_int_equal(hwloc_topology_init(&t), 0);
	assert_int_equal(hwloc_topology_set_xml(t, path), 0);
	assert_int_equal(hwloc_topology_load(t), 0);
	return t;
}

/* This VM: each vCPU has a private 508 MB "L3". No CPU qualifies, and the reason says so and
 * names --interfere-cpus. */
static void test_place_vm_private_llc(void **state)
{
	hwloc_topology_t t = load("vm-2vcpu-private-l3.xml");
	int cpus[8];
	char why[512] = "";

	(void)state;
	assert_int_equal(pmc_interfere_place(t, cpulist("0"), NULL, cpus, 8, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "--interfere-cpus"));
	assert_non_null(strstr(why, "private"));
	assert_non_null(strstr(why, "L3, 508 MB"));
	assert_null(strchr(why, '\n'));
	hwloc_topology_destroy(t);
}

/* Xeon20MB with SMT: package 0 holds PUs 0-15, PU 2c+1 is PU 2c's sibling. */
static void test_place_xeon(void **state)
{
	hwloc_topology_t t = load("xeon-2s-8c-smt2-l3-20mb.xml");
	int cpus[32];
	char why[512];

	(void)state;
	/* program on PU 0: every other PU of package 0 except its sibling 1 */
	assert_int_equal(pmc_interfere_place(t, cpulist("0"), NULL, cpus, 32, why, sizeof(why)), 14);
	for (int j = 0; j < 14; j++)
		assert_int_equal(cpus[j], 2 + j);
	/* program on 0-3 (two cores): 4-15 */
	assert_int_equal(pmc_interfere_place(t, cpulist("0-3"), NULL, cpus, 32, why, sizeof(why)), 12);
	assert_int_equal(cpus[0], 4);
	assert_int_equal(cpus[11], 15);
	/* program on PU 0 and PU 17 (one per package): both packages, minus both cores */
	assert_int_equal(pmc_interfere_place(t, cpulist("0,17"), NULL, cpus, 32, why, sizeof(why)), 28);
	assert_int_equal(cpus[13], 15);
	assert_int_equal(cpus[14], 18);
	/* at most maxcpus, lowest first */
	assert_int_equal(pmc_interfere_place(t, cpulist("0"), NULL, cpus, 3, why, sizeof(why)), 3);
	assert_int_equal(cpus[2], 4);
	/* only the allowed CPUs */
	assert_int_equal(pmc_interfere_place(t, cpulist("0"), cpulist("0,1,5,20"), cpus, 32, why, sizeof(why)), 1);
	assert_int_equal(cpus[0], 5);
	assert_int_equal(pmc_interfere_place(t, cpulist("0"), cpulist("0,1,16-31"), cpus, 32, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "--interfere-cpus"));
	assert_non_null(strstr(why, "available"));
	assert_int_equal(pmc_interfere_place(t, cpulist("0-15"), NULL, cpus, 32, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "runs the program"));
	assert_non_null(strstr(why, "--interfere-cpus"));
	assert_int_equal(pmc_interfere_place(t, cpulist("40"), NULL, cpus, 32, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "CPU 40"));
	hwloc_topology_destroy(t);
}

static void test_place_smt_only_and_no_caches(void **state)
{
	hwloc_topology_t t = load("smt2-private-l3.xml");
	int cpus[4];
	char why[512];

	(void)state;
	assert_int_equal(pmc_interfere_place(t, cpulist("0"), NULL, cpus, 4, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "SMT siblings"));
	assert_non_null(strstr(why, "--interfere-cpus"));
	hwloc_topology_destroy(t);
	t = load("no-caches.xml");
	assert_int_equal(pmc_interfere_place(t, cpulist("0"), NULL, cpus, 4, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no cache"));
	assert_non_null(strstr(why, "--interfere-cpus"));
	hwloc_topology_destroy(t);
}

static void test_csthr_bytes(void **state)
{
	hwloc_topology_t t = load("xeon-2s-8c-smt2-l3-20mb.xml");
	size_t b = 0;
	char why[256];

	(void)state;
	assert_int_equal(pmc_csthr_bytes(t, 3, 0, &b, why, sizeof(why)), 0);
	assert_int_equal(b, 4u << 20);                 /* the paper's 4 MB */
	assert_int_equal(pmc_csthr_bytes(t, 3, 8, &b, why, sizeof(why)), 0);
	assert_int_equal(b, 8u * 256u * 1024u);         /* 8 x the 256 KiB L2 */
	assert_int_equal(pmc_csthr_bytes(t, 3, 1, &b, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not larger"));
	hwloc_topology_destroy(t);
	t = load("smt2-private-l3.xml");                /* 1 MiB L2: 4 MB is larger, 1 x is not */
	assert_int_equal(pmc_csthr_bytes(t, 0, 0, &b, why, sizeof(why)), 0);
	assert_int_equal(pmc_csthr_bytes(t, 0, 1, &b, why, sizeof(why)), -1);
	hwloc_topology_destroy(t);
	t = load("no-caches.xml");
	assert_int_equal(pmc_csthr_bytes(t, 0, 0, &b, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no L2"));
	hwloc_topology_destroy(t);
}

static void test_topology_signature(void **state)
{
	hwloc_topology_t t = load("xeon-2s-8c-smt2-l3-20mb.xml");
	char sig[512], tiny[16];

	(void)state;
	assert_int_equal(pmc_cal_topology_signature(t, sig, sizeof(sig)), 0);
	assert_non_null(strstr(sig, "packages=2 cores=16 pus=32"));
	assert_non_null(strstr(sig, "L3=20971520x2"));
	assert_non_null(strstr(sig, "L2=262144x16"));
	assert_int_equal(pmc_cal_topology_signature(t, tiny, sizeof(tiny)), -1);
	hwloc_topology_destroy(t);
}

static void test_hit_rate(void **state)
{
	(void)state;
	assert_double_equal(pmc_cal_hit_rate(5, 5, 105), 1, 1e-12);
	assert_double_equal(pmc_cal_hit_rate(105, 5, 105), 0, 1e-12);
	assert_double_equal(pmc_cal_hit_rate(55, 5, 105), 0.5, 1e-12);
	assert_double_equal(pmc_cal_hit_rate(1, 5, 105), 1, 1e-12);   /* clamped */
	assert_double_equal(pmc_cal_hit_rate(500, 5, 105), 0, 1e-12); /* clamped */
	assert_double_equal(pmc_cal_hit_rate(50, 105, 5), 0, 1e-12);  /* references do not separate */
}

/* A fully associative 10 MB cache under the uniform pattern (eq. 4: h = C/F for F >= C): times
 * built from t_hit = 5 ns, t_miss = 105 ns give back C = 10 MB from the points with 0.1 <= h <= 0.9
 * (F = 16, 32, 64 MB), and none from a cache larger than every footprint. */
static void test_capacity_summary(void **state)
{
	struct pmc_cal_point pts[8];
	int valid = -1;

	(void)state;
	for (int i = 0; i < 8; i++) {
		double F = (double)(1u << 20 << i) * 2, h = F <= 10 * MB ? 1 : 10 * MB / F;
		pts[i].F_bytes = (uint64_t)F;
		pts[i].ns_per_access = 5 + (1 - h) * 100;
	}
	assert_double_equal(pmc_cal_capacity_summary(pts, 8, 5, 105, &valid) / MB, 10, 1e-9);
	assert_int_equal(valid, 1);
	assert_double_equal(pts[4].hit_rate, 10.0 / 32, 1e-12); /* F = 32 MB */
	assert_double_equal(pts[0].C_eff_bytes / MB, 2, 1e-9);  /* F = 2 MB, all hits: h·F = F */
	for (int i = 0; i < 8; i++)
		pts[i].ns_per_access = 5;
	assert_double_equal(pmc_cal_capacity_summary(pts, 8, 5, 105, &valid), 0, 0);
	assert_int_equal(valid, 0);
}

static void test_orthogonal_bwthrs(void **state)
{
	const double fig11[] = { 10, 9.8, 9.5, 7, 6 }; /* like Fig. 11: fine up to 2, not 3 */
	const double dip[] = { 10, 5, 10 };
	const double none[] = { 0, 10 };

	(void)state;
	assert_int_equal(pmc_cal_orthogonal_bwthrs(fig11, 5, 0.10), 2);
	assert_int_equal(pmc_cal_orthogonal_bwthrs(dip, 3, 0.10), 0);
	assert_int_equal(pmc_cal_orthogonal_bwthrs(none, 2, 0.10), -1);
	assert_int_equal(pmc_cal_orthogonal_bwthrs(fig11, 1, 0.10), 0);
}

static void tmp_path(char *buf, size_t size, const char *name)
{
	const char *tmp = getenv("PMT_TMP");

	snprintf(buf, size, "%s/test_interfere-%d-%s", tmp ? tmp : "/tmp", (int)getpid(), name);
}

static void test_machine_file(void **state)
{
	struct pmc_interference_cal a, b;
	char path[512], why[1024];
	FILE *f;

	(void)state;
	memset(&a, 0, sizeof(a));
	strcpy(a.topology, "cpu=X packages=1 cores=2 pus=2 numa=1 L3=1x2");
	a.method = PMC_CAL_TIMING;
	a.probe_cpu = 0;
	a.interferer_cpus[0] = 1;
	a.ninterferers = 1;
	a.csthr_bytes = 4u << 20;
	a.BW1_bytes_per_s = 5.6e9;
	a.B_bytes_per_s = 40e9;
	a.ncap = 2;
	a.cap[1].k = 1;
	a.cap[1].C_bytes = 15 * MB;
	a.cap[1].valid = 1;
	a.cap[1].t_l2_ns = 4.5;
	a.cap[1].t_dram_ns = 210;
	a.cap[1].npoints = 2;
	a.cap[1].points[1] = (struct pmc_cal_point){ .F_bytes = 32u << 20, .ns_per_access = 100,
						     .miss_rate = 0.5, .hit_rate = 0.5, .C_eff_bytes = 16 * MB };
	a.cap[1].points[0].miss_rate = NAN; /* not counted: null in the file */
	a.cap[1].counted = 1;
	a.bw1_method = PMC_CAL_COUNTERS;
	snprintf(a.counters_why, sizeof(a.counters_why), "capacity: no PMU");
	a.north = 2;
	a.orth_C_bytes[0] = 20 * MB;
	a.orth_C_bytes[1] = 19 * MB;
	a.orth_bwthrs = 1;
	tmp_path(path, sizeof(path), "cal.json");
	assert_int_equal(pmc_cal_write(path, &a, why, sizeof(why)), 0);
	assert_int_equal(pmc_cal_read(path, a.topology, 1, &b, why, sizeof(why)), 0);
	assert_string_equal(b.topology, a.topology);
	/* provenance: who, where, when, and an id per calibration, read back; a second write is a
	 * new calibration (a new id) and leaves no temporary file beside the machine file */
	assert_true(a.written.id[0] != '\0');
	assert_string_equal(b.written.id, a.written.id);
	assert_int_equal(b.written.uid, (long)getuid());
	assert_string_equal(b.written.user, a.written.user);
	assert_string_equal(b.written.time_utc, a.written.time_utc);
	assert_true(b.written.time_unix_s > 1700000000);
	assert_int_equal(pmc_cal_foreign(&b, why, sizeof(why)), 0);
	b.written.uid = (long)getuid() + 1;
	assert_int_equal(pmc_cal_foreign(&b, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "was made by user"));
	assert_non_null(strstr(why, a.written.id));
	{
		char first_id[sizeof(a.written.id)], dir[4096], *slash;
		DIR *d;
		struct dirent *de;
		int others = 0;

		snprintf(first_id, sizeof(first_id), "%s", a.written.id);
		usleep(1000);
		assert_int_equal(pmc_cal_write(path, &a, why, sizeof(why)), 0);
		assert_string_not_equal(a.written.id, first_id);
		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		assert_non_null(slash);
		*slash = '\0';
		d = opendir(dir);
		assert_non_null(d);
		while ((de = readdir(d)))
			others += strstr(de->d_name, "cal.json.tmp.") != NULL;
		closedir(d);
		assert_int_equal(others, 0);
	}
	assert_int_equal(b.ninterferers, 1);
	assert_int_equal(b.interferer_cpus[0], 1);
	assert_double_equal(b.BW1_bytes_per_s, 5.6e9, 0);
	assert_double_equal(b.B_bytes_per_s, 40e9, 0);
	assert_int_equal(b.ncap, 2);
	assert_int_equal(b.cap[1].k, 1);
	assert_true(b.cap[1].valid);
	assert_double_equal(b.cap[1].C_bytes, 15 * MB, 0);
	assert_int_equal(b.cap[1].points[1].F_bytes, 32u << 20);
	assert_double_equal(b.cap[1].points[1].hit_rate, 0.5, 0);
	assert_double_equal(b.cap[1].points[1].miss_rate, 0.5, 0);
	assert_true(isnan(b.cap[1].points[0].miss_rate));
	assert_true(b.cap[1].counted);
	assert_false(b.cap[0].counted);
	assert_int_equal(b.method, PMC_CAL_TIMING);
	assert_int_equal(b.bw1_method, PMC_CAL_COUNTERS);
	assert_string_equal(b.counters_why, "capacity: no PMU");
	assert_int_equal(b.orth_bwthrs, 1);
	assert_double_equal(b.orth_C_bytes[1], 19 * MB, 0);
	/* another machine: a warning (1) or, when strict, a refusal (-1) */
	assert_int_equal(pmc_cal_read(path, "cpu=Y packages=2", 0, &b, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "another machine"));
	assert_double_equal(b.B_bytes_per_s, 40e9, 0);
	assert_int_equal(pmc_cal_read(path, "cpu=Y packages=2", 1, &b, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "another machine"));
	/* broken files */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"format\": \"pmtools-interference/1\", \"topology\": \"t\", \"method\": \"timing\"}", f);
	fclose(f);
	assert_int_equal(pmc_cal_read(path, NULL, 0, &b, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "\"probe_cpu\""));
	f = fopen(path, "w");
	fputs("{\"format\": \"something-else/1\"}", f);
	fclose(f);
	assert_int_equal(pmc_cal_read(path, NULL, 0, &b, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a pmtools-interference/1"));
	f = fopen(path, "w");
	fputs("{\"format\": ", f);
	fclose(f);
	assert_int_equal(pmc_cal_read(path, NULL, 0, &b, why, sizeof(why)), -1);
	unlink(path);
	assert_int_equal(pmc_cal_read(path, NULL, 0, &b, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "No such file"));
}

static int count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The first CPU this process may run on. */
static int some_cpu(void)
{
	cpu_set_t set;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			return c;
	fail();
	return -1;
}

static void nap_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* Each kind runs (its count grows while it runs), stops (joined: the process is back to its own
 * threads) and reports bytes > 0. */
static void run_one(enum pmc_interferer_kind kind)
{
	struct pmc_interferer *t = NULL;
	struct pmc_interferer_stats s1, s2, fin;
	char why[256];
	int before = count_threads();

	assert_int_equal(pmc_interferer_start(kind, some_cpu(), 0, &t, why, sizeof(why)), 0);
	assert_int_equal(count_threads(), before + 1);
	/* a generous wait for the first publication: the thread may share its CPU with others */
	for (int i = 0; i < 1000; i++) {
		pmc_interferer_read(t, &s1);
		if (s1.accesses > 0)
			break;
		nap_ms(10);
	}
	assert_true(s1.accesses > 0);
	for (int i = 0; i < 1000; i++) {
		pmc_interferer_read(t, &s2);
		if (s2.accesses > s1.accesses)
			break;
		nap_ms(10);
	}
	assert_true(s2.accesses > s1.accesses);
	pmc_interferer_stop(t, &fin);
	assert_int_equal(count_threads(), before);
	assert_true(fin.accesses >= s2.accesses);
	assert_true(fin.bytes == 2u * PMC_LINE_BYTES * fin.accesses);
	assert_true(fin.bytes > 0 && fin.elapsed_ns > 0 && fin.bytes_per_s > 0 && fin.ns_per_access > 0);
}

/* BWThr's index (Fig. 2 over whole lines): over a 520 KB buffer, every window of nlines
 * consecutive rounds -- one pass, 44 x 520 KB = 22.9 MB of the thread's traffic -- touches each
 * of the buffer's lines exactly once, at the line's first element; so no line is re-touched
 * within one pass and misses = accesses in an LRU cache holding less than 22.9 MB for the
 * thread. Element indexing (identity(P i) % elements, the previous code) touched line 0 again
 * 8320 rounds after round 0, with half its accesses at an LRU stack distance of 12.6 MiB. */
static void test_bwthr_lines_once_per_pass(void **state)
{
	const uint64_t nlines = PMC_BWTHR_BUF_BYTES / PMC_LINE_BYTES, per_line = PMC_LINE_BYTES / 8;
	const uint64_t starts[] = { 0, 1, 12345, 8320u * 7 + 3, (uint64_t)1 << 33 };
	uint64_t prime = pmc_bwthr_prime(nlines);
	uint32_t *seen = calloc(nlines, sizeof(*seen));

	(void)state;
	assert_non_null(seen);
	assert_int_equal(nlines, 8320);
	assert_int_equal(prime, 1000003); /* 8320 = 2^7 * 5 * 13: coprime with the first prime */
	assert_int_equal(pmc_bwthr_prime(1000003u * 2), 1000033); /* a multiple of it: the next */
	for (size_t s = 0; s < PM_ARRAY_SIZE(starts); s++) {
		for (uint64_t i = starts[s]; i < starts[s] + nlines; i++) {
			uint64_t e = pmc_bwthr_element(i, prime, nlines);
			assert_int_equal(e % per_line, 0); /* a line's first element */
			assert_true(e / per_line < nlines);
			assert_int_equal(seen[e / per_line], s); /* not yet touched in this window */
			seen[e / per_line] = (uint32_t)s + 1;
		}
		for (uint64_t l = 0; l < nlines; l++)
			assert_int_equal(seen[l], s + 1); /* and every line touched */
	}
	/* consecutive rounds are far apart (1603 lines, 100 KB), as in Fig. 2: a constant stride */
	assert_int_equal(pmc_bwthr_element(1, prime, nlines) - pmc_bwthr_element(0, prime, nlines),
			 (1000003u % nlines) * per_line);
	free(seen);
}

static void test_bwthr_runs_and_stops(void **state)
{
	(void)state;
	run_one(PMC_BWTHR);
}

static void test_csthr_runs_and_stops(void **state)
{
	(void)state;
	run_one(PMC_CSTHR);
}

static void test_group_and_bad_start(void **state)
{
	struct pmc_interferer *ts[3] = { NULL, NULL, NULL };
	struct pmc_interferer_stats st[3];
	int cpu = some_cpu(), cpus[3] = { cpu, cpu, CPU_SETSIZE - 1 }, before = count_threads();
	char why[256];

	(void)state;
	/* two share one CPU; a third on a CPU that does not exist fails and stops the first two */
	assert_int_equal(pmc_interferers_start(PMC_CSTHR, cpus, 3, 1u << 20, ts, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "CPU 1023"));
	assert_int_equal(count_threads(), before);
	assert_int_equal(pmc_interferers_start(PMC_CSTHR, cpus, 2, 1u << 20, ts, why, sizeof(why)), 0);
	assert_int_equal(count_threads(), before + 2);
	pmc_interferers_stop(ts, 2, st);
	assert_int_equal(count_threads(), before);
	assert_null(ts[0]);
	assert_true(st[0].accesses > 0 && st[1].accesses > 0);
	assert_int_equal(pmc_interferer_start(PMC_BWTHR, -1, 0, &ts[0], why, sizeof(why)), -1);
	assert_int_equal(pmc_interferer_start(PMC_BWTHR, cpu, 8, &ts[0], why, sizeof(why)), -1);
	assert_int_equal(pmc_interferer_start((enum pmc_interferer_kind)7, cpu, 0, &ts[0], why, sizeof(why)), -1);
	assert_null(ts[0]);
	pmc_interferer_stop(NULL, NULL);
}

/* The probe: a footprint of 64 MiB costs more per dependent random read than one of 256 KiB on
 * any machine (L2 against a slower level); the triad and BW1 measure something. */
static void test_probe_triad_bw1(void **state)
{
	const uint64_t F[] = { 256u << 10, 64u << 20 };
	double ns[2] = { 0, 0 }, B = 0, BW1 = 0;
	int cpu = some_cpu();
	char why[256];

	(void)state;
	assert_int_equal(pmc_cal_probe(cpu, F, 2, 200000, ns, NULL, why, sizeof(why)), 0);
	assert_true(ns[0] > 0);
	assert_true(ns[1] > ns[0]);
	assert_int_equal(pmc_cal_probe(cpu, F, 2, 0, ns, NULL, why, sizeof(why)), -1);
	assert_int_equal(pmc_cal_triad(&cpu, 1, 8u << 20, 2, &B, why, sizeof(why)), 0);
	assert_true(B > 0);
	{
		int counted = -1;
		assert_int_equal(pmc_cal_bw1(cpu, 20, 0, &BW1, &counted, why, sizeof(why)), 0);
		assert_int_equal(counted, 0);
	}
	assert_true(BW1 > 0);
	{
		int bad = CPU_SETSIZE - 1;
		assert_int_equal(pmc_cal_triad(&bad, 1, 8u << 20, 1, &B, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "CPU 1023"));
	}
}

/* The counter methods' arithmetic with known numbers (Casas & Bronevetsky eq. 1 and §3.2.3):
 * 10^9 misses of 64-byte lines in 2 s are 2 · 64 · 10^9 / 2 = 64 GB/s; the paper's BWThr, 5.6
 * GB/s, is 43.75 million misses per second; a probe over F = 32 MiB missing half its accesses had
 * C_eff = (1 - 0.5) · 32 = 16 MiB, one over 64 MiB missing 3/4 also 16 MiB, and points outside
 * 0.1 <= h <= 0.9 or not counted (NAN) are left out of the median. */
static void test_counter_arithmetic(void **state)
{
	struct pmc_cal_point pts[5] = {
		{ .F_bytes = 8u << 20, .miss_rate = 0.02 },   /* h 0.98: cache larger than F */
		{ .F_bytes = 32u << 20, .miss_rate = 0.5 },   /* 16 MiB */
		{ .F_bytes = 64u << 20, .miss_rate = 0.75 },  /* 16 MiB */
		{ .F_bytes = 128u << 20, .miss_rate = 0.85 }, /* 19.2 MiB */
		{ .F_bytes = 256u << 20, .miss_rate = NAN },  /* not counted */
	};
	int valid = 0;

	(void)state;
	assert_double_equal(pmc_eq1_bytes(1e9) / 2.0 / 1e9, 64, 1e-12);
	assert_double_equal(pmc_eq1_bytes(5.6e9 / 128) / 1e9, 5.6, 1e-12);
	assert_double_equal(pmc_cal_capacity_from_misses(pts, 5, &valid) / MB, 16, 1e-9);
	assert_int_equal(valid, 1);
	assert_double_equal(pts[0].hit_rate, 0.98, 1e-12);
	assert_double_equal(pts[3].C_eff_bytes / MB, 0.15 * 128, 1e-9);
	/* every point outside the range: no capacity */
	pts[1].miss_rate = pts[2].miss_rate = pts[3].miss_rate = 0.95;
	assert_double_equal(pmc_cal_capacity_from_misses(pts, 5, &valid), 0, 0);
	assert_int_equal(valid, 0);
}

/* The counter path where PAPI counts nothing (this project's VM: the kernel has no PMU) falls
 * back to timing: the probe's miss rates are NAN with the reason, BW1 is eq. 1 of accesses with
 * counted = 0 and the reason. Where the kernel counts (a real server), the probe over 64 MiB
 * misses in the LLC for most accesses and BW1 comes from counted misses. */
static void test_counter_fallback(void **state)
{
	const uint64_t F[] = { 256u << 10, 64u << 20 };
	double ns[2], mr[2] = { -1, -1 }, BW1 = 0;
	int cpu = some_cpu(), counted = -1, papi = 0;
	char why[256] = "", pwhy[256] = "";

	(void)state;
	papi = pmc_counters_threads_init(pwhy, sizeof(pwhy)) == 0;
	assert_int_equal(pmc_cal_probe(cpu, F, 2, 200000, ns, mr, why, sizeof(why)), 0);
	assert_true(ns[1] > ns[0]);
	if (!papi) {
		assert_true(pwhy[0] != '\0');
		assert_true(isnan(mr[0]) && isnan(mr[1]));
		assert_string_equal(why, pwhy); /* the same reason, not a new failure */
	} else if (isfinite(mr[0])) {
		assert_true(mr[1] > 0.5 && mr[1] <= 1.5); /* 64 MiB: more than the LLC on most machines */
	}
	why[0] = '\0';
	assert_int_equal(pmc_cal_bw1(cpu, 20, 1, &BW1, &counted, why, sizeof(why)), 0);
	assert_true(BW1 > 0);
	if (!papi) {
		assert_int_equal(counted, 0);
		assert_string_equal(why, pwhy);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_place_vm_private_llc),
		cmocka_unit_test(test_place_xeon),
		cmocka_unit_test(test_place_smt_only_and_no_caches),
		cmocka_unit_test(test_csthr_bytes),
		cmocka_unit_test(test_topology_signature),
		cmocka_unit_test(test_hit_rate),
		cmocka_unit_test(test_capacity_summary),
		cmocka_unit_test(test_orthogonal_bwthrs),
		cmocka_unit_test(test_machine_file),
		cmocka_unit_test(test_bwthr_lines_once_per_pass),
		cmocka_unit_test(test_bwthr_runs_and_stops),
		cmocka_unit_test(test_csthr_runs_and_stops),
		cmocka_unit_test(test_group_and_bad_start),
		cmocka_unit_test(test_probe_triad_bw1),
		cmocka_unit_test(test_counter_arithmetic),
		cmocka_unit_test(test_counter_fallback),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
