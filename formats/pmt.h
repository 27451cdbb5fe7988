/* SPDX-License-Identifier: MIT */
/* pmt.h: the pmtrace file format (formats/FORMAT.md): a chunked, zstd-compressed writer and a
 * streaming reader shared by pmcollect and pmanalyze. The library never prints and never exits. */
#ifndef PMT_H
#define PMT_H

#include <stddef.h>
#include <stdint.h>

/* The version the writer writes (FORMAT.md). Readers read majors 1 and 2 (PMT_FORMAT_MAJOR_MIN). */
#define PMT_FORMAT_MAJOR 2
#define PMT_FORMAT_MINOR 0
#define PMT_FORMAT_MAJOR_MIN 1

/* Hard limits a reader enforces before allocating (FORMAT.md §7). */
#define PMT_MAX_CHUNK_BYTES   (64u << 20) /* compressed or uncompressed size of one chunk */
#define PMT_MAX_JSON_BYTES    (16u << 20) /* body of one JSON record */
#define PMT_MAX_SAMPLE_THREADS 1000000u   /* thread entries in one sample record */
#define PMT_MAX_COUNTERS      64u         /* values in one counter record */
#define PMT_COMM_MAX          64u         /* bytes of a comm/exe name in a task record */
#define PMT_MAX_SCHED_EVENTS  1000000u    /* events in one scheduler-event record */
#define PMT_MAX_OMP_TIDS      256u        /* team tids in one OpenMP region record */
#define PMT_MAX_ENERGY_ZONES  64u         /* zones in one energy record */
#define PMT_MAX_OMP_EVENTS    16u         /* counter values in one OpenMP task-counters record */

/* Error codes: every function returns 0 (or a count) on success, a negative PMT_E_* on failure. */
enum pmt_error {
	PMT_OK = 0,
	PMT_E_IO = -1,          /* read/write/open failed; see pmt_*_errno() for errno */
	PMT_E_NOMEM = -2,       /* allocation failed */
	PMT_E_NOT_TRACE = -3,   /* the file does not start with the pmtrace magic */
	PMT_E_VERSION = -4,     /* major version this reader does not know */
	PMT_E_CORRUPT = -5,     /* checksum mismatch, bad chunk header or malformed record */
	PMT_E_TRUNCATED = -6,   /* the file ends inside the file header or the first chunk */
	PMT_E_UNKNOWN = -7,     /* a required record type this reader does not know */
	PMT_E_LIMIT = -8,       /* a size field exceeds a hard limit above */
	PMT_E_INVAL = -9,       /* bad argument from the caller */
	PMT_E_ZSTD = -10,       /* zstd failed to compress or decompress */
	PMT_E_NO_META = -11,    /* the first record is not a metadata record */
};

/* Returns a static English description of a PMT_E_* code ("unknown error" otherwise). */
const char *pmt_strerror(int err);

/* After a reader function returned PMT_E_LIMIT: the field, its value and the limit, as
 * "SAMPLE n 2000000 > 1000000" (FORMAT.md §7 names). Thread-local, like errno, so it also
 * explains a failed pmt_reader_open(); valid until the next limit error of the thread. */
const char *pmt_limit_detail(void);

/* Record types (u16). Bit 15 set = optional: a reader that does not know the type skips it.
 * Bit 15 clear = required: a reader that does not know it stops with PMT_E_UNKNOWN. */
enum pmt_record_type {
	PMT_REC_META = 0x0001,      /* JSON: the trace metadata; first record of the first chunk */
	PMT_REC_RUN_BEGIN = 0x0002, /* JSON: one run of the program starts (run_id, argv, cpus, ...) */
	PMT_REC_RUN_END = 0x0003,   /* JSON: the run ended (exit status, rusage of the tree) */
	PMT_REC_SAMPLE = 0x0004,    /* binary: one sampling instant, one entry per live thread */
	PMT_REC_TASK = 0x0005,      /* binary: thread/process lifecycle event */
	PMT_REC_COUNTERS = 0x0006,  /* binary: hardware-counter snapshot of a run's process tree */
	PMT_REC_SUMMARY = 0x0007,   /* JSON: end of trace (collector CPU time, samples, lost, status) */
	PMT_REC_WARNING = 0x8001,   /* JSON, optional: a warning raised while recording */
	PMT_REC_SCHED = 0x8002,     /* binary, optional (1.1): scheduler events of one CPU's buffer */
	PMT_REC_OMP_REGION = 0x8004, /* binary, optional (1.2): one OpenMP parallel region instance */
	PMT_REC_ENERGY = 0x8003,    /* binary, optional (1.2): energy of the machine's zones so far */
	PMT_REC_OMP_COUNTERS = 0x8005, /* binary, optional (1.3): one thread's counter deltas over
					  its implicit task of an OpenMP region */
	PMT_REC_PSWITCH = 0x8006,   /* binary, optional: the program's context switches from
				       perf_event_open (PERF_RECORD_SWITCH), one CPU's buffer */
};
#define PMT_REC_OPTIONAL_BIT 0x8000u

