/* SPDX-License-Identifier: MIT */
/* test_netlink.c: the proc connector and taskstats message parsers of collector/sources/netlink.c on
 * messages built here byte by byte, then cut short and mangled: they must never read past the
 * buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "netlink.h"

struct seen {
	int n;
	struct pmc_proc_event ev[8];
	struct pmc_task_exit ex[8];
};

static void on_event(void *ctx, const struct pmc_proc_event *ev)
{
	struct seen *s = ctx;
	if (s->n < 8)
		s->ev[s->n] = *ev;
	s->n++;
}

static void on_exit_rec(void *ctx, const struct pmc_task_exit *ex)
{
	struct seen *s = ctx;
	if (s->n < 8)
		s->ex[s->n] = *ex;
	s->n++;
}

/* Appends one proc connector message carrying ev to buf at *off. */
static void put_proc_msg(unsigned char *buf, size_t *off, const struct proc_event *ev)
{
	struct nlmsghdr nh = { 0 };
	struct cn_msg cn = { 0 };
	size_t len = NLMSG_LENGTH(sizeof(cn) + sizeof(*ev));

	nh.nlmsg_len = (uint32_t)len;
	nh.nlmsg_type = NLMSG_DONE;
	cn.id.idx = CN_IDX_PROC;
	cn.id.val = CN_VAL_PROC;
	cn.len = sizeof(*ev);
	memcpy(buf + *off, &nh, sizeof(nh));
	memcpy(buf + *off + NLMSG_HDRLEN, &cn, sizeof(cn));
	memcpy(buf + *off + NLMSG_HDRLEN + sizeof(cn), ev, sizeof(*ev));
	*off += NLMSG_ALIGN(len);
}

static size_t build_proc_msgs(unsigned char *buf)
{
	struct proc_event ev;
	size_t off = 0;

	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_FORK;
	ev.event_data.fork.parent_pid = 100;
	ev.event_data.fork.parent_tgid = 100;
	ev.event_data.fork.child_pid = 101;
	ev.event_data.fork.child_tgid = 101;
	put_proc_msg(buf, &off, &ev);
	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_UID; /* not followed: skipped */
	put_proc_msg(buf, &off, &ev);
	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_EXEC;
	ev.event_data.exec.process_pid = 101;
	ev.event_data.exec.process_tgid = 101;
	put_proc_msg(buf, &off, &ev);
	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_COMM;
	ev.event_data.comm.process_pid = 102;
	ev.event_data.comm.process_tgid = 101;
	memcpy(ev.event_data.comm.comm, "a) b", 5);
	put_proc_msg(buf, &off, &ev);
	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_EXIT;
	ev.event_data.exit.process_pid = 101;
	ev.event_data.exit.process_tgid = 101;
	ev.event_data.exit.exit_code = 3 << 8;
	ev.event_data.exit.parent_pid = 100;
	ev.event_data.exit.parent_tgid = 100;
	put_proc_msg(buf, &off, &ev);
	return off;
}

static void test_procconn_parse(void **state)
{
	unsigned char buf[4096];
	struct seen s = { 0 };
	size_t len;

	(void)state;
	memset(buf, 0, sizeof(buf));
	len = build_proc_msgs(buf);
	assert_int_equal(pmc_procconn_parse(buf, len, on_event, &s), 4);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.ev[0].kind, PMC_PROC_FORK);
	assert_int_equal(s.ev[0].pid, 101);
	assert_int_equal(s.ev[0].tgid, 101);
	assert_int_equal(s.ev[0].parent_tgid, 100);
	assert_int_equal(s.ev[1].kind, PMC_PROC_EXEC);
	assert_int_equal(s.ev[1].tgid, 101);
	assert_int_equal(s.ev[2].kind, PMC_PROC_COMM);
	assert_int_equal(s.ev[2].pid, 102);
	assert_string_equal(s.ev[2].comm, "a) b");
	assert_int_equal(s.ev[3].kind, PMC_PROC_EXIT);
	assert_int_equal(s.ev[3].exit_code, 3 << 8);
	assert_int_equal(s.ev[3].parent_tgid, 100);
}

static void test_procconn_broken(void **state)
{
	unsigned char buf[4096];
	size_t len;
	uint32_t rng = 7;

	(void)state;
	memset(buf, 0, sizeof(buf));
	len = build_proc_msgs(buf);
	/* every cut: only whole messages count, nothing is read past the cut */
	for (size_t cut = 0; cut < len; cut++) {
		struct seen s = { 0 };
		unsigned char *copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, buf, cut);
		assert_true(pmc_procconn_parse(copy, cut, on_event, &s) <= 4);
		free(copy);
	}
	/* random byte flips */
	for (int round = 0; round < 5000; round++) {
		struct seen s = { 0 };
		unsigned char *copy = malloc(len);
		assert_non_null(copy);
		memcpy(copy, buf, len);
		for (int k = 0; k < 4; k++) {
			rng = rng * 1103515245u + 12345u;
			copy[(rng >> 8) % len] = (unsigned char)(rng >> 24);
		}
		(void)pmc_procconn_parse(copy, len, on_event, &s);
		free(copy);
	}
}

