/* SPDX-License-Identifier: GPL-2.0-only */
/* The -h and bad-usage contract of every command (cmds.h). */
#include "cmds.h"

int cmd_usage(void (*usage)(FILE *), int status)
{
	usage(status == CMD_HELP ? stdout : stderr);
	return status;
}
