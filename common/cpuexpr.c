/* SPDX-License-Identifier: MIT */
/* cpuexpr.c: LIKWID-style CPU expressions on an hwloc topology (cpuexpr.h). Written from
 * likwid-pin(1) "CPU EXPRESSION" and the behaviour of LIKWID's cpustring.c; no LIKWID code. */
#include "cpuexpr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 8   /* "E:N:8:1:2:0" has 6 ':'-separated fields */
#define MAX_INDEX 1048575u /* largest logical index or count we parse; far above any machine */

/* One hardware thread and its sort keys. */
struct pu_key {
	uint32_t os;   /* OS CPU number (PU os_index) */
	unsigned core; /* logical index of its core; PUs without a core count as cores of their own */
	unsigned smt;  /* its rank among the PUs of its core: 0 for the first */
};

/* A growing list of selected CPUs, each with the index of the part that selected it. */
struct sel {
	uint32_t *cpus;
	size_t *part;
	size_t n, cap;
};

static int by_core(const void *a, const void *b)
{
	const struct pu_key *x = a, *y = b;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return x->smt < y->smt ? -1 : x->smt > y->smt;
}

static int by_smt(const void *a, const void *b)
{
	const struct pu_key *x = a, *y = b;
	if (x->smt != y->smt)
		return x->smt < y->smt ? -1 : 1;
	return x->core < y->core ? -1 : x->core > y->core;
}

/* The orders of a domain's CPUs (docs/cpu-expressions.md "Domains"); ORDER_NUMA adds to either:
 * cores by their lowest OS CPU number instead of hwloc's logical core order, as LIKWID builds
 * its NUMA domains (likwid-pin 5.2.2 on hwloc's test topologies, tests/likwid/record.sh). */
enum { ORDER_HW_THREAD = 0, ORDER_PHYSICAL_FIRST = 1, ORDER_NUMA = 2 };

/* The CPUs of set in hardware-thread order (core by core, SMT threads together: LIKWID's
 * processorList), with ORDER_PHYSICAL_FIRST the first thread of every core, then the second, ...
 * (LIKWID's cpulist_sort); with ORDER_NUMA the cores are taken by their lowest OS CPU number.
 * Returns a malloc'ed array of *n OS numbers (NULL and *n = 0 for a set with no PU), or NULL with
 * *n = 1 when out of memory. */
static uint32_t *domain_cpus(hwloc_topology_t topo, hwloc_const_cpuset_t set, int order,
			     size_t *n)
{
	int npu = hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PU);
	int ncore = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	struct pu_key *keys;
	uint32_t *cpus;
	hwloc_obj_t pu = NULL;
	size_t k = 0;

	*n = 0;
	if (npu <= 0)
		return NULL;
	keys = calloc((size_t)npu, sizeof(*keys));
	cpus = malloc((size_t)npu * sizeof(*cpus));
	if (!keys || !cpus) {
		free(keys);
		free(cpus);
		*n = 1;
		return NULL;
	}
	while (k < (size_t)npu &&
	       (pu = hwloc_get_next_obj_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PU, pu))) {
		hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
		keys[k].os = pu->os_index;
		if (core) {
			/* the PUs of a core are consecutive in hwloc's logical order */
			hwloc_obj_t first = hwloc_get_next_obj_inside_cpuset_by_type(
				topo, core->cpuset, HWLOC_OBJ_PU, NULL);
			keys[k].core = (order & ORDER_NUMA)
					       ? (unsigned)hwloc_bitmap_first(core->cpuset)
					       : core->logical_index;
			keys[k].smt = pu->logical_index - first->logical_index;
		} else {
			keys[k].core = (order & ORDER_NUMA) ? pu->os_index
				: (unsigned)(ncore > 0 ? ncore : 0) + pu->logical_index;
		}
		k++;
	}
	qsort(keys, k, sizeof(*keys), (order & ORDER_PHYSICAL_FIRST) ? by_smt : by_core);
	for (size_t i = 0; i < k; i++)
		cpus[i] = keys[i].os;
	free(keys);
	*n = k;
	return cpus;
}

