/* SPDX-License-Identifier: MIT */
/* test_plot.c: the report's HTML escaping, the series of the parallelism profile over
 * critical-path time, and the speedup plot's geometry on a hand-computed result: the optimum at
 * n = 4 lands on the pixel worked out below, the line passes through n = 2, the PNG has the size
 * asked for and the HTML report escapes a hostile program name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <cairo.h>

#include "compute.h"
#include "html.h"
#include "plot.h"
#include "testlib.h"

#define S_NS 1e9

static void test_escape(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(pma_html_escape_buf(buf, sizeof(buf), "<script>a&b\"'</script>"),
			 strlen("&lt;script&gt;a&amp;b&quot;&#39;&lt;/script&gt;"));
	assert_string_equal(buf, "&lt;script&gt;a&amp;b&quot;&#39;&lt;/script&gt;");
	assert_int_equal(pma_html_escape_buf(buf, sizeof(buf), "plain text"), 10);
	assert_string_equal(buf, "plain text");
	/* truncation stops at a whole reference: "a" fits, "&lt;" (4) does not in 5 bytes */
	assert_int_equal(pma_html_escape_buf(buf, 5, "a<b"), 6);
	assert_string_equal(buf, "a");
	assert_int_equal(pma_html_escape_buf(buf, sizeof(buf), NULL), 0);
	assert_string_equal(buf, "");
}

/* Profile series: 4 threads for 1 s, then 1 thread for 1 s; each bucket's mean A is 4 before
 * T_cp = 1 s and 1 after, and the buckets add up to T_cp and U. */
static void test_series(void **state)
{
	struct pma_profile p;
	const struct pma_series *s;
	double dT = 0, AdT = 0;

	(void)state;
	pma_profile_init(&p);
	assert_non_null(p.series);
	for (int i = 0; i < 1000; i++) /* 1000 pieces of 1 ms at 4, then one of 1 s at 1 */
		assert_int_equal(pma_profile_add(&p, 4, 1e6), 0);
	assert_int_equal(pma_profile_add(&p, 1, S_NS), 0);
	s = p.series;
	assert_true(s->n <= PMA_SERIES_BUCKETS && s->n >= PMA_SERIES_BUCKETS / 4);
	assert_double_equal(s->width_ns * (double)s->n, 2 * S_NS, s->width_ns);
	for (size_t i = 0; i < s->n; i++) {
		double mid = ((double)i + 0.5) * s->width_ns;
		dT += s->dT_ns[i];
		AdT += s->AdT_ns[i];
		if (mid < S_NS - s->width_ns)
			assert_double_equal(s->AdT_ns[i] / s->dT_ns[i], 4, 1e-9);
		else if (mid > S_NS + s->width_ns)
			assert_double_equal(s->AdT_ns[i] / s->dT_ns[i], 1, 1e-9);
	}
	assert_double_equal(dT, 2 * S_NS, 1);
	assert_double_equal(AdT, 5 * S_NS, 1);
	pma_profile_free(&p);
}

/* A result by hand: profile 4 threads for 1 s then 1 thread for 1 s (A(m,inf) = 2.5), n = 1..8,
 * no memory contention. A(m,n): n = 2: U = 5 s over 4/2 + 1 = 3 s = 1.667; n >= 4: 2.5; so the
 * optimum is n = 4 with S = 2.5 (eq. 11, the smallest n of the maximum). */
struct fixture {
	struct pma_trace t;
	struct pma_run run;
	struct pma_result r;
	uint32_t cores[8];
	struct pma_prediction pred[8];
	double S_err[8], S[8];
	char *argv[2];
};

static void make_result(struct fixture *f, const char *argv0)
{
	memset(f, 0, sizeof(*f));
	pma_profile_init(&f->run.xprof);
	assert_int_equal(pma_profile_add(&f->run.xprof, 4, S_NS), 0);
	assert_int_equal(pma_profile_add(&f->run.xprof, 1, S_NS), 0);
	f->run.has_exact = 1; /* the profile is the exact mode's; no event store: no timeline */
	f->argv[0] = (char *)(uintptr_t)argv0;
	f->argv[1] = (char *)(uintptr_t)"-x";
	f->t.meta.command = f->argv;
	f->t.meta.ncommand = 2;
	f->t.meta.hostname = (char *)(uintptr_t)"host<i>";
	f->t.path = (char *)(uintptr_t)"t.zst";
	f->r.traces = &f->t;
	f->r.ntraces = 1;
	f->r.t = &f->t;
	f->r.run = &f->run;
	f->r.par.est = PMA_EST_SCHED;
	f->r.par.m = 4;
	f->r.par.have[PMA_EST_SCHED] = 1;
	f->r.par.baseline_case = "test";
	f->r.par.m_source = "test";
	pma_profile_parallelism(&f->run.xprof, 4, &f->r.par.by_est[PMA_EST_SCHED]);
	for (uint32_t i = 0; i < 8; i++)
		f->cores[i] = i + 1;
	assert_int_equal(pma_profile_predict(&f->run.xprof, f->cores, 8, NULL, f->pred), 0);
	for (int i = 0; i < 8; i++)
		f->S[i] = f->pred[i].S;
	f->r.pred.ncores = 8;
	f->r.pred.cores = f->cores;
	f->r.pred.by_est[PMA_EST_SCHED] = f->pred;
	f->r.pred.S_err = f->S_err;
	assert_int_equal(pma_optimal_cores(f->cores, f->S, 8, &f->r.opt), 0);
	snprintf(f->r.mem.placement, sizeof(f->r.mem.placement), "compact");
	f->r.mem.pol_source = "test";
}

