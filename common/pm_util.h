/* SPDX-License-Identifier: MIT */
/* pm_util.h: small helpers every layer needs (array growth, ARRAY_SIZE, a `why` buffer, a tid
 * hash map), so that each module does not carry its own copy. No I/O, no printing: the code here
 * returns 0 or a negative errno code, like the rest of the library code (STYLE.md 1, 7b). */
#ifndef PM_UTIL_H
#define PM_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Number of elements of an array (not a pointer: the second term makes that a compile error,
 * as in the Linux kernel's ARRAY_SIZE and git's ARRAY_SIZE). */
#define PM_IS_ARRAY_(a) (!__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0])))
#define PM_ARRAY_SIZE(a) \
	(sizeof(a) / sizeof((a)[0]) + 0 * sizeof(struct { int pm_not_an_array_ : PM_IS_ARRAY_(a) ? 1 : -1; }))

/* Largest byte size PM_GROW will allocate: C objects cannot be larger than PTRDIFF_MAX. */
#define PM_GROW_MAX_BYTES ((size_t)PTRDIFF_MAX)

/* The capacity (in elements) an array of capacity cap must grow to so that it holds need
 * elements of elem_size bytes: cap itself when cap >= need, otherwise cap doubled (at least 16)
 * until >= need, clamped to PM_GROW_MAX_BYTES / elem_size. Pure arithmetic (no allocation).
 * Returns 0 and sets *out, or -EOVERFLOW when need elements would exceed PM_GROW_MAX_BYTES
 * (or elem_size is 0), leaving *out alone. */
int pm_grow_capacity(size_t cap, size_t need, size_t elem_size, size_t *out);

/* Grows the heap array *p (capacity *cap elements of elem_size bytes) with realloc() to the
 * capacity pm_grow_capacity() gives. Returns 0, or -EOVERFLOW / -ENOMEM leaving *p and *cap
 * unchanged (the old array stays valid and owned by the caller). Use PM_GROW rather than this. */
int pm_grow_array(void **p, size_t *cap, size_t need, size_t elem_size);

/* PM_GROW(ptr, cap, need): grows the array ptr (element type from *ptr; NULL with cap 0 to
 * start) so that cap (a size_t lvalue) is >= need, doubling, at least 16 elements. Evaluates to
 * 0, or -1 on overflow or out of memory, leaving ptr and cap unchanged. ptr and cap are
 * evaluated more than once: pass plain lvalues. Model: git's ALLOC_GROW. */
#define PM_GROW(ptr, cap, need)                                                          \
	__extension__({                                                                   \
		void *pm_grow_p_ = (ptr);                                                 \
		int pm_grow_r_ = pm_grow_array(&pm_grow_p_, &(cap), (need), sizeof(*(ptr))); \
		(ptr) = pm_grow_p_;                                                       \
		pm_grow_r_ < 0 ? -1 : 0;                                                  \
	})

/* CLOCK_MONOTONIC now, in ns (clock_gettime(2)). */
uint64_t pm_mono_ns(void);

/* Writes a formatted one-line reason into why (size whysize, always NUL-terminated, truncated
 * to fit). Does nothing when why is NULL or whysize is 0, so callers may pass either. */
void pm_set_why(char *why, size_t whysize, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* pmcollect --sweep's placeholder, replaced by the thread count in the command's arguments; a
 * sweep trace's META command keeps it (the analyzer substitutes it in the commands it suggests). */
#define PM_SWEEP_PLACEHOLDER "{threads}"

/* A copy of s with every occurrence of from (not empty) replaced by to (PM_SWEEP_PLACEHOLDER).
 * Returns a string the caller frees, or NULL when memory runs out. */
char *pm_str_replace(const char *s, const char *from, const char *to);

/* Open-addressing hash map from a non-zero uint32 tid (or tgid, pid) to a uint32 index, with
 * linear probing and backward-shift deletion (no tombstones, so lookups stay short after many
 * threads come and go). Load factor at most 1/2; capacity a power of two, at least 64 once used.
 * The fields are read-only for users: count is the number of keys held. */
struct pm_tidmap {
	uint32_t *key; /* cap slots; 0 = empty */
	uint32_t *val; /* cap slots */
	size_t cap;    /* power of two, or 0 before the first put */
	size_t count;
};

/* An empty map (no allocation until the first put); same as pm_tidmap_init(). */
#define PM_TIDMAP_INIT { NULL, NULL, 0, 0 }

/* Makes m an empty map. Allocates nothing; cannot fail. */
void pm_tidmap_init(struct pm_tidmap *m);

/* The median of the finite values of v[0..n-1] (v is reordered: the finite values first, sorted);
 * NAN when none. */
double pm_median_finite(double *v, size_t n);

/* Frees the slots of m (m itself is the caller's) and leaves it empty and usable. NULL is allowed. */
void pm_tidmap_free(struct pm_tidmap *m);

/* Looks tid up. Returns 1 and sets *index when it is in the map, 0 (index untouched) when it
 * is not; tid 0 is never in the map. */
int pm_tidmap_get(const struct pm_tidmap *m, uint32_t tid, uint32_t *index);

/* Maps tid to index, replacing an existing mapping (which never allocates, so never fails).
 * Returns 0, -EINVAL for tid 0, or -ENOMEM (or -EOVERFLOW) when the slots could not grow; the
 * map is unchanged on error. */
int pm_tidmap_put(struct pm_tidmap *m, uint32_t tid, uint32_t index);

/* Removes tid. Returns 1 when it was in the map, 0 when not. Never allocates. */
int pm_tidmap_remove(struct pm_tidmap *m, uint32_t tid);

/* Removes every key, keeping the slots for reuse (rebuilding after a compaction of the array the
 * indexes point into). */
void pm_tidmap_clear(struct pm_tidmap *m);

#endif