/* The hwloc type of a domain letter, or -1. C is the last-level cache: the highest cache level
 * the topology has, one domain per cache instance even where it is private to a core (as
 * LIKWID 5.2 does: docs/cpu-expressions.md). D falls back to packages when hwloc reports no dies
 * (as LIKWID does). */
static int domain_type(hwloc_topology_t topo, char letter, hwloc_obj_type_t *type)
{
	static const hwloc_obj_type_t caches[] = { HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE,
						   HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
						   HWLOC_OBJ_L1CACHE };
	switch (letter) {
	case 'S':
		*type = HWLOC_OBJ_PACKAGE;
		return 0;
	case 'D':
		*type = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_DIE) > 0 ? HWLOC_OBJ_DIE
									   : HWLOC_OBJ_PACKAGE;
		return 0;
	case 'M':
		*type = HWLOC_OBJ_NUMANODE;
		return 0;
	case 'C':
		for (size_t i = 0; i < sizeof(caches) / sizeof(caches[0]); i++)
			if (hwloc_get_nbobjs_by_type(topo, caches[i]) > 0) {
				*type = caches[i];
				return 0;
			}
		*type = HWLOC_OBJ_L3CACHE; /* none: the domain lookup then says there are 0 */
		return 0;
	default:
		return -1;
	}
}

static const char *domain_noun(char letter)
{
	switch (letter) {
	case 'S': return "packages (sockets)";
	case 'D': return "dies";
	case 'C': return "last-level caches";
	case 'M': return "NUMA nodes";
	default: return "domains";
	}
}

/* Finds the domain named name ("N", "S1", "M0"; exactly that string) and returns its object, or
 * NULL with a reason. */
static hwloc_obj_t find_domain(hwloc_topology_t topo, const char *name, char *why, size_t whysize)
{
	hwloc_obj_type_t type;
	long idx;
	int nobj;

	if (strcmp(name, "N") == 0)
		return hwloc_get_root_obj(topo);
	if (domain_type(topo, name[0], &type) != 0 || name[1] < '0' || name[1] > '9' ||
	    pm_cli_parse_long(name + 1, 0, MAX_INDEX, &idx) != 0) {
		snprintf(why, whysize, "'%s' is not a domain (N, S#, D#, C#, M#)", name);
		return NULL;
	}
	nobj = hwloc_get_nbobjs_by_type(topo, type);
	if (nobj <= 0) {
		snprintf(why, whysize, "'%s': the topology has no %s", name, domain_noun(name[0]));
		return NULL;
	}
	if (idx >= nobj) {
		if (nobj == 1)
			snprintf(why, whysize, "'%s': the topology has %c0 only", name, name[0]);
		else
			snprintf(why, whysize, "'%s': the topology has %c0-%c%d", name, name[0],
				 name[0], nobj - 1);
		return NULL;
	}
	return hwloc_get_obj_by_type(topo, type, (unsigned)idx);
}

static int sel_push(struct sel *s, uint32_t cpu, size_t part)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 64;
		uint32_t *c = realloc(s->cpus, ncap * sizeof(*c));
		if (!c)
			return -1;
		s->cpus = c;
		size_t *p = realloc(s->part, ncap * sizeof(*p));
		if (!p)
			return -1;
		s->part = p;
		s->cap = ncap;
	}
	s->cpus[s->n] = cpu;
	s->part[s->n++] = part;
	return 0;
}

/* Parses a list like pm_intlist_parse ("0-3,8", "0-7:2") but keeps the order in which the items
 * are written: each ','-separated item goes through pm_intlist_parse on its own (an item's values
 * come out ascending, as written) and the results are concatenated. */
