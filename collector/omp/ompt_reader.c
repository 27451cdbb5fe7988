/* SPDX-License-Identifier: MIT */
/* ompt_reader.c: the collector's end of the libpmompt.so socket and the decoder of its batches. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ompt_reader.h"

/* Processes whose drop counts are kept apart; more are summed into the last slot. */
#define MAX_PIDS 64

struct pmc_ompt {
	int fd, child_fd;
	struct pmc_ompt_stats st;
	struct { uint32_t pid; uint64_t dropped_records, dropped_batches; } pids[MAX_PIDS];
	unsigned npids;
	struct pmc_ompt_region region; /* decoded here: too large for the stack of a callback chain */
	struct pmc_ompt_object object;
	uint8_t msg[PMOMPT_BATCH_BYTES + 1];
};

int pmc_ompt_open(struct pmc_ompt **out, int sndbuf_bytes, char *why, size_t whysize)
{
	struct pmc_ompt *r = calloc(1, sizeof(*r));
	int sv[2];

	*out = NULL;
	if (!r) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		snprintf(why, whysize, "cannot create the OMPT socket: %s", strerror(errno));
		free(r);
		return -1;
	}
	r->fd = sv[0];
	r->child_fd = sv[1];
	/* AF_UNIX: the writer's send buffer bounds what is queued. Best effort: the default (about
	 * 200 KiB) works too, with more drops under bursts. */
	if (sndbuf_bytes > 0 &&
	    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf_bytes, sizeof(sndbuf_bytes)))
		setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sndbuf_bytes, sizeof(sndbuf_bytes));
	*out = r;
	return 0;
}

int pmc_ompt_child_fd(const struct pmc_ompt *r)
{
	return r->child_fd;
}

int pmc_ompt_env(const struct pmc_ompt *r, const char *tool_path, char *fd_var, size_t fd_size,
		 char *lib_var, size_t lib_size)
{
	int n = snprintf(fd_var, fd_size, "%s=%d", PMOMPT_ENV_FD, r->child_fd);
	int m = snprintf(lib_var, lib_size, "OMP_TOOL_LIBRARIES=%s", tool_path);

	return n < 0 || (size_t)n >= fd_size || m < 0 || (size_t)m >= lib_size ? -1 : 0;
}

void pmc_ompt_after_fork(struct pmc_ompt *r)
{
	if (r->child_fd >= 0)
		close(r->child_fd);
	r->child_fd = -1;
}

int pmc_ompt_fd(const struct pmc_ompt *r)
{
	return r->fd;
}

void pmc_ompt_stats(const struct pmc_ompt *r, struct pmc_ompt_stats *out)
{
	*out = r->st;
	out->dropped_records = out->dropped_batches = 0;
	for (unsigned i = 0; i < r->npids; i++) {
		out->dropped_records += r->pids[i].dropped_records;
		out->dropped_batches += r->pids[i].dropped_batches;
	}
}

/* The tool's cumulative drop counts for pid: keep the largest (batches can arrive out of order). */
static void note_dropped(struct pmc_ompt *r, uint32_t pid, uint64_t records, uint64_t batches)
{
	unsigned i;

	for (i = 0; i < r->npids && r->pids[i].pid != pid; i++)
		;
	if (i == r->npids) {
		if (r->npids == MAX_PIDS)
			i = MAX_PIDS - 1; /* overflow slot: a lower bound */
		else
			r->pids[r->npids++].pid = pid;
	}
	if (records > r->pids[i].dropped_records)
		r->pids[i].dropped_records = records;
	if (batches > r->pids[i].dropped_batches)
		r->pids[i].dropped_batches = batches;
}

/* The j-th continuation record (TIDS or NAME) of a record announcing total items, per per record:
 * how many items it holds, or -1 when its type or count is not the expected one. */
static int continuation(const uint8_t *t, uint16_t type, uint32_t total, uint32_t j, uint32_t per)
{
	uint32_t m = total - j * per;

	if (m > per)
		m = per;
	return pmompt_get16(t, 0) == type && pmompt_get16(t, 2) == m ? (int)m : -1;
}

