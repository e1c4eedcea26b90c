/* SPDX-License-Identifier: GPL-2.0-only */
/* The processes that -p names: whether they can give samples, and the
 * descendants they have when recording starts. */
#ifndef PGOPROF_TARGET_H
#define PGOPROF_TARGET_H

#include <stddef.h>
#include <sys/types.h>

/* 0 when process pid runs user code that can be sampled; -1 after a
 * message naming it when it does not exist, cannot be read (EACCES: the
 * message says so, not "does not exist"), is a zombie, or is a kernel
 * thread (PF_KTHREAD in /proc/PID/stat, include/linux/sched.h). */
int target_check(pid_t pid);

/* The descendants of pid that exist now (threads' children included, from
 * /proc/PID/task/TID/children, Linux 3.5 with CONFIG_PROC_CHILDREN), in
 * *out (malloc'd, the caller frees).  Returns how many; 0 when none or
 * when the kernel does not list children. */
size_t target_descendants(pid_t pid, pid_t **out);

/* The threads of process pid that exist now (/proc/PID/task), appended
 * to (*out)[*n..] unless already there (*out malloc'd and grown, *cap
 * its room; the caller frees).  Returns how many it added: 0 when pid
 * has ended or has no thread that is not listed yet. */
size_t target_threads(pid_t pid, pid_t **out, size_t *n, size_t *cap);

/* The CPU time, user and system, that the threads of process pid have
 * used so far, in seconds (proc(5) /proc/PID/stat fields 14 and 15, in
 * clock ticks of sysconf(_SC_CLK_TCK)); -1 when pid has ended or cannot
 * be read. */
double target_cpu_seconds(pid_t pid);

#endif