/* One thread at one sampling instant. Sources: /proc/<tgid>/task/<tid>/schedstat (run_ns =
 * field 1, time on CPU; wait_ns = field 2, time on a run queue; timeslices = field 3),
 * /proc/<tgid>/task/<tid>/stat (state = field 3, cpu = field 39 "processor"),
 * /proc/<tgid>/task/<tid>/status (voluntary_ctxt_switches, nonvoluntary_ctxt_switches).
 * stat and status cost 4x and 10x a schedstat read, so the collector refreshes them less often;
 * flags say which fields were read at this instant and which are carried from an earlier read. */
struct pmt_thread_sample {
	uint32_t tid;
	uint32_t tgid;
	uint64_t run_ns;      /* cumulative, ns */
	uint64_t wait_ns;     /* cumulative, ns */
	uint64_t timeslices;  /* cumulative count */
	uint32_t nvcsw;       /* cumulative voluntary context switches */
	uint32_t nivcsw;      /* cumulative involuntary context switches */
	uint16_t cpu;         /* last CPU; PMT_CPU_UNKNOWN when never read */
	char state;           /* proc(5) stat field 3: 'R','S','D','Z','T','t','X','I'; '?' unknown */
	uint8_t flags;        /* PMT_TS_* */
};
#define PMT_CPU_UNKNOWN 0xFFFFu
#define PMT_TS_STAT_FRESH 0x01u   /* state and cpu were read at this instant */
#define PMT_TS_STATUS_FRESH 0x02u /* nvcsw and nivcsw were read at this instant */
#define PMT_TS_SCHEDSTAT_OK 0x04u /* run_ns/wait_ns/timeslices read at this instant */

/* A sampling instant. t_ns: CLOCK_MONOTONIC when the sample started; duration_ns: how long reading
 * it took; the entries are the threads of run run_id alive at that instant. */
struct pmt_sample {
	uint32_t run_id;
	uint64_t t_ns;
	uint32_t duration_ns;
	uint32_t n;
	const struct pmt_thread_sample *threads; /* n entries; owned by the caller (writer) / reader */
};

enum pmt_task_event_kind {
	PMT_TASK_APPEAR = 1, /* first seen (thread or process) */
	PMT_TASK_EXIT = 2,   /* gone; final_* fields valid when PMT_TASKF_FINAL is set */
	PMT_TASK_EXEC = 3,   /* the process exec'd; comm is the new name */
};
#define PMT_TASKF_FINAL 0x01u     /* final_run_ns/final_wait_ns are exact exit values */
#define PMT_TASKF_PROCESS 0x02u   /* the task is a thread-group leader (a process) */
#define PMT_TASKF_STATUS 0x04u    /* exit_status is valid (raw wait status of a reaped child) */

struct pmt_task_event {
	uint32_t run_id;
	uint64_t t_ns;       /* CLOCK_MONOTONIC when the collector learned of the event */
	uint8_t kind;        /* enum pmt_task_event_kind */
	uint8_t flags;       /* PMT_TASKF_* */
	uint32_t tid;
	uint32_t tgid;
	uint32_t ppid;       /* parent process (tgid of the parent) or 0 when unknown */
	int32_t exit_status; /* raw wait(2) status when PMT_TASKF_STATUS */
	uint64_t final_run_ns;
	uint64_t final_wait_ns;
	uint32_t comm_len;   /* <= PMT_COMM_MAX */
	const char *comm;    /* comm_len bytes, not NUL-terminated in the file; reader NUL-terminates */
};

/* A snapshot of hardware counters summed over run run_id's process tree. values[i] belongs to the
 * i-th event named in the run's RUN_BEGIN "counters.events" list; PMT_COUNTER_INVALID when not read. */
struct pmt_counters {
	uint32_t run_id;
	uint64_t t_ns;
	uint32_t n;             /* <= PMT_MAX_COUNTERS */
	const int64_t *values;
};
#define PMT_COUNTER_INVALID INT64_MIN