static int ordered_list(const char *s, uint32_t max_value, struct pm_intlist *out, char *why,
			size_t whysize)
{
	char *copy = strdup(s), *save = NULL;
	int rc = 0;

	out->v = NULL;
	out->n = 0;
	if (!copy) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		return -1;
	}
	if (!s[0] || s[strlen(s) - 1] == ',' || strstr(s, ",,") || s[0] == ',') {
		snprintf(why, whysize, "'%s' has an empty item", s);
		free(copy);
		return -1;
	}
	for (char *item = strtok_r(copy, ",", &save); item && rc == 0;
	     item = strtok_r(NULL, ",", &save)) {
		struct pm_intlist one;
		uint32_t *v;
		if (pm_intlist_parse(item, 0, max_value, &one, why, whysize) != 0) {
			rc = -1;
			break;
		}
		v = realloc(out->v, (out->n + one.n) * sizeof(*v));
		if (!v) {
			snprintf(why, whysize, "%s", strerror(ENOMEM));
			pm_intlist_free(&one);
			rc = -1;
			break;
		}
		memcpy(v + out->n, one.v, one.n * sizeof(*v));
		out->v = v;
		out->n += one.n;
		pm_intlist_free(&one);
	}
	free(copy);
	if (rc != 0)
		pm_intlist_free(out);
	return rc;
}

/* A whole decimal number in [lo, MAX_INDEX] or -1 with a reason naming what it is. */
static long field_number(const char *s, long lo, const char *what, char *why, size_t whysize)
{
	long v;

	if (pm_cli_parse_long(s, lo, MAX_INDEX, &v) != 0) {
		snprintf(why, whysize, "%s '%s' is not a number >= %ld", what, s, lo);
		return -1;
	}
	return v;
}

/* The hardware threads of domain name in order (ORDER_HW_THREAD or ORDER_PHYSICAL_FIRST), or -1
 * with a reason. */
static int named_domain_cpus(hwloc_topology_t topo, const char *name, int order,
			     uint32_t **cpus, size_t *n, char *why, size_t whysize)
{
	hwloc_obj_t dom = find_domain(topo, name, why, whysize);

	if (!dom)
		return -1;
	/* LIKWID orders a NUMA domain's cores by their lowest OS CPU number */
	*cpus = domain_cpus(topo, dom->cpuset, order | (name[0] == 'M' ? ORDER_NUMA : 0), n);
	if (!*cpus) {
		snprintf(why, whysize, "'%s' %s", name, *n ? strerror(ENOMEM) : "has no CPUs");
		*n = 0;
		return -1;
	}
	return 0;
}

/* DOM:indexlist: logical indices into DOM's physical-cores-first order. */
static int part_logical(hwloc_topology_t topo, const char *dom, const char *list, size_t part,
			struct sel *s, char *why, size_t whysize)
{
	struct pm_intlist idx;
	uint32_t *cpus;
	size_t n;
	int rc = 0;

	if (named_domain_cpus(topo, dom, ORDER_PHYSICAL_FIRST, &cpus, &n, why, whysize) != 0)
		return -1;
	if (ordered_list(list, (uint32_t)n - 1, &idx, why, whysize) != 0) {
		/* pm_intlist_parse's "'9' is outside 0-7", plus what the range is */
		size_t len = strlen(why);
		snprintf(why + len, whysize > len ? whysize - len : 0,
			 " (%s has %zu CPUs, logical indices 0-%zu)", dom, n, n - 1);
		free(cpus);
		return -1;
	}
	for (size_t i = 0; i < idx.n && rc == 0; i++)
		rc = sel_push(s, cpus[idx.v[i]], part);
	pm_intlist_free(&idx);
	free(cpus);
	return rc;
}

/* E:DOM[:COUNT[:CHUNK:STRIDE[:OFFSET]]]: from position OFFSET of DOM's hardware-thread order,
 * CHUNK threads, then the next chunk STRIDE positions after the start of this one, COUNT in all. */
