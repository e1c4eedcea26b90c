/* SPDX-License-Identifier: GPL-2.0-only */
/* Interfaces: capset(2), prctl(2) PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP,
 * PR_CAP_AMBIENT; capabilities(7). */
#include "privdrop.h"
#include "../lib/util.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int n = CAP_LAST_CAP;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = CAP_LAST_CAP;
		fclose(f);
	}
	return n;
}

int drop_privileges(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	uint32_t keep = 1u << CAP_DAC_READ_SEARCH;	/* in word 0 */
	int last = last_cap();	/* read once: it is a file (41 reads cost ~2 ms) */

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return err("cannot set no_new_privs: %s", strerror(errno));
	/* Needs CAP_SETPCAP, which a process with file capabilities may not
	 * have: then the bounding set stays, and no_new_privs guards it. */
	for (int c = 0; c <= last; c++)
		if (c != CAP_DAC_READ_SEARCH)
			prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capget, &h, d))
		return err("capget: %s", strerror(errno));
	d[0].effective = d[0].permitted &= keep;
	d[0].inheritable = 0;
	d[1].effective = d[1].permitted = d[1].inheritable = 0;
	if (syscall(SYS_capset, &h, d))
		return err("cannot drop capabilities: %s", strerror(errno));
	return 0;
}
