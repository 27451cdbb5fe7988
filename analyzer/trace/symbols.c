/* SPDX-License-Identifier: MIT */
/* symbols.c: code addresses of a traced program to function and file:line (elfutils libdwfl). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"

struct pma_symbols {
	Dwfl *dwfl;
	int reporting; /* between dwfl_report_begin(_add) and dwfl_report_end */
};

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static void copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

int pma_symbol_outlined_parent(const char *name, char *parent, size_t size)
{
	const char *p;

	if (!name)
		return -1;
	p = strstr(name, "._omp_fn.");          /* GCC */
	if (!p)
		p = strstr(name, ".omp_outlined");  /* clang */
	if (!p)
		return -1;
	if (p == name)
		return 0; /* clang 14: ".omp_outlined." names no parent */
	snprintf(parent, size, "%.*s", (int)(p - name), name);
	return 1;
}

int pma_symbols_open(struct pma_symbols **out, char *why, size_t whysize)
{
	struct pma_symbols *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	elf_version(EV_CURRENT);
	s->dwfl = dwfl_begin(&callbacks);
	if (!s->dwfl) {
		snprintf(why, whysize, "libdwfl: %s", dwfl_errmsg(-1));
		free(s);
		return -1;
	}
	dwfl_report_begin(s->dwfl);
	s->reporting = 1;
	*out = s;
	return 0;
}

/* The GNU build-id of the file at path: its length (0: none), -1 when it cannot be read. */
static int file_build_id(const char *path, uint8_t *out, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = -1;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		const void *id;
		ssize_t len = dwelf_elf_gnu_build_id(elf, &id);

		n = 0;
		if (len > 0) {
			n = (int)((size_t)len < max ? (size_t)len : max);
			memcpy(out, id, (size_t)n);
		}
	}
	elf_end(elf);
	close(fd);
	return n;
}

int pma_symbols_add(struct pma_symbols *s, const char *path, uint64_t load_addr,
		    const uint8_t *build_id, size_t build_id_bytes, char *why, size_t whysize)
{
	uint8_t id[64];
	int n = file_build_id(path, id, sizeof(id));

	if (n < 0) {
		snprintf(why, whysize, "cannot read '%s' as an ELF file", path);
		return -1;
	}
	if (build_id_bytes && ((size_t)n != build_id_bytes || memcmp(id, build_id, build_id_bytes))) {
		snprintf(why, whysize, "'%s' is not the file that was traced: its build-id differs", path);
		return -1;
	}
	if (!s->reporting) {
		dwfl_report_begin_add(s->dwfl);
		s->reporting = 1;
	}
	if (!dwfl_report_elf(s->dwfl, path, path, -1, load_addr, false)) {
		snprintf(why, whysize, "cannot map '%s': %s", path, dwfl_errmsg(-1));
		return -1;
	}
	return 0;
}

/* The function of compilation unit cu declared last at or before line in file: the parent of a
 * clang 14 outlined body, which carries no parent in its name. file NULL: the unit's primary file
 * (elfutils 0.188 has no name for DWARF 5's file index 0, which is where clang puts it). */
static const char *enclosing_function(Dwarf_Die *cu, const char *file, int line)
{
	Dwarf_Die child;
	const char *best = NULL;
	int best_line = 0;

	if (dwarf_child(cu, &child) != 0)
		return NULL;
	do {
		const char *name, *f;
		int l;
		char parent[8];

		if (dwarf_tag(&child) != DW_TAG_subprogram || dwarf_hasattr(&child, DW_AT_declaration))
			continue;
		name = dwarf_diename(&child);
		if (!name || pma_symbol_outlined_parent(name, parent, sizeof(parent)) >= 0)
			continue;
		f = dwarf_decl_file(&child);
		if ((f || file) && (!f || !file || strcmp(f, file)))
			continue;
		if (dwarf_decl_line(&child, &l) || l > line || l < best_line)
			continue;
		best = name;
		best_line = l;
	} while (dwarf_siblingof(&child, &child) == 0);
	return best;
}

/* The compilation unit holding pc. clang emits no .debug_aranges, which dwfl_module_addrdie needs
 * in elfutils 0.188, so the units' own ranges are scanned when it finds nothing. */
static Dwarf_Die *find_cu(Dwfl_Module *mod, Dwarf_Addr pc, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, bias);

	if (cu)
		return cu;
	while ((cu = dwfl_module_nextcu(mod, cu, bias)))
		if (dwarf_haspc(cu, pc - *bias) > 0)
			return cu;
	return NULL;
}

int pma_symbols_lookup(struct pma_symbols *s, uint64_t addr, int return_address,
		       struct pma_symbol *out)
{
	Dwarf_Addr pc = return_address && addr ? addr - 1 : addr, bias = 0;
	Dwfl_Module *mod;
	Dwarf_Die *cu, *scopes = NULL, named;
	Dwarf_Line *l;
	const char *mainfile = NULL, *name = NULL;
	int nscopes, have_named = 0;

	memset(out, 0, sizeof(*out));
	if (s->reporting) {
		dwfl_report_end(s->dwfl, NULL, NULL);
		s->reporting = 0;
	}
	mod = dwfl_addrmodule(s->dwfl, pc);
	if (!mod)
		return -1;
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
	copy(out->object, sizeof(out->object), mainfile);
	if (dwfl_module_getelf(mod, &bias))
		out->offset = addr - bias;
	cu = find_cu(mod, pc, &bias);
	l = cu ? dwarf_getsrc_die(cu, pc - bias) : NULL;
	if (l) {
		copy(out->file, sizeof(out->file), dwarf_linesrc(l, NULL, NULL));
		dwarf_lineno(l, &out->line);
	}
	/* the innermost function or inlined call that has a name */
	nscopes = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
	for (int i = 0; i < nscopes; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) &&
		    dwarf_diename(&scopes[i])) {
			named = scopes[i];
			have_named = 1;
			name = dwarf_diename(&named);
			break;
		}
	}
	if (!name) {
		GElf_Off off;
		GElf_Sym sym;

		name = dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL);
	}
	copy(out->symbol, sizeof(out->symbol), name);
	switch (pma_symbol_outlined_parent(out->symbol, out->function, sizeof(out->function))) {
	case 1:
		out->outlined = 1;
		break;
	case 0: {
		/* the body's own declaration line (clang puts the construct's block there), or the
		 * address's line when it has none */
		const char *file = have_named ? dwarf_decl_file(&named) : out->file;
		int line = 0;

		out->outlined = 1;
		if (!have_named || dwarf_decl_line(&named, &line))
			line = out->line;
		copy(out->function, sizeof(out->function), cu ? enclosing_function(cu, file, line) : NULL);
		break;
	}
	default:
		copy(out->function, sizeof(out->function), name);
	}
	free(scopes);
	return 0;
}

void pma_symbols_close(struct pma_symbols *s)
{
	if (!s)
		return;
	dwfl_end(s->dwfl);
	free(s);
}
