/* SPDX-License-Identifier: GPL-2.0-only */
#include "sudo.h"
#include "util.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sudo_invoker(uid_t *uid, gid_t *gid)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	unsigned long uv, gv;
	char *end;

	if (getuid() != 0 || !u || !*u)
		return 0;
	uv = strtoul(u, &end, 10);
	if (*u < '0' || *u > '9' || *end || uv >= (uid_t)-1)
		return err("SUDO_UID=%s: not a user ID", u);
	gv = g && *g ? strtoul(g, &end, 10) : 0;
	if (!g || *g < '0' || *g > '9' || *end || gv >= (gid_t)-1)
		return err("SUDO_GID=%s: not a group ID (SUDO_UID is set)", g ? g : "");
	if (uv == 0)
		return 0;	/* sudo from root: plain root */
	*uid = (uid_t)uv;
	*gid = (gid_t)gv;
	return 1;
}

int become_user(uid_t uid, gid_t gid)
{
	struct passwd *pw = getpwuid(uid);
	uid_t r, e, s;

	if (pw ? initgroups(pw->pw_name, gid) : setgroups(1, &gid))
		return err("cannot take the groups of user %lu: %s",
			   (unsigned long)uid, strerror(errno));
	if (setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
		return err("cannot become user %lu: %s", (unsigned long)uid,
			   strerror(errno));
	if (uid && (!setuid(0) || getresuid(&r, &e, &s) || r != uid ||
		    e != uid || s != uid))
		return err("user %lu could become root again: stopped", (unsigned long)uid);
	return 0;
}
