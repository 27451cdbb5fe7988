/* SPDX-License-Identifier: MIT */
/* ompt_dump.c: test reader for libpmompt.so: runs a command with the tool, decodes its records with
 * collector/omp/ompt_reader and names the regions with analyzer/symbols, one line per fact. */

/*
 * Usage: ompt_dump -l <libpmompt.so> [-o <file>] [-s] [-b <bytes>] [-d <ms>] -- <command> [args...]
 *   -o  write the lines to file instead of stdout (the command keeps stdout)
 *   -s  summary: no line per region instance, only per call site
 *   -b  the tool's socket send buffer [default: 1048576]
 *   -d  sleep this long before each read: a slow reader, to make the tool drop
 * Lines (key=value, space separated):
 *   hello pid= runtime=
 *   object pid= load=0x build_id=<hex> path=
 *   region pid= id= parent= depth= codeptr=0x begin_ns= end_ns= requested= actual= tid= tids=a,b flags=
 *   site codeptr=0x calls= total_ns= function= file= line= symbol= outlined=
 *   end pid= regions=
 *   stats batches= records= regions= dropped_records= dropped_batches= bad_batches= ended=
 *         status= maxrss_kb= wall_ns=
 * Exit status: 0, or 1 when the command could not be run or the socket failed.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ompt_reader.h"
#include "symbols.h"

#define MAX_SITES 4096
#define MAX_OBJECTS 1024

struct site {
	uint64_t codeptr_ra, calls, total_ns;
};

struct dump {
	FILE *out;
	int summary;
	struct site sites[MAX_SITES];
	size_t nsites;
	struct pmc_ompt_object objects[MAX_OBJECTS];
	size_t nobjects;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_hello(void *ctx, uint32_t pid, uint64_t time_ns, const char *runtime_version)
{
	struct dump *d = ctx;

	(void)time_ns;
	fprintf(d->out, "hello pid=%u runtime=%s\n", pid, runtime_version);
}

static void on_region(void *ctx, const struct pmc_ompt_region *r)
{
	struct dump *d = ctx;
	size_t i;

	for (i = 0; i < d->nsites && d->sites[i].codeptr_ra != r->codeptr_ra; i++)
		;
	if (i < MAX_SITES) {
		if (i == d->nsites)
			d->sites[d->nsites++].codeptr_ra = r->codeptr_ra;
		d->sites[i].calls++;
		d->sites[i].total_ns += r->end_ns - r->begin_ns;
	}
	if (d->summary)
		return;
	fprintf(d->out, "region pid=%u id=%" PRIu64 " parent=%" PRIu64 " depth=%u codeptr=0x%" PRIx64
		" begin_ns=%" PRIu64 " end_ns=%" PRIu64 " requested=%u actual=%u tid=%u tids=",
		r->pid, r->id, r->parent_id, r->depth, r->codeptr_ra, r->begin_ns, r->end_ns,
		r->requested_team, r->actual_team, r->encountering_tid);
	for (uint32_t j = 0; j < r->n_tids; j++)
		fprintf(d->out, "%s%u", j ? "," : "", r->tids[j]);
	fprintf(d->out, " flags=%u\n", r->flags);
}

static void on_object(void *ctx, const struct pmc_ompt_object *o)
{
	struct dump *d = ctx;

	fprintf(d->out, "object pid=%u load=0x%" PRIx64 " build_id=", o->pid, o->load_addr);
	for (uint32_t i = 0; i < o->build_id_bytes; i++)
		fprintf(d->out, "%02x", o->build_id[i]);
	fprintf(d->out, " path=%s\n", o->path);
	if (d->nobjects < MAX_OBJECTS)
		d->objects[d->nobjects++] = *o;
}

static void on_end(void *ctx, uint32_t pid, uint64_t time_ns, uint64_t regions_total,
		   uint64_t counter_failures)
{
	struct dump *d = ctx;

	(void)time_ns;
	fprintf(d->out, "end pid=%u regions=%" PRIu64 " counter_failures=%" PRIu64 "\n", pid,
		regions_total, counter_failures);
}

static void on_counter_setup(void *ctx, uint32_t pid, uint32_t n, int32_t rc, const char *reason)
{
	struct dump *d = ctx;

	fprintf(d->out, "counter_setup pid=%u events=%u papi_rc=%d reason=%s\n", pid, n, rc, reason);
}

static void on_counters(void *ctx, const struct pmc_ompt_counters *c)
{
	struct dump *d = ctx;

	fprintf(d->out, "counters pid=%u tid=%u region=%" PRIu64, c->pid, c->tid, c->region_id);
	for (uint32_t k = 0; k < c->n_events; k++)
		fprintf(d->out, " %" PRId64, c->values[k]);
	fputc('\n', d->out);
}

static void sites(struct dump *d)
{
	struct pma_symbols *s;
	char why[256];

	if (pma_symbols_open(&s, why, sizeof(why))) {
		fprintf(stderr, "ompt_dump: warning: %s\n", why);
		return;
	}
	for (size_t i = 0; i < d->nobjects; i++) {
		const struct pmc_ompt_object *o = &d->objects[i];

		if (o->path[0] == '/' &&
		    pma_symbols_add(s, o->path, o->load_addr, o->build_id, o->build_id_bytes, why, sizeof(why)))
			fprintf(d->out, "# %s\n", why);
	}
	for (size_t i = 0; i < d->nsites; i++) {
		struct pma_symbol y;

		pma_symbols_lookup(s, d->sites[i].codeptr_ra, 1, &y);
		fprintf(d->out, "site codeptr=0x%" PRIx64 " calls=%" PRIu64 " total_ns=%" PRIu64
			" function=%s file=%s line=%d symbol=%s outlined=%d\n", d->sites[i].codeptr_ra,
			d->sites[i].calls, d->sites[i].total_ns, y.function[0] ? y.function : "?",
			y.file[0] ? y.file : "?", y.line, y.symbol[0] ? y.symbol : "?", y.outlined);
	}
	pma_symbols_close(s);
}

int main(int argc, char **argv)
{
	static struct dump d;
	const struct pmc_ompt_handlers h = {.hello = on_hello, .region = on_region,
					    .object = on_object, .end = on_end,
					    .counter_setup = on_counter_setup, .counters = on_counters};
	const char *tool = NULL, *outpath = NULL;
	int sndbuf = 1 << 20, delay_ms = 0, c, status = 0, exited = 0, rc = 1;
	struct pmc_ompt *r = NULL;
	struct pmc_ompt_stats st;
	struct rusage ru;
	char why[256], fd_var[64], lib_var[4200];
	uint64_t t0, t_exit = 0;
	pid_t child;

	memset(&ru, 0, sizeof(ru));
	while ((c = getopt(argc, argv, "+l:o:sb:d:")) != -1) {
		switch (c) {
		case 'l': tool = optarg; break;
		case 'o': outpath = optarg; break;
		case 's': d.summary = 1; break;
		case 'b': sndbuf = atoi(optarg); break;
		case 'd': delay_ms = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (!tool || optind >= argc)
		goto usage;
	d.out = outpath ? fopen(outpath, "w") : stdout;
	if (!d.out) {
		fprintf(stderr, "ompt_dump: error: cannot open '%s': %s\n", outpath, strerror(errno));
		return 1;
	}
	if (pmc_ompt_open(&r, sndbuf, why, sizeof(why)) ||
	    pmc_ompt_env(r, tool, fd_var, sizeof(fd_var), lib_var, sizeof(lib_var))) {
		fprintf(stderr, "ompt_dump: error: %s\n", r ? "tool path too long" : why);
		goto out;
	}
	t0 = now_ns();
	child = fork();
	if (child < 0) {
		fprintf(stderr, "ompt_dump: error: fork: %s\n", strerror(errno));
		goto out;
	}
	if (child == 0) {
		fcntl(pmc_ompt_child_fd(r), F_SETFD, 0);
		putenv(fd_var);
		putenv(lib_var);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "ompt_dump: error: cannot run '%s': %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	pmc_ompt_after_fork(r);
	for (;;) {
		struct pollfd p = {.fd = pmc_ompt_fd(r), .events = POLLIN};

		poll(&p, 1, 50);
		if (delay_ms)
			usleep((useconds_t)delay_ms * 1000);
		if (pmc_ompt_read(r, &h, &d, why, sizeof(why)) < 0) {
			fprintf(stderr, "ompt_dump: error: %s\n", why);
			goto out;
		}
		pmc_ompt_stats(r, &st);
		if (!exited && wait4(child, &status, WNOHANG, &ru) == child) {
			exited = 1;
			t_exit = now_ns();
		}
		/* after the command: until the last writer closes, or 1 s (a descendant keeps it) */
		if (exited && (st.eof || now_ns() - t_exit > 1000000000u))
			break;
	}
	sites(&d);
	pmc_ompt_stats(r, &st);
	fprintf(d.out, "stats batches=%" PRIu64 " records=%" PRIu64 " regions=%" PRIu64
		" dropped_records=%" PRIu64 " dropped_batches=%" PRIu64 " bad_batches=%" PRIu64
		" ended=%u status=%d maxrss_kb=%ld wall_ns=%" PRIu64 "\n", st.batches, st.records,
		st.regions, st.dropped_records, st.dropped_batches, st.bad_batches, st.processes_ended,
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), ru.ru_maxrss,
		t_exit - t0);
	rc = 0;
out:
	pmc_ompt_close(r);
	if (d.out && d.out != stdout)
		fclose(d.out);
	return rc;
usage:
	fprintf(stderr, "usage: ompt_dump -l <libpmompt.so> [-o <file>] [-s] [-b <bytes>] [-d <ms>] -- <command> [args...]\n");
	return 2;
}
