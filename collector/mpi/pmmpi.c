/* SPDX-License-Identifier: MIT */
/* pmmpi.c: libpmmpi.so, the PMPI preload library of `pmcollect --mpi`: defines the blocking MPI
 * calls, times each around its PMPI_ twin, and at exit writes per thread and
 * call the number of calls and the ns spent inside them for pmcollect (pmmpi.h).
 *
 * The MPI standard's profiling interface (MPI-3.1 §14.2) lets a library define MPI_X and forward
 * to PMPI_X; mpiP and Scalasca measure time in MPI this way. Loaded with LD_PRELOAD, the library's
 * definitions come before libmpi's in the symbol lookup order of a dynamically linked program, so
 * the program is not recompiled. Only the MPI_ symbols are exported (-fvisibility=hidden).
 *
 * CPU time inside a call tells a polling wait (Open MPI's and MPICH's default) from a blocking one,
 * but the thread's CPU clock is a system call here (1.9 us on the project's VM, against 75 ns for
 * CLOCK_MONOTONIC through the vDSO: docs/performance.md). So it is read around every call
 * except in a run of short ones: after PMMPI_SHORT_STREAK calls of one kind in a row on a thread
 * each shorter than PMMPI_LONG_NS, the next of that kind reads only CLOCK_MONOTONIC, until one is
 * long. A call not read that was short counts its wall time as CPU (it returned before the
 * scheduler would have moved it off its CPU). One not read that turned out long (a miss, counted)
 * counts its wall time times the thread's measured CPU/wall ratio of its long calls so far (1
 * before any), so a loaded machine's waits are not taken for polling.
 *
 * Aggregates, not intervals: a call predicted short costs two vDSO clock reads and a few adds to a
 * table of the calling thread (no lock, no I/O: docs/performance.md has the measured cost); the table of
 * 31 calls per thread goes out once. Recording each call's interval would ship 24 bytes per call
 * (a rank doing 10^6 small messages a second: 24 MB/s), for a split (MPI vs computation per
 * rank, per call) the aggregates already give. */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pmmpi.h"

#define EXPORT __attribute__((visibility("default")))

/* The calls timed: every call that can block the caller (collectives, waits, blocking
 * point-to-point, probe) and the two that bracket the job. */
#define PMMPI_CALLS(X)                                                                           \
	X(Init) X(Init_thread) X(Finalize) X(Barrier) X(Bcast) X(Reduce) X(Allreduce) X(Gather)   \
	X(Gatherv) X(Scatter) X(Scatterv) X(Allgather) X(Allgatherv) X(Alltoall) X(Alltoallv)     \
	X(Reduce_scatter) X(Reduce_scatter_block) X(Scan) X(Exscan) X(Wait) X(Waitall) X(Waitany) \
	X(Waitsome) X(Send) X(Ssend) X(Bsend) X(Rsend) X(Recv) X(Sendrecv) X(Sendrecv_replace)    \
	X(Probe)

/* A call of at least this wall time is long: the next of its kind on the thread reads the CPU
 * clock (two system calls, under 8% of such a call). */
#define PMMPI_LONG_NS 50000u
#define PMMPI_SHORT_STREAK 8

enum pmmpi_call {
#define ID(name) CALL_##name,
	PMMPI_CALLS(ID)
#undef ID
	NCALLS
};

static const char *const call_names[NCALLS] = {
#define NAME(name) "MPI_" #name,
	PMMPI_CALLS(NAME)
#undef NAME
};

/* One thread's table: allocated at its first wrapped call, never freed (the file is written at
 * exit, after the thread may have ended), linked into a list the writer walks. */
struct thread_table {
	long tid;
	uint64_t count[NCALLS];
	uint64_t ns[NCALLS];
	uint64_t cpu_ns[NCALLS];
	uint64_t missed[NCALLS];  /* long calls predicted short: CPU counted as their wall time */
	unsigned char streak[NCALLS];     /* short calls of this kind in a row, up to the streak */
	uint64_t long_ns, long_cpu_ns;    /* wall and CPU of the measured long calls (any kind) */
	struct thread_table *next;
};

static _Atomic(struct thread_table *) tables;
/* initial-exec: the library is loaded at start (LD_PRELOAD), so its TLS is static: no
 * __tls_get_addr call per MPI call */
static __thread struct thread_table *self __attribute__((tls_model("initial-exec")));
static int world_rank = -1, world_size = -1;
static uint64_t init_end_ns, finalize_begin_ns;
static atomic_int written;

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* The calling thread's table, NULL when out of memory (the call is then not counted). */
static struct thread_table *table(void)
{
	struct thread_table *t = self;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = (long)syscall(SYS_gettid);
	t->next = atomic_load(&tables);
	while (!atomic_compare_exchange_weak(&tables, &t->next, t))
		;
	self = t;
	return t;
}

