/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz target: the perf.data importer (import/perfdata/perfdata.c perfdata_import)
 * and its probe, by the properties of fuzz_import.h; the event filter
 * cpu-clock:u. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import(data, size, perfdata_probe, perfdata_import,
			   "fuzz.data", "cpu-clock:u");
}
