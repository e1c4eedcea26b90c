/* SPDX-License-Identifier: GPL-2.0-only */
/* Fuzz target: the pprof importer (import/pprof.c pprof_import) and its
 * probes, by the properties of fuzz_import.h; its event filter is the
 * sample type "cpu" here, with callers taken as call addresses (Go's). */
#include "fuzz_import.h"
#include "../../import/pprof.h"

static int import(struct raw_profile *p, const uint8_t *buf, size_t len,
		  const char *name, const struct perfdata_options *opt)
{
	return pprof_import(p, buf, len, name, opt->event,
			    opt->event ? PPROF_CALLERS_CALL : PPROF_CALLERS_AUTO);
}

static int probe(const uint8_t *buf, size_t len)
{
	return pprof_probe_gzip(buf, len) || pprof_probe_proto(buf, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import(data, size, probe, import, "fuzz.pb", "cpu");
}