/* At a call's start: 1 when the thread's CPU clock is to be read around it (predicted long). */
static int predict_long(enum pmmpi_call id)
{
	struct thread_table *t = table();

	return !t || t->streak[id] < PMMPI_SHORT_STREAK;
}

/* The thread's CPU clock when cpu is set, else 0. */
static uint64_t cpu_now_ns(int cpu)
{
	return cpu ? clock_ns(CLOCK_THREAD_CPUTIME_ID) : 0;
}

/* Adds one call that began at t0_ns (CLOCK_MONOTONIC) and, when cpu, c0_ns (the thread's CPU
 * clock), and predicts the next of its kind. */
static void account(enum pmmpi_call id, uint64_t t0_ns, int cpu, uint64_t c0_ns)
{
	/* the CPU clock before the wall clock: the wall time covers the library's own reads (a
	 * system call can be where a loaded machine preempts the thread), as the program sees it */
	uint64_t c1_ns = cpu_now_ns(cpu), t1_ns = now_ns(), wall_ns = t1_ns - t0_ns;
	struct thread_table *t = table();

	if (!t)
		return;
	t->count[id]++;
	t->ns[id] += wall_ns;
	if (cpu && wall_ns >= PMMPI_LONG_NS) {
		t->long_ns += wall_ns;
		t->long_cpu_ns += c1_ns - c0_ns;
	}
	if (cpu)
		t->cpu_ns[id] += c1_ns - c0_ns;
	else if (wall_ns < PMMPI_LONG_NS || !t->long_ns)
		t->cpu_ns[id] += wall_ns;
	else
		t->cpu_ns[id] += (uint64_t)((double)wall_ns * (double)t->long_cpu_ns / (double)t->long_ns);
	t->missed[id] += !cpu && wall_ns >= PMMPI_LONG_NS;
	if (wall_ns >= PMMPI_LONG_NS)
		t->streak[id] = 0;
	else if (t->streak[id] < PMMPI_SHORT_STREAK)
		t->streak[id]++;
}

/* Writes PMT_MPI_DIR/pmmpi.<pid> once (pmmpi.h). Errors are silent: the program must not notice
 * the library, and pmcollect reports a rank without a file. */
static void write_file(void)
{
	const char *dir = getenv(PMMPI_ENV_DIR);
	char path[4096];
	FILE *f;
	int fd;

	/* a process that never called MPI (a shell between pmcollect and the program) leaves none */
	if (!dir || !*dir || (!init_end_ns && !atomic_load(&tables)) || atomic_exchange(&written, 1))
		return;
	if (snprintf(path, sizeof(path), "%s/" PMMPI_FILE_PREFIX "%ld", dir, (long)getpid()) >=
	    (int)sizeof(path))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return;
	}
	fprintf(f, "pmmpi %d\nprocess %ld %d %d\nspan %llu %llu\n", PMMPI_VERSION, (long)getpid(),
		world_rank, world_size, (unsigned long long)init_end_ns,
		(unsigned long long)finalize_begin_ns);
	for (struct thread_table *t = atomic_load(&tables); t; t = t->next)
		for (int i = 0; i < NCALLS; i++)
			if (t->count[i])
				fprintf(f, "call %ld %s %llu %llu %llu %llu\n", t->tid,
					call_names[i], (unsigned long long)t->count[i],
					(unsigned long long)t->ns[i], (unsigned long long)t->cpu_ns[i],
					(unsigned long long)t->missed[i]);
	fputs("end\n", f);
	fclose(f);
}

/* At exit (normal exit or return from main, with or without MPI_Finalize). */
__attribute__((destructor)) static void at_exit(void)
{
	write_file();
}

static void after_init(void)
{
	init_end_ns = now_ns();
	PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
}