/* Scheduler events (FORMAT.md §5.6), decoded from the kernel's tracefs events of the same names
 * (Documentation/trace/events.rst; include/trace/events/sched.h). t_ns is trace_clock "mono",
 * i.e. CLOCK_MONOTONIC like every other time in the file. */
enum pmt_sched_kind {
	PMT_SCHED_SWITCH = 1,     /* sched_switch: a = prev_pid, b = next_pid, c = prev_state letter */
	PMT_SCHED_WAKING = 2,     /* sched_waking: a = wakee pid, b = target_cpu; runs in the waker's
				     context, so common_pid is the waker unless ctx says interrupt */
	PMT_SCHED_WAKEUP = 3,     /* sched_wakeup: a = wakee pid, b = target_cpu */
	PMT_SCHED_WAKEUP_NEW = 4, /* sched_wakeup_new: a = new task's pid, b = target_cpu */
	PMT_SCHED_FORK = 5,       /* sched_process_fork: a = child_pid (common_pid is the parent) */
	PMT_SCHED_EXIT = 6,       /* sched_process_exit: a = pid */
	PMT_SCHED_MIGRATE = 7,    /* sched_migrate_task: a = pid, b = dest_cpu, c = orig_cpu */
};
#define PMT_SCHED_CTX_HARDIRQ 0x01u /* common_flags TRACE_FLAG_HARDIRQ: fired in a hard interrupt */
#define PMT_SCHED_CTX_SOFTIRQ 0x02u /* common_flags TRACE_FLAG_SOFTIRQ */
#define PMT_SCHED_CTX_NMI 0x04u     /* common_flags TRACE_FLAG_NMI */

struct pmt_sched_event {
	uint64_t t_ns;       /* trace_clock mono, ns */
	uint8_t kind;        /* enum pmt_sched_kind */
	uint8_t ctx;         /* PMT_SCHED_CTX_* */
	uint16_t cpu;        /* CPU whose ring buffer held the event */
	uint32_t common_pid; /* task that was current when the event fired */
	uint32_t a, b, c;    /* per kind, see enum pmt_sched_kind */
};

/* A batch of events of one CPU's ring buffer, in time order. missed: events the kernel dropped on
 * that CPU just before this batch (PMT_SCHED_MISSED_UNKNOWN: some, count unknown). */
struct pmt_sched_batch {
	uint32_t run_id;
	uint16_t cpu;
	uint32_t missed;
	uint32_t n;          /* <= PMT_MAX_SCHED_EVENTS */
	const struct pmt_sched_event *events;
};
#define PMT_SCHED_MISSED_UNKNOWN 0xFFFFFFFFu

/* The program's context switches as perf_event_open reports them to an unprivileged user
 * (FORMAT.md §5.10): a PSWITCH record has the layout of a SCHED record (struct pmt_sched_batch,
 * missed = records the kernel reported lost, PERF_RECORD_LOST, just before the batch) with its
 * own kinds. Source: perf_event_open(2), PERF_RECORD_SWITCH, PERF_RECORD_FORK, PERF_RECORD_EXIT;
 * t_ns is the sample_id time with use_clockid CLOCK_MONOTONIC. ctx is 0. */
enum pmt_pswitch_kind {
	PMT_PSWITCH_IN = 1,   /* switch-in: common_pid = tid, a = pid (tgid), b = tid */
	PMT_PSWITCH_OUT = 2,  /* switch-out: as IN, c = 1 when preempted (still runnable,
				 PERF_RECORD_MISC_SWITCH_OUT_PREEMPT), 0 when it blocked */
	PMT_PSWITCH_FORK = 3, /* a task was created: a = pid, b = tid, c = parent tid,
				 common_pid = parent pid */
	PMT_PSWITCH_EXIT = 4, /* a task ended: a = pid, b = tid */
};

/* One OpenMP parallel region instance (FORMAT.md §5.7), as the OMPT tool libpmompt.so reported
 * it (OpenMP 5.0 §4.5.2.3 parallel_begin / parallel_end, §4.5.2.11 implicit_task). Times are
 * CLOCK_MONOTONIC ns like every time in the file. */
