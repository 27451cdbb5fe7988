/* SPDX-License-Identifier: MIT */
/* report_notes.c: the report's notes in HTML: those that ask for an action ("What to do next")
 * and those that ask for none ("Notes"). The table's and JSON's notes are render_util.c's. */
#include "report_sections.h"

#include <stdlib.h>

#include "render_util.h"
#include "html.h"
#include "html_util.h"

/* Writes the notes that ask for an action (actions = 1: each action with its reason) or those
 * that ask for none (actions = 0: the text alone) as one list; returns how many it wrote. */
static int note_list(FILE *out, const struct pma_result *r, int actions)
{
	int any = 0;

	for (size_t i = 0; i < r->notes.n; i++) {
		/* whole, however long (a 3000-byte command was cut at 2048 bytes) */
		const struct pma_note *nt = &r->notes.v[i];
		char *a = pma_note_action_alloc(nt), *text;

		if (!a == !actions) {
			text = pma_note_alloc(nt);
			P("%s<li>", any++ ? "" : "<ul class=\"notes\">\n");
			if (a) {
				P("<strong>");
				pma_html_escape(out, a);
				P("</strong><br><span class=\"because\">Why: ");
			}
			pma_html_escape(out, text ? text : "out of memory");
			P("%s</li>\n", a ? "</span>" : "");
			free(text);
		}
		free(a);
	}
	if (any)
		P("</ul>\n");
	return any;
}

/* The notes that ask for an action (pma_note_action), each with its reason: an invariant's or a
 * statement's note is no action and goes to "Notes" (pma_render_html_notes). */
static int pma_render_html_next(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	(void)why;
	(void)whysize;
	if (note_list(out, r, 1))
		return 0;
	if (r->notes.n)
		P("<p>Nothing to do: no note asks for an action (see Notes).</p>\n");
	else
		P("<p>Nothing to do: the model had every input it uses.</p>\n");
	return 0;
}

/* The notes that ask for no action (invariants enforced, statements about the result). */
static int pma_render_html_notes(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	(void)why;
	(void)whysize;
	if (!note_list(out, r, 0))
		P("<p>None.</p>\n");
	return 0;
}


/* ---- the section ---- */

static void notes_table(FILE *out, const struct pma_result *r)
{
	pma_render_print_notes(out, &r->notes, "\nnote: ");
}

void pma_render_notes_section_json(cJSON *root, const struct pma_result *r)
{
	pma_render_notes_json(root, "notes", "coded_notes", &r->notes);
}

/* Last: the notes of every other section. */
const struct pma_section pma_section_notes = {
	.name = "notes",
	.table = notes_table,
	.json = pma_render_notes_section_json,
	.html = { { PMA_PAGE_ACTIONS, "next", "What to do next", pma_render_html_next },
		  { PMA_PAGE_NOTES, "notes", "Notes", pma_render_html_notes } },
};
