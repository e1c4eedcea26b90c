/* SPDX-License-Identifier: GPL-2.0-only */
/* C++ (Itanium ABI) names for people, by libiberty's demangler. */
#ifndef PGOPROF_REPORT_DEMANGLE_H
#define PGOPROF_REPORT_DEMANGLE_H

/* The demangled form of a linkage name (with parameter types), malloc'd;
 * NULL if name is not a mangled name (a C function, "[kernel]"), so the
 * caller keeps name as it is. */
char *rep_demangle(const char *name);

#endif