/* One pass over a batch: with emit 0 it only checks the structure, with emit 1 it calls h (the
 * batch is then known to be well formed). Returns 0 or -1 (malformed). */
static int walk(struct pmc_ompt *r, const uint8_t *msg, size_t len, const struct pmc_ompt_handlers *h,
		void *ctx, int emit)
{
	size_t nrec = len / PMOMPT_RECORD_BYTES, i;
	uint32_t pid;

	if (len % PMOMPT_RECORD_BYTES || nrec < 2 || pmompt_get16(msg, 0) != PMOMPT_BATCH ||
	    pmompt_get16(msg, 2) != nrec - 1)
		return -1;
	pid = pmompt_get32(msg, 32);
	for (i = 1; i < nrec; i++) {
		const uint8_t *p = msg + i * PMOMPT_RECORD_BYTES;
		uint16_t type = pmompt_get16(p, 0), aux = pmompt_get16(p, 2);

		switch (type) {
		case PMOMPT_HELLO:
			if (emit && h->hello) {
				char version[41];

				memcpy(version, p + 24, 40);
				version[40] = 0;
				h->hello(ctx, pmompt_get32(p, 4), pmompt_get64(p, 8), version);
			}
			break;
		case PMOMPT_REGION: {
			struct pmc_ompt_region *g = &r->region;
			uint32_t n = pmompt_get32(p, 60), k = (n + PMOMPT_TIDS_PER_RECORD - 1) / PMOMPT_TIDS_PER_RECORD;

			if (n > PMOMPT_MAX_TIDS || i + k > nrec - 1)
				return -1;
			g->pid = pid;
			g->flags = aux;
			g->depth = pmompt_get32(p, 4);
			g->id = pmompt_get64(p, 8);
			g->parent_id = pmompt_get64(p, 16);
			g->codeptr_ra = pmompt_get64(p, 24);
			g->begin_ns = pmompt_get64(p, 32);
			g->end_ns = pmompt_get64(p, 40);
			g->requested_team = pmompt_get32(p, 48);
			g->actual_team = pmompt_get32(p, 52);
			g->encountering_tid = pmompt_get32(p, 56);
			g->n_tids = n;
			if (g->end_ns < g->begin_ns)
				return -1;
			for (uint32_t j = 0; j < k; j++) {
				const uint8_t *t = p + (size_t)(1 + j) * PMOMPT_RECORD_BYTES;
				int m = continuation(t, PMOMPT_TIDS, n, j, PMOMPT_TIDS_PER_RECORD);

				if (m < 0)
					return -1;
				for (int x = 0; x < m; x++)
					g->tids[j * PMOMPT_TIDS_PER_RECORD + x] = pmompt_get32(t, 4 + 4 * x);
			}
			i += k;
			if (emit) {
				r->st.regions++;
				if (h->region)
					h->region(ctx, g);
			}
			break;
		}
		case PMOMPT_THREAD:
			if (emit && h->thread)
				h->thread(ctx, pid, pmompt_get32(p, 4), aux, pmompt_get64(p, 8));
			break;
		case PMOMPT_OBJECT: {
			struct pmc_ompt_object *o = &r->object;
			uint32_t k = (aux + PMOMPT_NAME_PER_RECORD - 1) / PMOMPT_NAME_PER_RECORD;

			if (aux > PMOMPT_MAX_NAME_BYTES || p[4] > PMOMPT_MAX_BUILD_ID_BYTES || i + k > nrec - 1)
				return -1;
			o->pid = pid;
			o->build_id_bytes = p[4];
			o->name_cut = p[5] & PMOMPT_OBJECT_NAME_CUT;
			o->load_addr = pmompt_get64(p, 8);
			memcpy(o->build_id, p + 16, PMOMPT_MAX_BUILD_ID_BYTES);
			for (uint32_t j = 0; j < k; j++) {
				const uint8_t *t = p + (size_t)(1 + j) * PMOMPT_RECORD_BYTES;
				int m = continuation(t, PMOMPT_NAME, aux, j, PMOMPT_NAME_PER_RECORD);

				if (m < 0)
					return -1;
				memcpy(o->path + j * PMOMPT_NAME_PER_RECORD, t + 4, (size_t)m);
			}
			o->path[aux] = 0;
			i += k;
			if (emit) {
				r->st.objects++;
				if (h->object)
					h->object(ctx, o);
			}
			break;
		}
		case PMOMPT_END:
			if (emit) {
				r->st.processes_ended++;
				note_dropped(r, pid, pmompt_get64(p, 24), pmompt_get64(p, 32));
				if (h->end)
					h->end(ctx, pmompt_get32(p, 4), pmompt_get64(p, 8), pmompt_get64(p, 16),
					       pmompt_get64(p, 40));
			}
			break;
		case PMOMPT_COUNTER_SETUP:
			if (aux > PMOMPT_MAX_EVENTS)
				return -1;
			if (emit && h->counter_setup) {
				char reason[PMOMPT_SETUP_REASON_BYTES + 1];

				memcpy(reason, p + 8, PMOMPT_SETUP_REASON_BYTES);
				reason[PMOMPT_SETUP_REASON_BYTES] = 0;
				h->counter_setup(ctx, pid, aux, (int32_t)pmompt_get32(p, 4), reason);
			}
			break;
		case PMOMPT_COUNTERS:
			if (!aux || aux > PMOMPT_MAX_EVENTS)
				return -1;
			if (emit) {
				struct pmc_ompt_counters c = {.pid = pid, .tid = pmompt_get32(p, 4),
							      .region_id = pmompt_get64(p, 8), .n_events = aux};

				for (unsigned k = 0; k < aux; k++)
					c.values[k] = (int64_t)pmompt_get64(p, 16 + 8 * k);
				r->st.counter_records++;
				if (h->counters)
					h->counters(ctx, &c);
			}
			break;
		default:
			/* BATCH inside a batch, a stray TIDS or NAME, a type from a newer tool: the
			 * records are fixed-size, but without the version's rules we cannot tell what
			 * else in the batch depends on it, so the batch goes */
			return -1;
		}
	}
	if (emit) {
		r->st.batches++;
		r->st.records += nrec - 1;
		note_dropped(r, pid, pmompt_get64(msg, 16), pmompt_get64(msg, 24));
	}
	return 0;
}

