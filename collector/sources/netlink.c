/* SPDX-License-Identifier: MIT */
/* netlink.c: proc connector and taskstats sockets: setup, and bounds-checked message parsing. */
#include "netlink.h"

#include "pmt.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#define RECV_BYTES 65536

/* Asks for a receive buffer of bytes; SO_RCVBUFFORCE (root) may exceed net.core.rmem_max, and a
 * bigger buffer is what keeps a burst of system-wide events between two samples from being lost. */
static void set_rcvbuf(int fd, int bytes)
{
	if (bytes <= 0)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

/* ---- proc connector ---- */

static int procconn_send_op(int fd, enum proc_cn_mcast_op op)
{
	union {
		char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))];
		struct nlmsghdr align;
	} u;
	struct nlmsghdr *nh = &u.align;
	struct cn_msg *cn;

	memset(&u, 0, sizeof(u));
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(op));
	nh->nlmsg_type = NLMSG_DONE;
	nh->nlmsg_pid = 0;
	cn = NLMSG_DATA(nh);
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	return send(fd, nh, nh->nlmsg_len, 0) < 0 ? -1 : 0;
}

/* Struct layouts from linux/cn_proc.h: the event union follows what (4), cpu (4) and
 * timestamp_ns (8). Offsets are taken from the header's own struct, so this follows the ABI. */
#define EV_DATA_OFF offsetof(struct proc_event, event_data)

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v)); /* native endian: netlink talks in host order */
	return v;
}

int pmc_procconn_parse(const void *buf, size_t len, pmc_proc_event_fn fn, void *ctx)
{
	const unsigned char *p = buf;
	int count = 0;

	while (len >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr nh;
		struct cn_msg cn;
		const unsigned char *ev;
		size_t msglen, evlen;
		uint32_t what;
		struct pmc_proc_event e;

		memcpy(&nh, p, sizeof(nh));
		if (nh.nlmsg_len < sizeof(nh) || nh.nlmsg_len > len)
			break;
		msglen = nh.nlmsg_len;
		if (nh.nlmsg_type == NLMSG_ERROR || nh.nlmsg_type == NLMSG_NOOP ||
		    msglen < NLMSG_LENGTH(sizeof(struct cn_msg)))
			goto next;
		memcpy(&cn, p + NLMSG_HDRLEN, sizeof(cn));
		if (cn.id.idx != CN_IDX_PROC || cn.id.val != CN_VAL_PROC)
			goto next;
		evlen = cn.len;
		if (evlen > msglen - NLMSG_LENGTH(sizeof(struct cn_msg)) || evlen < EV_DATA_OFF)
			goto next;
		ev = p + NLMSG_LENGTH(sizeof(struct cn_msg));
		what = get32(ev);
		memset(&e, 0, sizeof(e));
		ev += EV_DATA_OFF;
		evlen -= EV_DATA_OFF;
		switch (what) {
		case PROC_EVENT_FORK:
			if (evlen < sizeof(struct fork_proc_event))
				goto next;
			e.kind = PMC_PROC_FORK;
			e.parent_pid = get32(ev + offsetof(struct fork_proc_event, parent_pid));
			e.parent_tgid = get32(ev + offsetof(struct fork_proc_event, parent_tgid));
			e.pid = get32(ev + offsetof(struct fork_proc_event, child_pid));
			e.tgid = get32(ev + offsetof(struct fork_proc_event, child_tgid));
			break;
		case PROC_EVENT_EXEC:
			if (evlen < sizeof(struct exec_proc_event))
				goto next;
			e.kind = PMC_PROC_EXEC;
			e.pid = get32(ev + offsetof(struct exec_proc_event, process_pid));
			e.tgid = get32(ev + offsetof(struct exec_proc_event, process_tgid));
			break;
		case PROC_EVENT_EXIT:
			/* parent_pid/parent_tgid were added later (Linux 4.8); older events are shorter */
			if (evlen < offsetof(struct exit_proc_event, exit_signal))
				goto next;
			e.kind = PMC_PROC_EXIT;
			e.pid = get32(ev + offsetof(struct exit_proc_event, process_pid));
			e.tgid = get32(ev + offsetof(struct exit_proc_event, process_tgid));
			e.exit_code = get32(ev + offsetof(struct exit_proc_event, exit_code));
			if (evlen >= sizeof(struct exit_proc_event)) {
				e.parent_pid = get32(ev + offsetof(struct exit_proc_event, parent_pid));
				e.parent_tgid = get32(ev + offsetof(struct exit_proc_event, parent_tgid));
			}
			break;
		case PROC_EVENT_COMM:
			if (evlen < sizeof(struct comm_proc_event))
				goto next;
			e.kind = PMC_PROC_COMM;
			e.pid = get32(ev + offsetof(struct comm_proc_event, process_pid));
			e.tgid = get32(ev + offsetof(struct comm_proc_event, process_tgid));
			memcpy(e.comm, ev + offsetof(struct comm_proc_event, comm), 16);
			e.comm[16] = '\0';
			break;
		default:
			goto next;
		}
		fn(ctx, &e);
		count++;
next:
		msglen = NLMSG_ALIGN(msglen);
		if (msglen >= len)
			break;
		p += msglen;
		len -= msglen;
	}
	return count;
}