struct pmt_omp_region {
	uint32_t run_id;
	uint32_t pid;             /* process that ran the region */
	uint64_t id, parent_id;   /* per-process sequence at parallel_begin; parent 0 at depth 1 */
	uint64_t codeptr_ra;      /* return address of the runtime call in the function holding the
				     construct, an address of process pid (RUN_END "omp_regions.objects"
				     maps it to an object) */
	uint64_t begin_ns, end_ns; /* parallel_begin and parallel_end on the encountering thread */
	uint32_t depth;           /* 1 = outermost */
	uint32_t requested_team;  /* requested_parallelism */
	uint32_t actual_team;     /* actual_parallelism; 0 unknown */
	uint32_t encountering_tid;
	uint16_t flags;           /* PMT_OMP_* */
	uint16_t n_tids;          /* <= PMT_MAX_OMP_TIDS */
	const uint32_t *tids;     /* n_tids team tids by team index (0: not reported) */
};
#define PMT_OMP_TIDS_CUT 0x1u     /* the team had more threads than n_tids */
#define PMT_OMP_TEAM_UNKNOWN 0x2u /* no implicit task reported the team size */
#define PMT_OMP_OPEN 0x4u         /* the program never ended it (killed inside): end_ns is the
				     run's end */
/* One thread's PAPI counter deltas over its implicit task of an OpenMP parallel region (FORMAT.md
 * §5.9): read by the thread itself at implicit_task begin and end (OpenMP 5.0 §4.5.2.11) with
 * PAPI_read, events in the order of RUN_END "omp_regions.counters.events". */
struct pmt_omp_counters {
	uint32_t run_id;
	uint32_t pid, tid;
	uint64_t region_id;       /* the OMP_REGION record's id in process pid */
	uint16_t n;               /* <= PMT_MAX_OMP_EVENTS */
	const int64_t *values;    /* n deltas */
};

/* Energy of the machine's zones (FORMAT.md §5.8): cumulative, wrap-corrected µJ since the run
 * began, per zone in the order of the run's RUN_BEGIN "energy.zones" list. Sources: the Linux
 * powercap sysfs (energy_uj, max_energy_range_uj) or perf's power PMU (count x scale). */
struct pmt_energy {
	uint32_t run_id;
	uint64_t t_ns;
	uint32_t n;               /* <= PMT_MAX_ENERGY_ZONES */
	const uint64_t *energy_uj;
};

/* A JSON record (META, RUN_BEGIN, RUN_END, SUMMARY, WARNING): run_id and t_ns are binary fields in
 * front of the JSON text so a reader can route records without parsing JSON. */
struct pmt_json {
	uint32_t run_id;
	uint64_t t_ns;
	uint32_t len;
	const char *text; /* len bytes; the reader NUL-terminates it */
};

/* A decoded record. Pointers inside stay valid until the next pmt_reader_next() or close. */
struct pmt_record {
	uint16_t type;     /* enum pmt_record_type, or an unknown optional type (see raw) */
	uint32_t chunk_seq; /* sequence number of the chunk the record came from */
	union {
		struct pmt_json json;       /* META, RUN_BEGIN, RUN_END, SUMMARY, WARNING */
		struct pmt_sample sample;   /* SAMPLE */
		struct pmt_task_event task; /* TASK */
		struct pmt_counters counters; /* COUNTERS */
		struct pmt_sched_batch sched; /* SCHED */
		struct pmt_sched_batch pswitch; /* PSWITCH (enum pmt_pswitch_kind) */
		struct pmt_omp_region omp;  /* OMP_REGION */
		struct pmt_energy energy;   /* ENERGY */
		struct pmt_omp_counters omp_counters; /* OMP_COUNTERS */
		struct {
			uint32_t len;
			const uint8_t *body;
		} raw;                      /* unknown optional types, returned only with PMT_READ_RAW */
	} u;
};

/* ---- writer ---- */

struct pmt_writer;

struct pmt_writer_opts {
	int zstd_level;          /* 0 = default (3) */
	uint32_t chunk_bytes;    /* uncompressed bytes that trigger a chunk flush; 0 = 1 MiB */
};

/* Creates a writer on an open, writable descriptor fd (not closed by the writer) and writes the
 * file header and a first chunk holding the META record meta_json (NUL-terminated JSON text,
 * <= PMT_MAX_JSON_BYTES). opts may be NULL. On success *out owns the writer.
 * Errors: PMT_E_INVAL, PMT_E_NOMEM, PMT_E_IO (errno kept, see pmt_writer_errno), PMT_E_ZSTD. */
int pmt_writer_open(struct pmt_writer **out, int fd, const char *meta_json,
		    const struct pmt_writer_opts *opts);

/* Appends a record to the current chunk; flushes the chunk when it reaches opts.chunk_bytes.
 * Errors as pmt_writer_open; PMT_E_LIMIT when a field exceeds a limit of §7. After an I/O error the
 * file is cut back to the end of the last complete chunk, so it stays readable. */
