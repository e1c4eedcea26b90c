/* SPDX-License-Identifier: GPL-2.0-only */
/* Giving up privileges once the BPF programs and perf events are set up. */
#ifndef PGOPROF_PRIVDROP_H
#define PGOPROF_PRIVDROP_H

/* Drop every capability (effective, permitted, inheritable, ambient and,
 * where allowed, bounding) but CAP_DAC_READ_SEARCH, which the unwinder
 * keeps to read the target's binaries wherever they are (a home directory
 * is 0700 on Debian 12), and forbid gaining new ones (no_new_privs).
 * What is already open (BPF maps, ring buffers, perf events) keeps
 * working.  The user ID stays (docs/threat-model.md); the output file is
 * written by a child that has the invoking user's rights (outwriter.h).
 * Returns 0, or -1 with a message. */
int drop_privileges(void);

#endif