/* Times one call: rc = PMPI_<name>(args), accounted to CALL_<name>. */
#define TIMED(name, call)                                      \
	do {                                                   \
		uint64_t t0_ns_ = now_ns();                    \
		int cpu_ = predict_long(CALL_##name);          \
		uint64_t c0_ns_ = cpu_now_ns(cpu_);            \
		int rc_ = (call);                              \
		account(CALL_##name, t0_ns_, cpu_, c0_ns_);    \
		return rc_;                                    \
	} while (0)

EXPORT int MPI_Init(int *argc, char ***argv)
{
	uint64_t t0_ns = now_ns(), c0_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	int rc = PMPI_Init(argc, argv);

	account(CALL_Init, t0_ns, 1, c0_ns);
	if (rc == MPI_SUCCESS)
		after_init();
	return rc;
}

EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	uint64_t t0_ns = now_ns(), c0_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	int rc = PMPI_Init_thread(argc, argv, required, provided);

	account(CALL_Init_thread, t0_ns, 1, c0_ns);
	if (rc == MPI_SUCCESS)
		after_init();
	return rc;
}

EXPORT int MPI_Finalize(void)
{
	uint64_t t0_ns = now_ns(), c0_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	int rc;

	finalize_begin_ns = t0_ns;
	rc = PMPI_Finalize();
	account(CALL_Finalize, t0_ns, 1, c0_ns);
	/* the file is written at exit (at_exit), not here: writing it takes milliseconds on a busy
	 * machine, which the program would see as time inside MPI_Finalize that no table counts */
	return rc;
}

EXPORT int MPI_Barrier(MPI_Comm comm)
{
	TIMED(Barrier, PMPI_Barrier(comm));
}

EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	TIMED(Bcast, PMPI_Bcast(buf, count, type, root, comm));
}

EXPORT int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
		      int root, MPI_Comm comm)
{
	TIMED(Reduce, PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm));
}

EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
			 MPI_Comm comm)
{
	TIMED(Allreduce, PMPI_Allreduce(sbuf, rbuf, count, type, op, comm));
}

EXPORT int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
		      MPI_Datatype rtype, int root, MPI_Comm comm)
{
	TIMED(Gather, PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
}

EXPORT int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		       const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
		       MPI_Comm comm)
{
	TIMED(Gatherv, PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm));
}

EXPORT int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
		       MPI_Datatype rtype, int root, MPI_Comm comm)
{
	TIMED(Scatter, PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
}

EXPORT int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
			MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
			MPI_Comm comm)
{
	TIMED(Scatterv,
	      PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm));
}

EXPORT int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
			 MPI_Datatype rtype, MPI_Comm comm)
{
	TIMED(Allgather, PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}

EXPORT int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
			  const int rcounts[], const int displs[], MPI_Datatype rtype,
			  MPI_Comm comm)
{
	TIMED(Allgatherv,
	      PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm));
}

EXPORT int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
			MPI_Datatype rtype, MPI_Comm comm)
{
	TIMED(Alltoall, PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}

EXPORT int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
			 MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[],
			 MPI_Datatype rtype, MPI_Comm comm)
{
	TIMED(Alltoallv, PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls,
					rtype, comm));
}

EXPORT int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type,
			      MPI_Op op, MPI_Comm comm)
{
	TIMED(Reduce_scatter, PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm));
}

EXPORT int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type,
				    MPI_Op op, MPI_Comm comm)
{
	TIMED(Reduce_scatter_block, PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm));
}

EXPORT int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
		    MPI_Comm comm)
{
	TIMED(Scan, PMPI_Scan(sbuf, rbuf, count, type, op, comm));
}

EXPORT int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
		      MPI_Comm comm)
{
	TIMED(Exscan, PMPI_Exscan(sbuf, rbuf, count, type, op, comm));
}

EXPORT int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	TIMED(Wait, PMPI_Wait(req, status));
}

EXPORT int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
	TIMED(Waitall, PMPI_Waitall(n, reqs, statuses));
}

EXPORT int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
	TIMED(Waitany, PMPI_Waitany(n, reqs, index, status));
}

EXPORT int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[],
			MPI_Status statuses[])
{
	TIMED(Waitsome, PMPI_Waitsome(n, reqs, outcount, indices, statuses));
}

EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
		    MPI_Comm comm)
{
	TIMED(Send, PMPI_Send(buf, count, type, dest, tag, comm));
}

EXPORT int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
		     MPI_Comm comm)
{
	TIMED(Ssend, PMPI_Ssend(buf, count, type, dest, tag, comm));
}

EXPORT int MPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
		     MPI_Comm comm)
{
	TIMED(Bsend, PMPI_Bsend(buf, count, type, dest, tag, comm));
}

EXPORT int MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
		     MPI_Comm comm)
{
	TIMED(Rsend, PMPI_Rsend(buf, count, type, dest, tag, comm));
}

EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
		    MPI_Status *status)
{
	TIMED(Recv, PMPI_Recv(buf, count, type, source, tag, comm, status));
}

EXPORT int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
			void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
			MPI_Comm comm, MPI_Status *status)
{
	TIMED(Sendrecv, PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source,
				      rtag, comm, status));
}

EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag,
				int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
	TIMED(Sendrecv_replace,
	      PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, status));
}

EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	TIMED(Probe, PMPI_Probe(source, tag, comm, status));
}
