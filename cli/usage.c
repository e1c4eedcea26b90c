/* SPDX-License-Identifier: GPL-2.0-only */
/* The -h and bad-usage contract of every command (cmds.h). */
#include <string.h>

#include "cmds.h"
#include "../lib/util.h"

int cmd_usage(void (*usage)(FILE *), int status)
{
	usage(status == CMD_HELP ? stdout : stderr);
	return status;
}

int cmd_choice(const char *option, const char *arg, const char *const *names)
{
	char list[256];
	size_t len = 0;
	int i, n;

	for (n = 0; names[n]; n++)
		if (!strcmp(arg, names[n]))
			return n;
	list[0] = 0;
	for (i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
	err("--%s %s: give %s", option, arg, list);
	return -1;
}
