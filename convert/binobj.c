/* SPDX-License-Identifier: GPL-2.0-only */
#include "binobj.h"

#include <unistd.h>

int binobj_find(struct symbolizer *s, const struct raw_profile *p,
		const char *raw_path, const char *recorded_path)
{
	struct raw_binary b = { sym_path(s), NULL, 0, recorded_path };

	b.build_id = sym_build_id(s, &b.build_id_len);
	return raw_binary_object(p, raw_path, &b);
}

struct symbolizer *binobj_open_recorded(const struct raw_object *o)
{
	struct symbolizer *s;
	const uint8_t *id;
	size_t len;

	if (!o->path || o->path[0] != '/' || access(o->path, R_OK))
		return NULL;
	s = sym_open(o->path, NULL, 0);
	if (!s)
		return NULL;
	id = sym_build_id(s, &len);
	if (!raw_file_is_object(o, o->path, id, len)) {
		sym_close(s);
		return NULL;
	}
	return s;
}