static int part_expression(hwloc_topology_t topo, char **f, size_t nf, size_t part, struct sel *s,
			   char *why, size_t whysize)
{
	long count = -1, chunk = 1, stride = 1, offset = 0;
	uint32_t *cpus;
	size_t n, taken = 0;
	int rc = 0;

	if (nf != 2 && nf != 3 && nf != 5 && nf != 6) {
		snprintf(why, whysize, "want E:<domain>[:<count>[:<chunk>:<stride>[:<offset>]]]");
		return -1;
	}
	if ((nf >= 3 && (count = field_number(f[2], 1, "count", why, whysize)) < 0) ||
	    (nf >= 5 && (chunk = field_number(f[3], 1, "chunk", why, whysize)) < 0) ||
	    (nf >= 5 && (stride = field_number(f[4], 1, "stride", why, whysize)) < 0) ||
	    (nf == 6 && (offset = field_number(f[5], 0, "offset", why, whysize)) < 0))
		return -1;
	if (named_domain_cpus(topo, f[1], ORDER_HW_THREAD, &cpus, &n, why, whysize) != 0)
		return -1;
	if (count < 0)
		count = (long)n;
	for (size_t start = (size_t)offset; taken < (size_t)count && rc == 0;
	     start += (size_t)stride) {
		for (size_t j = 0; j < (size_t)chunk && taken < (size_t)count && rc == 0; j++) {
			if (start + j >= n) {
				/* LIKWID starts again at the domain's beginning and repeats CPUs */
				snprintf(why, whysize,
					 "runs past the end of %s (%zu CPUs) after %zu of %ld CPUs", f[1],
					 n, taken, count);
				rc = -1;
				break;
			}
			rc = sel_push(s, cpus[start + j], part);
			taken++;
		}
	}
	free(cpus);
	return rc;
}

/* KIND:scatter[:COUNT] and KIND:balanced[:COUNT] over every domain of KIND that has CPUs. */
static int part_method(hwloc_topology_t topo, char **f, size_t nf, size_t part, struct sel *s,
		       char *why, size_t whysize)
{
	int scatter = strcmp(f[1], "scatter") == 0;
	hwloc_obj_type_t type;
	uint32_t **lists = NULL;
	size_t *sizes = NULL, nd = 0, total = 0, longest = 0;
	long count = -1;
	int rc = -1, nobj = 1;

	if (nf > 3) {
		snprintf(why, whysize, "want <kind>:%s[:<count>]", f[1]);
		return -1;
	}
	if (strcmp(f[0], "N") != 0 && (strlen(f[0]) != 1 || domain_type(topo, f[0][0], &type) != 0)) {
		snprintf(why, whysize, "'%s' is not a domain kind (N, S, D, C, M)", f[0]);
		return -1;
	}
	if (nf == 3 && (count = field_number(f[2], 1, "count", why, whysize)) < 0)
		return -1;
	if (f[0][0] != 'N')
		nobj = hwloc_get_nbobjs_by_type(topo, type);
	if (nobj <= 0) {
		snprintf(why, whysize, "the topology has no %s", domain_noun(f[0][0]));
		return -1;
	}
	lists = calloc((size_t)nobj, sizeof(*lists));
	sizes = calloc((size_t)nobj, sizeof(*sizes));
	if (!lists || !sizes)
		goto nomem;
	for (int i = 0; i < nobj; i++) {
		hwloc_obj_t d = f[0][0] == 'N' ? hwloc_get_root_obj(topo)
					       : hwloc_get_obj_by_type(topo, type, (unsigned)i);
		size_t n;
		uint32_t *c = domain_cpus(topo, d->cpuset,
					  (scatter ? ORDER_PHYSICAL_FIRST : ORDER_HW_THREAD) |
						  (f[0][0] == 'M' ? ORDER_NUMA : 0), &n);
		if (!c && n)
			goto nomem;
		if (!c)
			continue; /* a NUMA node of memory only, say */
		lists[nd] = c;
		sizes[nd++] = n;
		total += n;
		longest = n > longest ? n : longest;
	}
	if (count < 0)
		count = (long)total;
	if ((size_t)count > total) {
		snprintf(why, whysize, "asks for %ld CPUs, but the %s have %zu", count,
			 domain_noun(f[0][0]), total);
		goto out;
	}
	rc = 0;
	if (scatter) {
		/* round robin over the domains, each in physical-cores-first order */
		size_t taken = 0;
		for (size_t k = 0; k < longest && taken < (size_t)count && rc == 0; k++)
			for (size_t d = 0; d < nd && taken < (size_t)count && rc == 0; d++)
				if (k < sizes[d]) {
					rc = sel_push(s, lists[d][k], part);
					taken++;
				}
	} else {
		/* count/nd per domain, the first count%nd domains one more, each domain's share from
		 * the start of its hardware-thread order (LIKWID's "balanced") */
		for (size_t d = 0; d < nd && rc == 0; d++) {
			size_t share = (size_t)count / nd + (d < (size_t)count % nd);
			if (share > sizes[d]) {
				snprintf(why, whysize, "needs %zu CPUs from domain %zu of %s, which has %zu",
					 share, d, domain_noun(f[0][0]), sizes[d]);
				rc = -1;
				break;
			}
			for (size_t j = 0; j < share && rc == 0; j++)
				rc = sel_push(s, lists[d][j], part);
		}
	}
	goto out;
nomem:
	snprintf(why, whysize, "%s", strerror(ENOMEM));
out:
	for (size_t d = 0; lists && d < nd; d++)
		free(lists[d]);
	free(lists);
	free(sizes);
	return rc;
}

