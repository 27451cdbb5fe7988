/* SPDX-License-Identifier: MIT */
/* run.c: pmanalyze's modes, each computing its result and rendering it to the output (cli.h). */
#include "cli.h"

#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_cli.h"
#include "pmt.h"

#include "render/dump.h"
#include "render/render.h"
#include "result/learning.h"
#include "result/ranks.h"

FILE *pma_cli_output_open(struct output *o)
{
	if (o->f)
		return o->f;
	if (!o->path)
		return o->f = stdout;
	o->f = fopen(o->path, "w");
	if (!o->f)
		pm_cli_error("cannot open '%s': %s", o->path, strerror(errno));
	return o->f;
}

/* Closes the output; returns rc, or PMT_EXIT_FAILURE when a write failed and rc was 0. */
int pma_cli_output_close(struct output *o, int rc)
{
	if (o->f && o->f != stdout && fclose(o->f) != 0 && rc == 0) {
		pm_cli_error("cannot write '%s': %s", o->path, strerror(errno));
		rc = PMT_EXIT_FAILURE;
	}
	if (o->f == stdout && fflush(stdout) != 0 && rc == 0) {
		pm_cli_error("cannot write to standard output: %s", strerror(errno));
		rc = PMT_EXIT_FAILURE;
	}
	return rc;
}

