# SPDX-License-Identifier: GPL-2.0-only
# make bench: every benchmark under bench/, each writing its Markdown table
# to bench/results/, then all tables collected in bench/results/README.md.
# Root (BPF, perf); fetches sqlite/bzip2 sources at first use; long (the
# pgo-compare part alone ~25 min).  Included by the top Makefile with
#     include bench/bench.mk
# in place of its own bench rule (this fragment defines bench itself).
#
#   bench-pgo       bench/pgo-compare.sh      -> bench/results/pgo-compare.md
#   bench-convert   bench/convert-speed.sh    -> bench/results/convert-speed.md
#   bench-overhead  bench/collector-overhead.sh -> bench/results/collector-overhead.md
#   bench-steady    bench/collector-steady.sh -> bench/results/collector-steady.md
#                   (~13 min a round; not part of bench)
#   bench-startup   bench/collector-startup.sh -> bench/results/collector-startup.md
#   bench-memory    bench/collector-memory.sh -> bench/results/collector-memory.md
#   bench-quality   bench/quality.sh          -> bench/results/quality.md
#                   (sampled vs exact-count profiles; ~2 h on 2 CPUs, so
#                   not part of bench)
#   bench-ablation  bench/ablation.sh         -> bench/results/ablation.md
#                   (the converter's rules on and off on bench-quality's
#                   recordings; ~1 h after it, not part of bench)
#   bench-readme    bench/results/README.md from the tables there

BENCH_RUNS ?= 15
BENCH_VARIANTS ?= 999/1/mean/plain,999/1/mean/profi,9999/4/mean/plain,9999/4/mean/profi,clang=9999/4/max/profi,gcc=9999/4/max/plain
# extra arguments, e.g. BENCH_CONVERT_ARGS='-s 10000,100000 -r 5'
BENCH_CONVERT_ARGS ?=
BENCH_OVERHEAD_ARGS ?=
BENCH_TABLES := bench/results/pgo-compare.md bench/results/convert-speed.md \
	bench/results/collector-overhead.md bench/results/collector-steady.md \
	bench/results/collector-startup.md bench/results/collector-memory.md \
	bench/results/quality.md \
	bench/results/ablation.md

bench-pgo: deps all
	bash bench/pgo-compare.sh -w all -c all -n $(BENCH_RUNS) -V $(BENCH_VARIANTS)

bench-convert: deps all
	bash bench/convert-speed.sh $(BENCH_CONVERT_ARGS)

bench-overhead: all
	bash bench/collector-overhead.sh $(BENCH_OVERHEAD_ARGS)

bench-steady: all
	bash bench/collector-steady.sh

bench-startup: all
	bash bench/collector-startup.sh

bench-memory: all
	bash bench/collector-memory.sh

bench-quality: deps all
	bash bench/quality.sh

bench-ablation: deps all
	bash bench/ablation.sh

define bench_readme
	{ echo '# Benchmark results'; echo; \
	  echo 'Collected by `make bench` (bench/bench.mk) from the tables below; each script rewrites its own file.'; \
	  for f in $(BENCH_TABLES); do \
	    if [ -f $$f ]; then echo; echo "<!-- $$f -->"; echo; cat $$f; \
	    else echo; echo "_$$f: not run._"; fi; \
	  done; } > bench/results/README.md.tmp && mv bench/results/README.md.tmp bench/results/README.md
endef

# One after the other in one recipe (never in parallel: they time things).
bench: deps all
	bash bench/pgo-compare.sh -w all -c all -n $(BENCH_RUNS) -V $(BENCH_VARIANTS)
	bash bench/convert-speed.sh $(BENCH_CONVERT_ARGS)
	bash bench/collector-overhead.sh $(BENCH_OVERHEAD_ARGS)
	$(bench_readme)

bench-readme:
	$(bench_readme)

.PHONY: bench bench-pgo bench-convert bench-overhead bench-steady bench-startup bench-memory bench-quality bench-ablation bench-readme
