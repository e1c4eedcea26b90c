/* SPDX-License-Identifier: GPL-2.0-only */
/* Who ran us through sudo, and becoming that user (docs/threat-model.md):
 * pgoprof-record's output writer and the whole of pgoprof record --exact,
 * which needs no privilege, act with the invoking user's rights.
 * Interfaces: sudo(8) SUDO_UID/SUDO_GID, initgroups(3), setresgid(2),
 * setresuid(2). */
#ifndef PGOPROF_SUDO_H
#define PGOPROF_SUDO_H

#include <sys/types.h>

/* The invoking user of a sudo run: 1 with *uid, *gid from SUDO_UID and
 * SUDO_GID when the real user is root and SUDO_UID is set and not 0; 0
 * when there is none (no SUDO_UID, sudo from root, or a real user that is
 * not root: anyone can set the variables); -1 after a message naming the
 * variable when SUDO_UID or SUDO_GID is not a number. */
int sudo_invoker(uid_t *uid, gid_t *gid);

/* Become uid:gid for good: that user's supplementary groups (initgroups,
 * or gid alone for a user without a passwd entry), then real, effective
 * and saved group and user IDs.  The capabilities go with user ID 0
 * (capabilities(7)); that setuid(0) then fails is checked, not assumed.
 * No no_new_privs: a command run so behaves as run by the user.
 * Returns 0, or -1 after a message. */
int become_user(uid_t uid, gid_t gid);

#endif