/* --dump: every record of the trace. Returns the exit status. */
int pma_cli_run_dump(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	(void)traces;
	struct pmt_reader *rd;
	char why[512];
	FILE *f;

	if (pma_dump_open(&rd, o->traces[0], o->flags, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	if (!(f = pma_cli_output_open(out))) {
		pmt_reader_close(rd);
		return PMT_EXIT_FAILURE;
	}
	if (pma_dump(f, rd, o->traces[0], why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	return PMT_EXIT_OK;
}

/* The rank traces' rows, computed by --jobs workers: each loads one trace, analyzes it alone and
 * frees it before taking the next, so memory is bounded by a trace per worker. */
struct rank_work {
	const struct cli_opts *o;
	const struct pma_trace *cal; /* --calibration, NULL none */
	struct pma_rank_row *rows;
	int *rc;                /* per trace: 0, or -1 load failure, -2 not a rank */
	char (*why)[512];
	int next;
	pthread_mutex_t lock;
};

static void *rank_worker(void *arg)
{
	struct rank_work *w = arg;

	for (;;) {
		struct pma_trace t;
		int i;
		pthread_mutex_lock(&w->lock);
		i = w->next++;
		pthread_mutex_unlock(&w->lock);
		if (i >= w->o->ntraces)
			return NULL;
		if (pma_trace_load(&t, w->o->traces[i], w->o->flags, w->why[i], sizeof(w->why[i])) < 0)
			w->rc[i] = -1;
		else if (pma_rank_row_from(&t, &w->o->co, w->cal, &w->rows[i], w->why[i],
						sizeof(w->why[i])) < 0)
			w->rc[i] = -2;
		pma_trace_free(&t);
	}
}

/* The merged report of a job's rank traces. Returns the exit status. */
int pma_cli_run_ranks(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	(void)traces;
	struct rank_work w = { .o = o, .lock = PTHREAD_MUTEX_INITIALIZER };
	struct pma_trace *cal = NULL; /* on the heap: a struct pma_trace is 1.3 MB */
	size_t n = (size_t)o->ntraces;
	long nthreads = o->jobs < o->ntraces ? o->jobs : o->ntraces;
	pthread_t *tids = calloc((size_t)nthreads, sizeof(*tids));
	struct pma_result r;
	char why[512];
	int rc = PMT_EXIT_OK, err;
	long started = 0;
	FILE *f;

	memset(&r, 0, sizeof(r));
	if (o->cal_path) {
		/* loaded once and shared read-only by the workers */
		if (!(cal = calloc(1, sizeof(*cal)))) {
			pm_cli_error("out of memory");
			rc = PMT_EXIT_FAILURE;
			goto out;
		}
		if (pma_trace_load(cal, o->cal_path, o->flags, why, sizeof(why)) < 0) {
			pm_cli_error("%s", why);
			rc = PMT_EXIT_FAILURE;
			goto out;
		}
		if (pma_ranks_calibration_check(cal, &o->co, why, sizeof(why)) < 0) {
			pm_cli_error("--calibration: %s", why);
			rc = PMT_EXIT_USAGE;
			goto out;
		}
		w.cal = cal;
	}
	w.rows = calloc(n, sizeof(*w.rows));
	w.rc = calloc(n, sizeof(*w.rc));
	w.why = calloc(n, sizeof(*w.why));
	if (!tids || !w.rows || !w.rc || !w.why) {
		pm_cli_error("out of memory");
		rc = PMT_EXIT_FAILURE;
		goto out;
	}
	for (long i = 1; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, rank_worker, &w) == 0)
			started = i;
		else
			break;
	rank_worker(&w);
	for (long i = 1; i <= started; i++)
		pthread_join(tids[i], NULL);
	for (size_t i = 0; i < n && rc == PMT_EXIT_OK; i++)
		if (w.rc[i] < 0) {
			pm_cli_error("%s", w.why[i]);
			rc = w.rc[i] == -2 ? PMT_EXIT_USAGE : PMT_EXIT_FAILURE;
		}
	if (rc != PMT_EXIT_OK) {
		for (size_t i = 0; i < n; i++)
			pma_rank_row_free(&w.rows[i]);
		free(w.rows);
		goto out;
	}
	err = pma_ranks_job_result(w.rows, n, o->force, o->cal_path, &r, why, sizeof(why));
	if (err < 0) {
		pm_cli_error("%s", why);
		rc = err == PMA_RANKS_E_MIXED ? PMT_EXIT_USAGE : PMT_EXIT_FAILURE;
		goto out;
	}
	if (!(f = pma_cli_output_open(out)))
		rc = PMT_EXIT_FAILURE;
	else
		pma_render_result(f, &r, o->format);
out:
	pma_result_free(&r);
	pma_trace_free(cal);
	free(cal);
	free(w.rc);
	free(w.why);
	free(tids);
	return rc;
}

/* The prediction report (and --export-perfetto). Returns the exit status. */
int pma_cli_run_report(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	struct pma_result r;
	char why[512];
	FILE *f;
	int rc = PMT_EXIT_FAILURE;

	if (!o->force && pma_traces_same_program(traces, o->ntraces, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_USAGE;
	}
	if ((rc = pma_compute(traces, o->ntraces, &o->co, &r, why, sizeof(why))) < 0) {
		pm_cli_error("%s", why);
		rc = PMT_EXIT_FAILURE;
		goto out;
	}
	rc = PMT_EXIT_FAILURE;
	if (!(f = pma_cli_output_open(out)))
		goto out;
	pma_render_result(f, &r, o->format);
	if (o->perfetto_path && pma_cli_export_perfetto(o->perfetto_path, &traces[0], o->co.run_id) < 0)
		goto out;
	if (o->plot_dir && pma_cli_write_plots(o->plot_dir, o->plot_format, &r) < 0)
		goto out;
	if (o->html_path && pma_cli_write_html(o->html_path, &r) < 0)
		goto out;
	if (o->extrap_path && pma_cli_export_extrap(o->extrap_path, &r) < 0)
		goto out;
	rc = PMT_EXIT_OK;
out:
	pma_result_free(&r);
	return rc;
}

/* --predict's list into c; returns 0, or -1 after reporting a malformed list. */
static int predict_configs(const char *list, struct pma_predict_configs *c)
{
	char why[512];

	if (pma_predict_configs_parse(list, c, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return -1;
	}
	return 0;
}

/* Renders the computed result r to the output and frees r. Returns the exit status. */
static int render_result(const struct cli_opts *o, struct pma_result *r, struct output *out)
{
	FILE *f = pma_cli_output_open(out);
	int rc = PMT_EXIT_FAILURE;

	if (f) {
		pma_render_result(f, r, o->format);
		rc = PMT_EXIT_OK;
	}
	pma_result_free(r);
	return rc;
}

/* The warnings of predictions the training set does not back (pma_predictions_check), one line
 * per kind. */
static void predict_warnings(const struct pma_predictions *p, enum pma_learn_target target)
{
	char nomodel[160] = "";

	if (p->noutside_nomodel)
		snprintf(nomodel, sizeof(nomodel), " (%zu without it, no training run of their thread "
			 "count: to the training range %.4g-%.4g %s)", p->noutside_nomodel, p->y_min,
			 p->y_max, target == PMA_TARGET_ENERGY ? "J" : "s");
	if (p->noutside)
		pm_cli_warning("--predict: %zu of %zu predictions are outside the training runs "
			       "(threads %u-%u, cores %u-%u): a forest does not extrapolate, their p5-p95 "
			       "are widened to the analytical model's T_model_s%s", p->noutside, p->n,
			       p->threads_min, p->threads_max, p->cores_min, p->cores_max, nomodel);
	if (p->nwidened)
		pm_cli_warning("--predict: no predictor beats the mean on held-out configurations "
			       "(best R2 %.3g): p5-p95 of %zu predictions widened to the training "
			       "range %.4g-%.4g %s", p->best_R2, p->nwidened, p->y_min, p->y_max,
			       target == PMA_TARGET_ENERGY ? "J" : "s");
}

/* --learn: the training set's result (pma_learn_compute), --model-out, the report. Returns the
 * exit status. */
int pma_cli_run_learn(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	struct pma_predict_configs cfg;
	struct pma_result r;
	char why[512];

	if (o->predict && predict_configs(o->predict, &cfg) < 0)
		return PMT_EXIT_USAGE; /* before the training, not after it */
	if (pma_learn_compute(traces, o->ntraces, o->target, o->predict ? &cfg : NULL,
			      o->model_out != NULL, &r, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	if (o->model_out && pma_cli_write_file(o->model_out, r.learn.model, r.learn.model_bytes) < 0) {
		pma_result_free(&r);
		return PMT_EXIT_FAILURE;
	}
	r.learn.model_out = o->model_out;
	if (!o->quiet)
		predict_warnings(&r.learn.pred, r.learn.target);
	return render_result(o, &r, out);
}

/* --toep: TOEP's own procedure over the training table (pma_toep_compute). Returns the exit
 * status. */
int pma_cli_run_toep(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	struct pma_result r;
	char why[512];

	if (pma_toep_compute(traces, o->ntraces, o->target, &r, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	return render_result(o, &r, out);
}

/* --predict T:N[,T:N...] --model FILE [traces]: the predictions of the forest pma_cli_load_inputs read
 * (o->model); the traces, when given, give the configurations' other columns. */
int pma_cli_run_predict(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	struct pma_predict_configs cfg;
	struct pma_result r;
	char why[512];

	if (predict_configs(o->predict, &cfg) < 0)
		return PMT_EXIT_USAGE;
	if (pma_predict_compute(o->model, traces, o->ntraces, &cfg, &r, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	return render_result(o, &r, out);
}

/* --info: what the trace holds. Returns the exit status. */
int pma_cli_run_info(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	if (!pma_cli_output_open(out))
		return PMT_EXIT_FAILURE;
	pma_render_info(out->f, &traces[0], o->format);
	return PMT_EXIT_OK;
}