int pmc_procconn_open(int rcvbuf_bytes, char *why, size_t whysize)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);

	if (fd < 0) {
		snprintf(why, whysize, "cannot open a NETLINK_CONNECTOR socket: %s", strerror(errno));
		return PMT_E_IO;
	}
	set_rcvbuf(fd, rcvbuf_bytes);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		snprintf(why, whysize, "cannot join the proc connector group: %s%s", strerror(errno),
			 errno == EPERM ? " (needs root)" : "");
		goto fail;
	}
	if (procconn_send_op(fd, PROC_CN_MCAST_LISTEN) < 0) {
		snprintf(why, whysize, "cannot subscribe to the proc connector: %s", strerror(errno));
		goto fail;
	}
	/* The kernel answers the subscription with a PROC_EVENT_NONE carrying an error code; wait
	 * for it briefly so a refused subscription is reported instead of silently hearing nothing. */
	for (int tries = 0; tries < 20; tries++) {
		union {
			char buf[4096];
			struct nlmsghdr align;
		} u;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 100) <= 0)
			break; /* old kernels do not ack; events will tell */
		n = recv(fd, u.buf, sizeof(u.buf), 0);
		if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct cn_msg) + EV_DATA_OFF + 4))
			continue;
		{
			const unsigned char *ev = (const unsigned char *)u.buf +
						  NLMSG_LENGTH(sizeof(struct cn_msg));
			if (get32(ev) == PROC_EVENT_NONE) {
				uint32_t err = get32(ev + EV_DATA_OFF);
				if (err) {
					snprintf(why, whysize, "the proc connector refused the subscription: %s",
						 strerror((int)err));
					goto fail;
				}
				break;
			}
		}
	}
	return fd;
fail:
	close(fd);
	return PMT_E_IO;
}

/* One non-blocking recv() of a netlink batch: its length, or 0 when the socket is empty or
 * failed. ENOBUFS (the kernel dropped messages) sets *dropped and reads on. */
static ssize_t recv_batch(int fd, char *buf, size_t size, int *dropped)
{
	for (;;) {
		ssize_t n = recv(fd, buf, size, MSG_DONTWAIT);

		if (n >= 0)
			return n;
		if (errno == ENOBUFS)
			*dropped = 1;
		else if (errno != EINTR)
			return 0;
	}
}

/* What a drain hands to its parser: the proc connector's or taskstats' callback and context. */
struct drain_to {
	pmc_proc_event_fn proc_fn;
	pmc_task_exit_fn exit_fn;
	uint16_t family;
	void *ctx;
};

