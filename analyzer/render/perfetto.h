/* SPDX-License-Identifier: MIT */
/* perfetto.h: writes a run's exact timelines as Chrome trace-event JSON, which Perfetto
 * (ui.perfetto.dev) and chrome://tracing open. */
#ifndef PMA_PERFETTO_H
#define PMA_PERFETTO_H

#include <stdio.h>

#include "trace/analyze.h"

/* Writes run's timelines (it must have scheduler events: run->has_exact) to out as one JSON
 * object {"traceEvents": [...], "displayTimeUnit": "ns"}: per thread "running" and "runnable"
 * complete events (ph "X", ts/dur in microseconds from the run's first event, args.cpu), process
 * and thread names (ph "M"), wake edges as flow events (ph "s"/"f", from the waker to the woken
 * thread; args.waker_cpu_ms: the waker's own CPU time at the wake), and one counter track
 * "active threads" (ph "C", args running / runnable) of the program's threads. Format: the Trace Event Format document (Google, "Trace Event Format",
 * docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
 * Returns 0, or -1 with a one-line reason in why (no scheduler events, out of memory, write error). */
int pma_export_perfetto(FILE *out, const struct pma_run *run, char *why, size_t whysize);

#endif