/* The pixel (x, y) of a PNG surface as 0xRRGGBB. */
static unsigned pixel(cairo_surface_t *s, int x, int y)
{
	const unsigned char *d = cairo_image_surface_get_data(s);
	uint32_t v = *(const uint32_t *)(const void *)(d + (size_t)y * (size_t)cairo_image_surface_get_stride(s) + 4 * (size_t)x);
	return v & 0xffffff;
}

static void test_speedup_geometry(void **state)
{
	struct fixture f;
	struct pma_plot_axes a;
	char path[] = "/tmp/test_plot_XXXXXX", why[256];
	cairo_surface_t *png;
	int fd, w, h;
	double x4, y4, x2, y2;

	(void)state;
	make_result(&f, "prog");
	assert_int_equal(f.r.opt.n_best, 4);
	assert_double_equal(f.r.opt.S_best, 2.5, 1e-12);
	pma_plot_size(&f.r, PMA_PLOT_SPEEDUP, &w, &h);
	assert_int_equal(w, 960);
	assert_int_equal(h, 540);
	/* x: 0..10 (8 cores rounded up to a nice 10), y: 0..5 (2.5 * 1.05 rounded up); plot area
	 * left 78, right margin 28, top 48, bottom margin 88: 854 x 404 px */
	assert_int_equal(pma_plot_axes_of(&f.r, PMA_PLOT_SPEEDUP, w, h, &a), 0);
	assert_double_equal(a.xmax, 10, 0);
	assert_double_equal(a.ymax, 5, 0);
	x4 = 78 + 4.0 / 10 * 854;           /* 419.6 */
	y4 = 48 + 404 - 2.5 / 5 * 404;      /* 250 */
	x2 = 78 + 2.0 / 10 * 854;           /* 248.8 */
	y2 = 48 + 404 - (5.0 / 3) / 5 * 404; /* 317.3 */
	assert_double_equal(pma_plot_px_x(&a, 4), x4, 1e-9);
	assert_double_equal(pma_plot_px_y(&a, 2.5), y4, 1e-9);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pma_plot_write(&f.r, PMA_PLOT_SPEEDUP, PMA_PLOT_PNG, path, why, sizeof(why)), 0);
	png = cairo_image_surface_create_from_png(path);
	unlink(path);
	assert_int_equal(cairo_surface_status(png), CAIRO_STATUS_SUCCESS);
	assert_int_equal(cairo_image_surface_get_width(png), 960);
	assert_int_equal(cairo_image_surface_get_height(png), 540);
	/* the optimum's marker (radius 6) is centred on n = 4, S = 2.5 */
	assert_int_equal(pixel(png, (int)x4, (int)y4), PMA_PLOT_C_OPT);
	assert_int_equal(pixel(png, (int)x4 + 4, (int)y4), PMA_PLOT_C_OPT);
	/* the predicted line passes through n = 2, S = 5/3 */
	assert_int_equal(pixel(png, (int)lround(x2), (int)lround(y2)), PMA_PLOT_C_PRED);
	/* no plot without its data: no event store, no calibration */
	assert_int_equal(pma_plot_write(&f.r, PMA_PLOT_TIMELINE, PMA_PLOT_PNG, path, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "scheduler events"));
	assert_int_equal(pma_plot_write(&f.r, PMA_PLOT_OMEGA, PMA_PLOT_SVG, path, why, sizeof(why)), -1);
	/* and a plot that is not available creates no file */
	assert_int_equal(access(path, F_OK), -1);
	cairo_surface_destroy(png);
	pma_profile_free(&f.run.xprof);
}

/* The HTML report of the hand-made result: the hostile program name and host appear only
 * escaped, the headline holds A(m,inf) = 2.5 and the optimum, one table row per core count. */
static void test_html_escapes(void **state)
{
	struct fixture f;
	char *buf = NULL, why[256];
	size_t len = 0, rows = 0;
	FILE *out;

	(void)state;
	make_result(&f, "<script>alert(1)</script>");
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	assert_int_equal(pma_html_report(out, &f.r, why, sizeof(why)), 0);
	fclose(out);
	assert_null(strstr(buf, "<script"));
	assert_null(strstr(buf, "<i>"));
	assert_non_null(strstr(buf, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(buf, "host&lt;i&gt;"));
	assert_non_null(strstr(buf, "id=\"kpi-A\"><span class=\"v\" data-value=\"2.5\">2.50<"));
	assert_non_null(strstr(buf, "id=\"kpi-best\"><span class=\"v\" data-value=\"4\">"));
	/* the rows of the predictions table (the page has other tables) */
	const char *pred = strstr(buf, "<table id=\"pred\">"), *end = pred ? strstr(pred, "</table>") : NULL;
	assert_non_null(end);
	for (const char *p = strstr(pred, "<tr"); p && p < end; p = strstr(p + 1, "<tr"))
		rows++;
	rows--; /* the header row */
	assert_non_null(strstr(buf, "<tr class=\"best\"><td>4<"));
	assert_int_equal(rows, 8);
	/* one inline SVG per plot with data (speedup, profile, histogram), ids prefixed per plot */
	assert_non_null(strstr(buf, "id=\"plot-speedup\""));
	assert_non_null(strstr(buf, "id=\"plot-profile\""));
	assert_non_null(strstr(buf, "id=\"plot-histogram\""));
	assert_null(strstr(buf, "id=\"plot-timeline\""));
	assert_null(strstr(buf, "<?xml"));
	free(buf);
	pma_profile_free(&f.run.xprof);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_speedup_geometry),
		cmocka_unit_test(test_html_escapes),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	pma_plot_cleanup();
	return rc;
}
