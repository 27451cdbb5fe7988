// SPDX-License-Identifier: MIT
// Test workload: the shape of NPB IS: integer sort by buckets with a prefix sum, OpenMP.

/*
 * Usage: omp_is [LOG2KEYS [ITERS]]   [23 4]
 *
 * 2^LOG2KEYS keys in [0, 2^19) (the sum of four uniform draws, as NPB IS's), sorted ITERS times
 * (one key changed per iteration, as NPB IS does): each thread counts its share of the keys into
 * its own 1024 bucket counts, a prefix sum over threads and buckets gives each thread its slots,
 * the threads scatter their keys into the buckets (writes all over the array), then each thread
 * ranks the keys of its buckets by a counting sort. Each step is a `#pragma omp for
 * schedule(static)` ending in a barrier. No schedule truth; the last line of stdout is
 * {"workload":"omp_is", ...} with "sorted":true when the final keys are in order.
 */

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "omp_is"
#include "workload.h"

#define MAX_KEY_LOG2 19
#define BUCKETS_LOG2 10
#define MAX_TEAM 256

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [LOG2KEYS [ITERS]]   (log2 of the key count [23], iterations [4])\n");
}

int main(int argc, char **argv)
{
	long lg = 23, iters = 4, nkeys;
	const int shift = MAX_KEY_LOG2 - BUCKETS_LOG2, nb = 1 << BUCKETS_LOG2;
	int *key, *key2, *rank;
	long *count, *start;
	int team = 1, sorted = 1;
	int64_t t0;

	if (argc > 3 || (argc > 1 && parse_long(argv[1], 10, 28, &lg)))
		return usage_error("invalid LOG2KEYS", argc > 1 ? argv[1] : "");
	if (argc > 2 && parse_long(argv[2], 1, 100000, &iters))
		return usage_error("invalid ITERS", argv[2]);
	nkeys = 1L << lg;
	key = malloc((size_t)nkeys * sizeof(*key));
	key2 = malloc((size_t)nkeys * sizeof(*key2));
	rank = malloc((size_t)nkeys * sizeof(*rank));
	count = calloc((size_t)MAX_TEAM * nb, sizeof(*count));
	start = calloc((size_t)MAX_TEAM * nb, sizeof(*start));
	if (!key || !key2 || !rank || !count || !start) {
		fprintf(stderr, PROG ": error: out of memory\n");
		return 1;
	}
	{
		uint64_t x = 314159265ull;
		for (long i = 0; i < nkeys; i++) {
			int s = 0;
			for (int k = 0; k < 4; k++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				s += (int)(x % (1u << (MAX_KEY_LOG2 - 2)));
			}
			key[i] = s;
		}
	}
	t0 = mono_ns();
#pragma omp parallel
	{
		int id = omp_get_thread_num();
#pragma omp single
		team = omp_get_num_threads() < MAX_TEAM ? omp_get_num_threads() : MAX_TEAM;
		for (long it = 0; it < iters && id < team; it++) {
			long *my = count + (size_t)id * nb;
#pragma omp single
			{
				key[it] = (int)it, key[it + iters] = (1 << MAX_KEY_LOG2) - 1 - (int)it;
			}
			memset(my, 0, (size_t)nb * sizeof(*my));
#pragma omp for schedule(static)
			for (long i = 0; i < nkeys; i++)
				my[key[i] >> shift]++;
#pragma omp single
			{ /* prefix sum over buckets, then threads: each thread's slots per bucket */
				long s = 0;
				for (int bkt = 0; bkt < nb; bkt++)
					for (int t = 0; t < team; t++) {
						start[(size_t)t * nb + bkt] = s;
						s += count[(size_t)t * nb + bkt];
					}
			}
			{
				long *pos = start + (size_t)id * nb;
#pragma omp for schedule(static)
				for (long i = 0; i < nkeys; i++)
					key2[pos[key[i] >> shift]++] = key[i];
			}
#pragma omp for schedule(static)
			for (int bkt = 0; bkt < nb; bkt++) { /* counting sort within the bucket */
				long lo = bkt == 0 ? 0 : start[(size_t)(team - 1) * nb + bkt - 1];
				long hi = start[(size_t)(team - 1) * nb + bkt];
				int cnt[1 << (MAX_KEY_LOG2 - BUCKETS_LOG2)] = { 0 };
				for (long i = lo; i < hi; i++)
					cnt[key2[i] & ((1 << shift) - 1)]++;
				for (int k = 0, s = (int)lo; k < (1 << shift); k++) {
					int c = cnt[k];
					cnt[k] = s, s += c;
				}
				for (long i = lo; i < hi; i++)
					rank[cnt[key2[i] & ((1 << shift) - 1)]++] = key2[i];
			}
		}
	}
	for (long i = 1; i < nkeys; i++)
		sorted &= rank[i - 1] <= rank[i];
	printf("{\"workload\":\"omp_is\",\"m\":%d,\"keys\":%ld,\"iters\":%ld,\"sorted\":%s,"
	       "\"wall_ms\":%.3f,\"program\":\"" PROG "\"}\n", omp_get_max_threads(), nkeys, iters,
	       sorted ? "true" : "false", (double)(mono_ns() - t0) / 1e6);
	return sorted ? 0 : 1;
}
