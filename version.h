/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PGOPROF_VERSION
#define PGOPROF_VERSION "0.1.0"
#endif