int pmt_writer_sample(struct pmt_writer *w, const struct pmt_sample *s);
int pmt_writer_task(struct pmt_writer *w, const struct pmt_task_event *e);
int pmt_writer_counters(struct pmt_writer *w, const struct pmt_counters *c);
int pmt_writer_sched(struct pmt_writer *w, const struct pmt_sched_batch *b);
/* A PSWITCH record: b's events are enum pmt_pswitch_kind, b->missed the lost-record count. */
int pmt_writer_pswitch(struct pmt_writer *w, const struct pmt_sched_batch *b);
int pmt_writer_omp_region(struct pmt_writer *w, const struct pmt_omp_region *o);
int pmt_writer_energy(struct pmt_writer *w, const struct pmt_energy *e);
int pmt_writer_omp_counters(struct pmt_writer *w, const struct pmt_omp_counters *c);
/* type must be a JSON record type; json is NUL-terminated. */
int pmt_writer_json(struct pmt_writer *w, uint16_t type, uint32_t run_id, uint64_t t_ns,
		    const char *json);
/* Appends a record of any type with an opaque body (used by tests and future record types). */
int pmt_writer_raw(struct pmt_writer *w, uint16_t type, const void *body, uint32_t len);

/* Compresses and writes the pending records as one chunk (no-op when none are pending). The
 * collector calls it at least once a second so a killed collector loses at most a second. */
int pmt_writer_flush(struct pmt_writer *w);

/* Bytes written to fd so far (complete chunks and the header). */
uint64_t pmt_writer_bytes(const struct pmt_writer *w);
/* errno of the last PMT_E_IO. */
int pmt_writer_errno(const struct pmt_writer *w);

/* Flushes and frees. Returns the flush result. NULL is accepted. fd is not closed. */
int pmt_writer_close(struct pmt_writer *w);

/* ---- reader ---- */

struct pmt_reader;

#define PMT_READ_SALVAGE 0x01u /* on a bad chunk, scan forward to the next valid chunk instead of
				  stopping with PMT_E_CORRUPT */
#define PMT_READ_RAW 0x02u     /* return unknown optional records (type, raw) instead of skipping */

/* Opens path (or reads fd when path is NULL; fd is not closed), checks the file header and reads
 * the META record. Errors: PMT_E_IO, PMT_E_NOT_TRACE, PMT_E_VERSION, PMT_E_TRUNCATED,
 * PMT_E_CORRUPT, PMT_E_NO_META, PMT_E_LIMIT, PMT_E_NOMEM. */
int pmt_reader_open(struct pmt_reader **out, const char *path, int fd, unsigned flags);

/* The metadata JSON text (NUL-terminated), owned by the reader. */
const char *pmt_reader_meta(const struct pmt_reader *r);
/* Format version found in the file header. */
void pmt_reader_version(const struct pmt_reader *r, unsigned *major, unsigned *minor);

/* Reads the next record into *rec (META is not returned again). Returns 1 when a record was read,
 * 0 at the end of the file, or a negative error: PMT_E_CORRUPT (a bad chunk without
 * PMT_READ_SALVAGE), PMT_E_UNKNOWN, PMT_E_LIMIT, PMT_E_IO, PMT_E_NOMEM. A file that ends inside a
 * chunk is not an error: the complete chunks are returned, then 0, and stats.truncated is set. */
int pmt_reader_next(struct pmt_reader *r, struct pmt_record *rec);

struct pmt_reader_stats {
	uint64_t chunks;          /* chunks decoded */
	uint64_t chunks_bad;      /* chunks rejected (checksum, header, decode) and skipped in salvage */
	uint64_t bytes_skipped;   /* bytes passed over while salvaging */
	uint64_t seq_gaps;        /* chunk sequence numbers missing, repeated or out of order */
	uint64_t records_skipped; /* unknown optional records skipped */
	uint64_t bytes_read;      /* bytes consumed from the file */
	int truncated;            /* the file ends inside a chunk (bytes after the last complete one) */
	int has_summary;          /* a SUMMARY record was returned: the collector finished cleanly */
};
void pmt_reader_stats(const struct pmt_reader *r, struct pmt_reader_stats *st);
int pmt_reader_errno(const struct pmt_reader *r);

/* Frees the reader; closes the descriptor only if it opened it. NULL is accepted. */
void pmt_reader_close(struct pmt_reader *r);

#endif
