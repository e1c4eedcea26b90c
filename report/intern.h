/* Interned strings: one copy of each, so that the report compares names
 * and file names by pointer. */
#ifndef PGOPROF_REPORT_INTERN_H
#define PGOPROF_REPORT_INTERN_H

#include <stddef.h>

struct strtab {
	char **slot;		/* open addressing; NULL empty */
	size_t cap, n;
};

void strtab_init(struct strtab *t);
/* Free every string the table holds (pointers it gave become invalid). */
void strtab_free(struct strtab *t);
/* The table's copy of s (added if new): owned by t, stable until
 * strtab_free.  Never fails (allocation exits). */
const char *strtab_get(struct strtab *t, const char *s);

#endif
