/* Giving up privileges once the BPF programs and perf events are set up. */
#ifndef PGOPROF_PRIVDROP_H
#define PGOPROF_PRIVDROP_H

/* Drop every capability (effective, permitted, inheritable, ambient and,
 * where allowed, bounding) but CAP_DAC_READ_SEARCH, which the unwinder
 * keeps to read the target's binaries wherever they are (a home directory
 * is 0700 on Debian 12), and forbid gaining new ones (no_new_privs).
 * What is already open (BPF maps, ring buffers, perf events) keeps
 * working.  The user ID stays: as root, files that root owns stay
 * writable, and the profile is written where it was asked for.  keep_chown
 * (run through sudo) keeps CAP_CHOWN too, to give the profile to the
 * invoking user at the end: as root (user ID 0) the process can write the
 * files root owns anyway, so it gains no reach (docs/threat-model.md).
 * Returns 0, or -1 with a message. */
int drop_privileges(int keep_chown);

#endif