/* A plain list of OS CPU numbers, each of which must be a CPU of the topology. */
static int part_plain(hwloc_topology_t topo, const char *list, uint32_t max_os, size_t part,
		      struct sel *s, char *why, size_t whysize)
{
	struct pm_intlist l;
	int rc = 0;

	if (ordered_list(list, max_os, &l, why, whysize) != 0)
		return -1;
	for (size_t i = 0; i < l.n && rc == 0; i++) {
		if (!hwloc_get_pu_obj_by_os_index(topo, l.v[i])) {
			snprintf(why, whysize, "CPU %u is not in the topology", l.v[i]);
			rc = -1;
		} else {
			rc = sel_push(s, l.v[i], part);
		}
	}
	pm_intlist_free(&l);
	return rc;
}

/* Cuts text at every ':' into f[0..MAX_FIELDS-1]; empty fields are kept (and later rejected as
 * numbers or domains). Returns the number of fields, MAX_FIELDS + 1 when there are more. */
static size_t split_fields(char *text, char **f)
{
	size_t nf = 0;

	for (char *p = text;; p++) {
		if (nf == MAX_FIELDS)
			return MAX_FIELDS + 1;
		f[nf++] = p;
		p = strchr(p, ':');
		if (!p)
			return nf;
		*p = '\0';
	}
}

/* One '@'-separated part: dispatch on its shape (cpuexpr.h). */
static int parse_part(hwloc_topology_t topo, char *text, uint32_t max_os, size_t part,
		      struct sel *s, char *why, size_t whysize)
{
	char *f[MAX_FIELDS], *colon = strchr(text, ':');
	size_t nf, second_len;

	if (text[0] >= '0' && text[0] <= '9')
		return part_plain(topo, text, max_os, part, s, why, whysize);
	if (!colon) {
		/* a whole domain, in its hardware-thread order (LIKWID: E:<domain>) */
		char e[] = "E";
		f[0] = e;
		f[1] = text;
		return part_expression(topo, f, 2, part, s, why, whysize);
	}
	second_len = strcspn(colon + 1, ":");
	if (colon == text + 1 && (text[0] == 'E' || text[0] == 'L')) {
		if (text[0] == 'L') {
			/* L:<indexlist> (domain N) or L:<domain>:<indexlist> */
			char *rest = colon + 1, *c2 = strchr(rest, ':');
			if (rest[0] >= '0' && rest[0] <= '9')
				return part_logical(topo, "N", rest, part, s, why, whysize);
			if (!c2) {
				snprintf(why, whysize, "want L:<domain>:<indexlist>");
				return -1;
			}
			*c2 = '\0';
			return part_logical(topo, rest, c2 + 1, part, s, why, whysize);
		}
		nf = split_fields(text, f);
		return part_expression(topo, f, nf, part, s, why, whysize);
	}
	if ((second_len == 7 && strncmp(colon + 1, "scatter", 7) == 0) ||
	    (second_len == 8 && strncmp(colon + 1, "balanced", 8) == 0)) {
		nf = split_fields(text, f);
		return part_method(topo, f, nf, part, s, why, whysize);
	}
	/* DOM:indexlist; the list may have a stride ("S0:0-7:2"), so only the first ':' splits */
	*colon = '\0';
	return part_logical(topo, text, colon + 1, part, s, why, whysize);
}

