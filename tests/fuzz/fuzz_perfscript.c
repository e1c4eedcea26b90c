/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz target: the perf script text importer (import/perfscript/perfscript.c
 * perfscript_import) and its probe, by the properties of fuzz_import.h;
 * the event filter cpu-clock. */
#include "fuzz_import.h"
#include "../../import/perfscript/perfscript.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import(data, size, perfscript_probe, perfscript_import,
			   "fuzz.txt", "cpu-clock");
}
