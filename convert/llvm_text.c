#include "llvm_text.h"

#include <inttypes.h>

static void write_loc(FILE *f, int indent, uint32_t line, uint32_t disc)
{
	fprintf(f, "%*s%" PRIu32, indent, "", line);
	if (disc)
		fprintf(f, ".%" PRIu32, disc);
	fputs(": ", f);
}

static void write_node(const struct fsamples *s, FILE *f, int indent)
{
	fprintf(f, "%s:%" PRIu64, s->name, s->total);
	if (indent == 0)
		fprintf(f, ":%" PRIu64, s->head);
	fputc('\n', f);
	for (size_t i = 0; i < s->nbody; i++) {
		const struct fs_body *b = &s->body[i];

		write_loc(f, indent + 1, b->line, b->disc);
		fprintf(f, "%" PRIu64, b->count);
		for (size_t j = 0; j < b->ntargets; j++)
			fprintf(f, " %s:%" PRIu64, b->targets[j].name,
				b->targets[j].count);
		fputc('\n', f);
	}
	for (size_t i = 0; i < s->ncs; i++) {
		write_loc(f, indent + 1, s->cs[i].line, s->cs[i].disc);
		write_node(s->cs[i].callee, f, indent + 1);
	}
}

int llvm_text_write(const struct fs_profile *p, FILE *f)
{
	for (size_t i = 0; i < p->nfuncs; i++)
		write_node(p->funcs[i], f, 0);
	return ferror(f) ? -1 : 0;
}