/* Receives every batch waiting on fd (recv_batch) and parses each with the proc connector's
 * parser (to->proc_fn set) or taskstats' (to->exit_fn). Returns the events delivered. */
static int drain(int fd, const struct drain_to *to, int *dropped)
{
	union {
		char buf[RECV_BYTES];
		struct nlmsghdr align;
	} u;
	ssize_t n;
	int count = 0;

	if (fd < 0)
		return 0;
	while ((n = recv_batch(fd, u.buf, sizeof(u.buf), dropped)) > 0)
		count += to->proc_fn ? pmc_procconn_parse(u.buf, (size_t)n, to->proc_fn, to->ctx)
				     : pmc_taskstats_parse(u.buf, (size_t)n, to->family, to->exit_fn,
							   to->ctx);
	return count;
}

int pmc_procconn_drain(int fd, pmc_proc_event_fn fn, void *ctx, int *dropped)
{
	const struct drain_to to = { .proc_fn = fn, .ctx = ctx };

	return drain(fd, &to, dropped);
}

void pmc_procconn_close(int fd)
{
	if (fd < 0)
		return;
	(void)procconn_send_op(fd, PROC_CN_MCAST_IGNORE);
	close(fd);
}

/* ---- taskstats ---- */

/* Appends a netlink attribute to a message under construction; returns -1 when it does not fit. */
static int put_attr(struct nlmsghdr *nh, size_t cap, uint16_t type, const void *data, size_t len)
{
	size_t off = NLMSG_ALIGN(nh->nlmsg_len);
	struct nlattr *a = (struct nlattr *)((char *)nh + off);

	if (off + NLA_HDRLEN + NLA_ALIGN(len) > cap)
		return -1;
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	nh->nlmsg_len = (uint32_t)(off + NLA_HDRLEN + NLA_ALIGN(len));
	return 0;
}

/* Waits for the answer to request seq and returns it in buf: 0 on an ACK or a reply, a negative
 * errno on an error message. Unrelated messages (exit records) are skipped. Gives up (-ETIMEDOUT)
 * when no datagram comes for 1 s, or after 1000 datagrams without the answer: each of the 1000
 * tries is a poll(1000), so a socket that keeps receiving exit records can hold it up to 1000 s. */
static int genl_wait_reply(int fd, uint32_t seq, void *buf, size_t bufsize, size_t *outlen)
{
	for (int tries = 0; tries < 1000; tries++) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		const unsigned char *p = buf;
		ssize_t n;
		size_t len;

		if (poll(&pfd, 1, 1000) <= 0)
			return -ETIMEDOUT;
		n = recv(fd, buf, bufsize, 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == ENOBUFS)
				continue;
			return -errno;
		}
		len = (size_t)n;
		while (len >= sizeof(struct nlmsghdr)) {
			struct nlmsghdr nh;
			memcpy(&nh, p, sizeof(nh));
			if (nh.nlmsg_len < sizeof(nh) || nh.nlmsg_len > len)
				break;
			if (nh.nlmsg_seq == seq) {
				if (nh.nlmsg_type == NLMSG_ERROR) {
					struct nlmsgerr e;
					if (nh.nlmsg_len < NLMSG_LENGTH(sizeof(int)))
						return -EPROTO;
					memcpy(&e.error, p + NLMSG_HDRLEN, sizeof(int));
					return e.error; /* 0 = ACK */
				}
				if (p != (const unsigned char *)buf)
					memmove(buf, p, nh.nlmsg_len);
				*outlen = nh.nlmsg_len;
				return 0;
			}
			if (NLMSG_ALIGN(nh.nlmsg_len) >= len)
				break;
			p += NLMSG_ALIGN(nh.nlmsg_len);
			len -= NLMSG_ALIGN(nh.nlmsg_len);
		}
	}
	return -ETIMEDOUT;
}

