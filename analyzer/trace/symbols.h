/* SPDX-License-Identifier: MIT */
/* symbols.h: offline symbolization of code addresses recorded in a traced program (OMPT codeptr_ra)
 * to function and file:line with elfutils' libdw, outlined OpenMP bodies mapped to their parent. */
#ifndef PMA_SYMBOLS_H
#define PMA_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct pma_symbols;

/* What an address is. */
struct pma_symbol {
	char function[256];   /* the source function: the innermost function or inlined call at the
				 address, or for an outlined OpenMP body the function that holds the
				 construct; "" unknown */
	char symbol[256];     /* the innermost name as the debug info or symbol table has it
				 (".omp_outlined._debug__.15", "main._omp_fn.0"); "" unknown */
	int outlined;         /* symbol is an outlined OpenMP body (see pma_symbol_outlined_parent) */
	char file[1024];      /* source file, "" without line information */
	int line;             /* source line, 0 without line information */
	char object[1024];    /* path of the object (executable or library) that holds the address */
	uint64_t offset;      /* address - the object's load address */
};

/* Creates an empty symbolizer; the caller owns it (pma_symbols_close). Returns 0, or -1 with the
 * reason in why (libdwfl could not start). */
int pma_symbols_open(struct pma_symbols **out, char *why, size_t whysize);

/* Adds the object at path loaded at load_addr in the traced process (dl_iterate_phdr's dlpi_addr,
 * the load bias; 0 for a non-PIE executable). With build_id_bytes > 0 the file's GNU build-id must
 * equal build_id (so a rebuilt binary is not used to name an old trace's addresses). Separate debug
 * files are found by libdwfl's standard search (/usr/lib/debug/.build-id). Call for every object
 * before the first pma_symbols_lookup. Returns 0, or -1 with the reason in why (no such file, not
 * an ELF file, the build-id differs); the symbolizer stays usable. */
int pma_symbols_add(struct pma_symbols *s, const char *path, uint64_t load_addr,
		    const uint8_t *build_id, size_t build_id_bytes, char *why, size_t whysize);

/* Symbolizes addr, an address of the traced process. return_address: addr is a return address
 * (OMPT codeptr_ra), so the call instruction before it is looked up (addr - 1) and its line is the
 * construct's. Inlined calls are resolved (the innermost inlined function is named). An outlined
 * OpenMP body is named by its parent: from the name itself when it carries it (GCC
 * "foo._omp_fn.N", clang >= 16 "foo.omp_outlined"), else (clang 14 ".omp_outlined.") the function
 * of the same compilation unit and source file that is declared last at or before the body's line.
 * Returns 0 (out->function may still be "" when the object has neither symbols nor debug info), or
 * -1 when no added object holds addr (out->object is then ""). */
int pma_symbols_lookup(struct pma_symbols *s, uint64_t addr, int return_address,
		       struct pma_symbol *out);

/* Frees the symbolizer (accepts NULL). */
void pma_symbols_close(struct pma_symbols *s);

/* Is name an outlined OpenMP body, and whose? GCC names them "<parent>._omp_fn.<N>", clang 16 and
 * later "<parent>.omp_outlined" (with suffixes such as "_debug__" or ".1"), clang 14
 * ".omp_outlined." / ".omp_outlined..<N>" / ".omp_outlined._debug__.<N>" without the parent.
 * Returns 1 with the parent's name in parent (cut to size), 0 when the name is outlined but does not
 * say its parent, -1 when it is not an outlined name. Pure. */
int pma_symbol_outlined_parent(const char *name, char *parent, size_t size);

#endif
