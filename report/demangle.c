/* SPDX-License-Identifier: GPL-2.0-only */
/* Demangling is libiberty's cplus_demangle (binutils and GDB use it; the
 * Debian package libiberty-dev), not ours: the Itanium C++ ABI's grammar
 * is large and keeps growing. */
#include "demangle.h"

#include <libiberty/demangle.h>
#include <string.h>

char *rep_demangle(const char *name)
{
	/* Only "_Z..." is a C++ name: cplus_demangle would otherwise try
	 * older schemes on plain C names. */
	if (strncmp(name, "_Z", 2))
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}