int pm_cpuexpr_parse(hwloc_topology_t topo, const char *expr, struct pm_cpuexpr *out,
		      char *why, size_t whysize)
{
	struct sel s = { 0 };
	char *copy = NULL, *save = NULL, **parts = NULL, reason[256];
	size_t nparts = 0, *owner = NULL;
	uint32_t max_os = 0;
	hwloc_obj_t pu = NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!topo || !expr || !expr[0]) {
		snprintf(why, whysize, "empty CPU expression");
		return -1;
	}
	while ((pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu)))
		max_os = pu->os_index > max_os ? pu->os_index : max_os;
	copy = strdup(expr);
	parts = calloc(strlen(expr) / 2 + 2, sizeof(*parts));
	owner = calloc((size_t)max_os + 1, sizeof(*owner));
	if (!copy || !parts || !owner) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		goto out;
	}
	if (expr[0] == '@' || expr[strlen(expr) - 1] == '@' || strstr(expr, "@@")) {
		snprintf(why, whysize, "'%s' has an empty part between '@'s", expr);
		goto out;
	}
	for (char *p = copy, *tok; (tok = strtok_r(p, "@", &save)); p = NULL)
		parts[nparts++] = tok;
	for (size_t i = 0; i < nparts; i++) {
		/* parse_part cuts its text into fields: keep a copy for messages */
		char shown[64], *text = parts[i];
		pm_cli_sanitize(shown, sizeof(shown), text, strlen(text));
		parts[i] = strdup(shown);
		if (!parts[i]) {
			parts[i] = text; /* not freed below: it points into copy */
			snprintf(why, whysize, "%s", strerror(ENOMEM));
			nparts = i;
			goto out;
		}
		if (parse_part(topo, text, max_os, i, &s, reason, sizeof(reason)) != 0) {
			snprintf(why, whysize, "in '%s': %s", parts[i], reason);
			nparts = i + 1;
			goto out;
		}
	}
	/* LIKWID pins two threads to one CPU without a word; a measurement must not */
	for (size_t i = 0; i < s.n; i++) {
		uint32_t c = s.cpus[i];
		if (owner[c]) {
			if (owner[c] - 1 == s.part[i])
				snprintf(why, whysize, "CPU %u is selected twice by '%s'", c,
					 parts[s.part[i]]);
			else
				snprintf(why, whysize, "CPU %u is selected twice, by '%s' and by '%s'",
					 c, parts[owner[c] - 1], parts[s.part[i]]);
			goto out;
		}
		owner[c] = s.part[i] + 1;
	}
	out->set.v = malloc(s.n * sizeof(*out->set.v));
	if (!out->set.v) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		goto out;
	}
	/* owner[] marks exactly the selected CPUs: walking it gives them sorted */
	for (uint32_t c = 0; c <= max_os; c++)
		if (owner[c])
			out->set.v[out->set.n++] = c;
	out->cpus = s.cpus;
	out->ncpus = s.n;
	s.cpus = NULL;
	rc = 0;
out:
	for (size_t i = 0; i < nparts; i++)
		free(parts[i]);
	free(parts);
	free(copy);
	free(owner);
	free(s.cpus);
	free(s.part);
	if (rc != 0)
		pm_cpuexpr_free(out);
	return rc;
}

void pm_cpuexpr_free(struct pm_cpuexpr *e)
{
	if (!e)
		return;
	free(e->cpus);
	pm_intlist_free(&e->set);
	e->cpus = NULL;
	e->ncpus = 0;
}