/* Resolves the generic netlink family id of "TASKSTATS" (CTRL_CMD_GETFAMILY). */
static int taskstats_family(int fd, uint16_t *family)
{
	union {
		char buf[RECV_BYTES];
		struct nlmsghdr align;
	} u;
	struct nlmsghdr *nh = &u.align;
	struct genlmsghdr *g;
	size_t len = 0, off;
	int err;

	memset(u.buf, 0, NLMSG_SPACE(GENL_HDRLEN));
	nh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	nh->nlmsg_type = GENL_ID_CTRL;
	nh->nlmsg_flags = NLM_F_REQUEST;
	nh->nlmsg_seq = 1;
	g = NLMSG_DATA(nh);
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	if (put_attr(nh, sizeof(u.buf), CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
		     sizeof(TASKSTATS_GENL_NAME)) < 0)
		return -EINVAL;
	if (send(fd, nh, nh->nlmsg_len, 0) < 0)
		return -errno;
	err = genl_wait_reply(fd, 1, u.buf, sizeof(u.buf), &len);
	if (err < 0)
		return err;
	for (off = NLMSG_LENGTH(GENL_HDRLEN); off + NLA_HDRLEN <= len;) {
		struct nlattr a;
		memcpy(&a, u.buf + off, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || off + a.nla_len > len)
			break;
		if ((a.nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID && a.nla_len >= NLA_HDRLEN + 2) {
			memcpy(family, u.buf + off + NLA_HDRLEN, sizeof(*family));
			return 0;
		}
		off += NLA_ALIGN(a.nla_len);
	}
	return -ENOENT;
}

static int taskstats_cpumask_cmd(int fd, uint16_t family, uint16_t attr, const char *cpumask)
{
	union {
		char buf[1024];
		struct nlmsghdr align;
	} u;
	struct nlmsghdr *nh = &u.align;
	struct genlmsghdr *g;
	size_t len;

	memset(u.buf, 0, NLMSG_SPACE(GENL_HDRLEN));
	nh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	nh->nlmsg_type = family;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nh->nlmsg_seq = 2;
	g = NLMSG_DATA(nh);
	g->cmd = TASKSTATS_CMD_GET;
	g->version = TASKSTATS_GENL_VERSION;
	if (put_attr(nh, sizeof(u.buf), attr, cpumask, strlen(cpumask) + 1) < 0)
		return -EINVAL;
	if (send(fd, nh, nh->nlmsg_len, 0) < 0)
		return -errno;
	return genl_wait_reply(fd, 2, u.buf, sizeof(u.buf), &len);
}

int pmc_taskstats_open(const char *cpumask, int rcvbuf_bytes, uint16_t *family, char *why,
		       size_t whysize)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	int err;

	if (fd < 0) {
		snprintf(why, whysize, "cannot open a NETLINK_GENERIC socket: %s", strerror(errno));
		return PMT_E_IO;
	}
	set_rcvbuf(fd, rcvbuf_bytes);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		snprintf(why, whysize, "cannot bind a NETLINK_GENERIC socket: %s", strerror(errno));
		goto fail;
	}
	err = taskstats_family(fd, family);
	if (err < 0) {
		snprintf(why, whysize, "no TASKSTATS netlink family: %s", strerror(-err));
		goto fail;
	}
	err = taskstats_cpumask_cmd(fd, *family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpumask);
	if (err < 0) {
		snprintf(why, whysize, "cannot register for taskstats exit records: %s%s",
			 strerror(-err), err == -EPERM ? " (needs root)" : "");
		goto fail;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		snprintf(why, whysize, "fcntl: %s", strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return PMT_E_IO;
}

/* Decodes the nested attributes of a TASKSTATS_TYPE_AGGR_PID into ex; 0 when STATS was found. */
static int parse_aggr_pid(const unsigned char *p, size_t len, struct pmc_task_exit *ex)
{
	int found = 0;

	while (len >= NLA_HDRLEN) {
		struct nlattr a;
		size_t alen;

		memcpy(&a, p, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || a.nla_len > len)
			break;
		alen = a.nla_len - NLA_HDRLEN;
		if ((a.nla_type & NLA_TYPE_MASK) == TASKSTATS_TYPE_PID && alen >= 4) {
			ex->pid = get32(p + NLA_HDRLEN);
		} else if ((a.nla_type & NLA_TYPE_MASK) == TASKSTATS_TYPE_STATS &&
			   alen >= offsetof(struct taskstats, ac_sched)) {
			/* Copy what the kernel sent into a zeroed struct: a newer kernel sends a
			 * longer struct (fields only added at the end), an older one a shorter. */
			struct taskstats ts;
			memset(&ts, 0, sizeof(ts));
			memcpy(&ts, p + NLA_HDRLEN, alen < sizeof(ts) ? alen : sizeof(ts));
			ex->version = ts.version;
			ex->run_ns = ts.cpu_run_virtual_total;
			ex->wait_ns = ts.cpu_delay_total;
			ex->timeslices = ts.cpu_count;
			if (alen >= offsetof(struct taskstats, ac_ppid) + sizeof(ts.ac_ppid)) {
				if (!ex->pid)
					ex->pid = ts.ac_pid;
				ex->ppid = ts.ac_ppid;
				memcpy(ex->comm, ts.ac_comm, sizeof(ts.ac_comm));
				ex->comm[sizeof(ex->comm) - 1] = '\0';
			}
			if (alen >= offsetof(struct taskstats, nivcsw) + sizeof(ts.nivcsw)) {
				ex->nvcsw = ts.nvcsw;
				ex->nivcsw = ts.nivcsw;
			}
			if (alen >= offsetof(struct taskstats, ac_tgid) + sizeof(ts.ac_tgid))
				ex->tgid = ts.ac_tgid;
			found = 1;
		}
		if ((size_t)NLA_ALIGN(a.nla_len) >= len)
			break;
		p += (size_t)NLA_ALIGN(a.nla_len);
		len -= (size_t)NLA_ALIGN(a.nla_len);
	}
	return found ? 0 : -1;
}

int pmc_taskstats_parse(const void *buf, size_t len, uint16_t family, pmc_task_exit_fn fn,
			void *ctx)
{
	const unsigned char *p = buf;
	int count = 0;

	while (len >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr nh;
		size_t off, msglen;

		memcpy(&nh, p, sizeof(nh));
		if (nh.nlmsg_len < sizeof(nh) || nh.nlmsg_len > len)
			break;
		msglen = nh.nlmsg_len;
		if (nh.nlmsg_type == family && msglen >= NLMSG_LENGTH(GENL_HDRLEN)) {
			for (off = NLMSG_LENGTH(GENL_HDRLEN); off + NLA_HDRLEN <= msglen;) {
				struct nlattr a;
				memcpy(&a, p + off, sizeof(a));
				if (a.nla_len < NLA_HDRLEN || off + a.nla_len > msglen)
					break;
				if ((a.nla_type & NLA_TYPE_MASK) == TASKSTATS_TYPE_AGGR_PID) {
					struct pmc_task_exit ex;
					memset(&ex, 0, sizeof(ex));
					if (parse_aggr_pid(p + off + NLA_HDRLEN, a.nla_len - NLA_HDRLEN,
							   &ex) == 0 && ex.pid) {
						fn(ctx, &ex);
						count++;
					}
				}
				off += NLA_ALIGN(a.nla_len);
			}
		}
		msglen = NLMSG_ALIGN(msglen);
		if (msglen >= len)
			break;
		p += msglen;
		len -= msglen;
	}
	return count;
}

int pmc_taskstats_drain(int fd, uint16_t family, pmc_task_exit_fn fn, void *ctx, int *dropped)
{
	const struct drain_to to = { .exit_fn = fn, .family = family, .ctx = ctx };

	return drain(fd, &to, dropped);
}

void pmc_taskstats_close(int fd)
{
	if (fd >= 0)
		close(fd);
}
