/* Branch records (LBR) -> function-sample tree.  Being written. */
#ifndef PGOPROF_LBR_H
#define PGOPROF_LBR_H
#endif