int pmc_ompt_decode(struct pmc_ompt *r, const uint8_t *msg, size_t len,
		    const struct pmc_ompt_handlers *h, void *ctx)
{
	if (len > PMOMPT_BATCH_BYTES || walk(r, msg, len, h, ctx, 0)) {
		r->st.bad_batches++;
		return -1;
	}
	return walk(r, msg, len, h, ctx, 1);
}

int pmc_ompt_read(struct pmc_ompt *r, const struct pmc_ompt_handlers *h, void *ctx, char *why,
		  size_t whysize)
{
	int batches = 0;

	while (batches < PMC_OMPT_READ_MAX_BATCHES) {
		/* one more byte than a batch: a longer message shows up as MSG_TRUNC */
		ssize_t n = recv(r->fd, r->msg, sizeof(r->msg), MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return batches;
			snprintf(why, whysize, "cannot read the OMPT socket: %s", strerror(errno));
			return -1;
		}
		if (n == 0) {
			/* SOCK_SEQPACKET: 0 is end of file (an empty message cannot be sent by the
			 * tool; a zero-length one would be malformed anyway) */
			r->st.eof = 1;
			return batches;
		}
		batches++;
		pmc_ompt_decode(r, r->msg, (size_t)n > PMOMPT_BATCH_BYTES ? PMOMPT_BATCH_BYTES + 1 : (size_t)n,
				h, ctx);
	}
	return batches;
}

void pmc_ompt_close(struct pmc_ompt *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	if (r->child_fd >= 0)
		close(r->child_fd);
	free(r);
}