/* One TASKSTATS_CMD_NEW message: AGGR_PID { PID, STATS } then AGGR_TGID { TGID, STATS }. */
static size_t build_taskstats_msg(unsigned char *buf, uint16_t family)
{
	struct taskstats ts;
	struct nlmsghdr nh = { 0 };
	struct genlmsghdr g = { .cmd = TASKSTATS_CMD_NEW, .version = 1 };
	size_t off = NLMSG_LENGTH(GENL_HDRLEN);
	uint16_t outer[] = { TASKSTATS_TYPE_AGGR_PID, TASKSTATS_TYPE_AGGR_TGID };
	uint16_t idattr[] = { TASKSTATS_TYPE_PID, TASKSTATS_TYPE_TGID };

	memset(&ts, 0, sizeof(ts));
	ts.version = TASKSTATS_VERSION;
	ts.ac_pid = 4242;
	ts.ac_ppid = 4000;
	ts.ac_tgid = 4240;
	ts.cpu_run_virtual_total = 123456789;
	ts.cpu_run_real_total = 120000000; /* utime+stime: must not be the one used */
	ts.cpu_delay_total = 555;
	ts.cpu_count = 17;
	ts.nvcsw = 5;
	ts.nivcsw = 6;
	memcpy(ts.ac_comm, "worker", 7);
	for (int i = 0; i < 2; i++) {
		struct nlattr a = { .nla_type = outer[i] };
		struct nlattr id = { .nla_len = NLA_HDRLEN + 4, .nla_type = idattr[i] };
		struct nlattr st = { .nla_len = (uint16_t)(NLA_HDRLEN + sizeof(ts)),
				     .nla_type = TASKSTATS_TYPE_STATS };
		uint32_t pid = i ? 4240 : 4242;
		size_t start = off;
		off += NLA_HDRLEN;
		memcpy(buf + off, &id, sizeof(id));
		memcpy(buf + off + NLA_HDRLEN, &pid, 4);
		off += NLA_ALIGN(id.nla_len);
		memcpy(buf + off, &st, sizeof(st));
		memcpy(buf + off + NLA_HDRLEN, &ts, sizeof(ts));
		off += NLA_ALIGN(st.nla_len);
		a.nla_len = (uint16_t)(off - start);
		memcpy(buf + start, &a, sizeof(a));
	}
	nh.nlmsg_len = (uint32_t)off;
	nh.nlmsg_type = family;
	memcpy(buf, &nh, sizeof(nh));
	memcpy(buf + NLMSG_HDRLEN, &g, sizeof(g));
	return off;
}

static void test_taskstats_parse(void **state)
{
	unsigned char buf[4096];
	struct seen s = { 0 };
	size_t len;

	(void)state;
	memset(buf, 0, sizeof(buf));
	len = build_taskstats_msg(buf, 27);
	/* a message of another family is not ours */
	assert_int_equal(pmc_taskstats_parse(buf, len, 28, on_exit_rec, &s), 0);
	/* one per-thread record; the per-process aggregate is skipped */
	assert_int_equal(pmc_taskstats_parse(buf, len, 27, on_exit_rec, &s), 1);
	assert_int_equal(s.ex[0].pid, 4242);
	assert_int_equal(s.ex[0].tgid, 4240);
	assert_int_equal(s.ex[0].ppid, 4000);
	assert_int_equal(s.ex[0].run_ns, 123456789);
	assert_int_equal(s.ex[0].wait_ns, 555);
	assert_int_equal(s.ex[0].timeslices, 17);
	assert_int_equal(s.ex[0].nvcsw, 5);
	assert_int_equal(s.ex[0].nivcsw, 6);
	assert_string_equal(s.ex[0].comm, "worker");
}

static void test_taskstats_broken(void **state)
{
	unsigned char buf[4096];
	size_t len;
	uint32_t rng = 99;

	(void)state;
	memset(buf, 0, sizeof(buf));
	len = build_taskstats_msg(buf, 27);
	for (size_t cut = 0; cut < len; cut++) {
		struct seen s = { 0 };
		unsigned char *copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, buf, cut);
		/* a cut message is rejected whole by its nlmsg_len check */
		assert_int_equal(pmc_taskstats_parse(copy, cut, 27, on_exit_rec, &s), 0);
		free(copy);
	}
	for (int round = 0; round < 5000; round++) {
		struct seen s = { 0 };
		unsigned char *copy = malloc(len);
		assert_non_null(copy);
		memcpy(copy, buf, len);
		for (int k = 0; k < 4; k++) {
			rng = rng * 1103515245u + 12345u;
			copy[(rng >> 8) % len] = (unsigned char)(rng >> 24);
		}
		(void)pmc_taskstats_parse(copy, len, 27, on_exit_rec, &s);
		free(copy);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_procconn_parse),
		cmocka_unit_test(test_procconn_broken),
		cmocka_unit_test(test_taskstats_parse),
		cmocka_unit_test(test_taskstats_broken),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
