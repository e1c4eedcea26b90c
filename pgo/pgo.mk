# SPDX-License-Identifier: GPL-2.0-only
# pgo.mk: sample-based profile-guided optimization with pgoprof, for the
# Makefile of a C or C++ project.  Set the variables, then include this file:
#
#   PGO_CC      = clang-16
#   PGO_PROGRAM = app
#   PGO_BUILD   = $(MAKE) CC=$(PGO_CC) CFLAGS='$(PGO_CFLAGS)' BUILDDIR=$(PGO_OUT)
#   PGO_TRAIN   = $(PGO_BINARY) --typical-workload
#   include path/to/pgoprof/pgo/pgo.mk
#
#   make pgo-profile   build with the flags a sample profile needs, run
#                      PGO_TRAIN under `pgoprof record` where the machine
#                      samples branch stacks or executions, else under
#                      `pgoprof record --exact` (PGO_MODE=auto), convert:
#                      PGO_PROFILE
#   make pgo-build     rebuild with the profile (clang -fprofile-sample-use=,
#                      gcc -fauto-profile=)
#   make pgo-validate  A/B: the release build against the PGO build,
#                      interleaved, with a cachegrind proxy; fails (non-zero)
#                      when the PGO build is slower beyond the noise, or,
#                      when the time shows no difference, executes more
#                      instructions (PGO_GATE=auto)
#   make pgo           all three in order;  make pgo-vars: the settings;
#   make pgo-mode      which mode PGO_MODE=auto takes here, and why;
#   make pgo-clean     removes PGO_DIR
#
# Full guide: docs/pgo.md.  Example: pgo/examples/Makefile.

# ---- what you set --------------------------------------------------------
pgo-saved-default-goal := $(.DEFAULT_GOAL)
# PGO_BUILD: the command that builds the program into the directory
# $(PGO_OUT) with the compiler $(PGO_CC) and the flags $(PGO_CFLAGS) (pgo.mk
# sets both for each of its three builds; pass PGO_CFLAGS as CXXFLAGS and
# LDFLAGS too when your build needs them there).
PGO_BUILD ?= $(error pgo.mk: set PGO_BUILD, the command that builds into $$(PGO_OUT) with $$(PGO_CFLAGS))
# PGO_PROGRAM: the built program, relative to $(PGO_OUT).
PGO_PROGRAM ?= $(error pgo.mk: set PGO_PROGRAM, the program's path under $$(PGO_OUT))
# PGO_TRAIN: the training run, a shell command that runs $(PGO_BINARY).
PGO_TRAIN ?= $(error pgo.mk: set PGO_TRAIN, the training command, e.g. $$(PGO_BINARY) --bench)
# PGO_VALIDATE_CMD: the benchmark that pgo-validate times (default: the
# training run).  PGO_PROXY_CMD: what runs under cachegrind, best the same
# benchmark on a reduced input (cachegrind is 50-100x slower); empty: no proxy.
PGO_VALIDATE_CMD ?= $(PGO_TRAIN)
PGO_PROXY_CMD ?= $(PGO_VALIDATE_CMD)

PGO_CC ?= clang-16
# The release flags: the A/B baseline is built with these alone.
PGO_RELEASE_CFLAGS ?= -O2 -g
PGO_DIR ?= .pgo
# Defaults from bench/results/pgo-compare.md and ablation.md (cachegrind Ir
# against -O2 on SQLite speedtest1, bzip2 and Lua): more samples pay only
# with profile inference (clang) or with gcc; call counts as call targets
# for clang and the stack samples for gcc.
PGO_FREQ ?= 9999
PGO_PROFI ?= 1
# PGO_MODE: sample (pgoprof record: samples of the training run, root
# through PGOPROF_SUDO), exact (pgoprof record --exact: the exact count of
# every instruction and call, under qemu-user or callgrind: no root, no PMU,
# the same profile every time, and a training run about 40x slower), or
# auto: sample where PGO_PROBE finds branch stacks or an event proportional
# to executions, else exact (pgo/mode.sh: the rule, and why).
PGO_MODE ?= auto
pgo-mode-check := $(if $(filter-out auto sample exact,$(PGO_MODE)),$(error pgo.mk: PGO_MODE is '$(PGO_MODE)': give auto, sample or exact))
# Empty: pgoprof convert's own choice, which follows the profile's signal
# (time, executions, branch records, exact counts); a value is passed as
# --estimator.
PGO_ESTIMATOR_clang ?=
PGO_ESTIMATOR_gcc ?=
PGO_CALL_TARGETS_clang ?= calls
PGO_CALL_TARGETS_gcc ?= stack
PGO_RUNS ?= 10
PGO_WARMUP ?= 1
PGO_TOLERANCE ?= 0.02
PGO_CONFIDENCE ?= 95
PGO_GATE ?= auto
PGO_STRICT ?= 0
# Recording needs root (BPF): set PGOPROF_SUDO = sudo when make is not root.
PGOPROF_SUDO ?=

# ---- derived (override if you must) --------------------------------------
$(if $(strip $(PGO_DIR)),,$(error pgo.mk: PGO_DIR is empty))
PGO_MK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
# pgoprof from the checkout this file is in, else from PATH.
PGOPROF ?= $(if $(wildcard $(PGO_MK_DIR)/../pgoprof),$(abspath $(PGO_MK_DIR)/../pgoprof),pgoprof)
PGO_VALIDATE_SH ?= $(abspath $(PGO_MK_DIR)/validate.sh)
PGO_MODE_SH ?= $(abspath $(PGO_MK_DIR)/mode.sh)
# What the machine samples: one word, lbr, exec or stack (pgoprof-record(1)).
PGO_PROBE ?= $(PGOPROF_SUDO) $(PGOPROF) record --probe
# pgo-mode writes the mode it took here; pgo-profile reads it when its
# recipe is expanded, after pgo-mode ran, so the probe runs once per
# pgo-profile and never while make parses.
PGO_MODE_FILE ?= $(PGO_DIR)/mode
pgo-mode-used = $(if $(filter auto,$(PGO_MODE)),$(shell cat '$(PGO_MODE_FILE)' 2>/dev/null),$(PGO_MODE))

# In PGO_TRAIN, PGO_VALIDATE_CMD and PGO_PROXY_CMD: the binary under test.
# These commands run under sh with PGO_BINARY in the environment.
PGO_BINARY = "$$PGO_BINARY"

# clang or gcc, from `$(PGO_CC) --version` (computed once, when first used).
PGO_COMPILER ?= $(eval PGO_COMPILER := $(if $(findstring clang,$(shell $(PGO_CC) --version 2>/dev/null | head -n 1)),clang,gcc))$(PGO_COMPILER)
PGO_GCC_VERSION ?= $(eval PGO_GCC_VERSION := $(shell $(PGO_CC) -dumpversion 2>/dev/null | cut -d. -f1))$(PGO_GCC_VERSION)

# The sampled build needs line discriminators and frame pointers (pgoprof
# walks the stack by frame pointers); the release and PGO builds do not.
PGO_SAMPLE_CFLAGS_clang = -g -fdebug-info-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
PGO_SAMPLE_CFLAGS_gcc = -g -fno-omit-frame-pointer
# Exact counts need no frame pointers.  The engine record --exact takes
# here: qemu-user reads any binary; with callgrind (no qemu-user),
# valgrind 3.19 cannot read clang 16's DWARF 5 (the code is the same with
# -gdwarf-4).  Asked once, when first used.  With clang they
# become a probe-based profile (PGO_PROBES=1): a probe per basic block,
# a CFG checksum per function that makes clang drop a stale function's
# profile instead of misapplying it; the PGO build needs the probes too,
# and the sample loader's older inliner, which replays the training
# build's inlining (bench/results/ceiling-probes.md: Ir against -O2 on
# sqlite / bzip2 / lua -9.78% / -20.52% / -8.81%, against the line
# profile's -8.98% / -20.44% / -8.44%).  PGO_PROBES=0: by lines.
PGO_EXACT_ENGINE ?= $(eval PGO_EXACT_ENGINE := $(shell $(PGOPROF) record --exact --print-engine 2>/dev/null))$(PGO_EXACT_ENGINE)
PGO_PROBES ?= 1
pgo-probes = $(filter 1,$(PGO_PROBES))
PGO_SAMPLE_CFLAGS_clang_exact = -g$(if $(filter qemu,$(PGO_EXACT_ENGINE)),, -gdwarf-4) -fdebug-info-for-profiling$(if $(pgo-probes), -fpseudo-probe-for-profiling)
PGO_SAMPLE_CFLAGS_gcc_exact = -g
PGO_RECORD_sample = $(PGOPROF_SUDO) $(PGOPROF) record -F $(PGO_FREQ)
PGO_RECORD_exact = $(PGOPROF) record --exact
PGO_USE_CFLAGS_clang = -fprofile-sample-use=$(abspath $(PGO_PROFILE)) $(if $(filter 1,$(PGO_PROFI)),-fsample-profile-use-profi)
# A probe-based profile also makes clang 16's sample loader turn on the
# ext-tsp block placement (SampleProfile.cpp, doInitialization), which by
# default lays out the functions without a profile too, by the static
# guess: zstd, whose level-19 match finder never ran in training, ran
# 2.37% more instructions than -O2 that way, 0.60% with
# ext-tsp-apply-without-profile=false, which keeps ext-tsp to the
# profiled functions (the probes alone cost it 0.66%; lua, gawk, bzip2
# unchanged; bench/results/ceiling-probes.md).  Asked of the compiler
# once: clang before 14 has no ext-tsp, and would stop at the option.
pgo-no-exttsp = $(eval pgo-no-exttsp := $(if $(shell $(PGO_CC) -mllvm -ext-tsp-apply-without-profile=false -x c -c /dev/null -o /dev/null 2>/dev/null && echo y),-mllvm -ext-tsp-apply-without-profile=false))$(pgo-no-exttsp)
PGO_USE_CFLAGS_clang_exact = $(PGO_USE_CFLAGS_clang)$(if $(pgo-probes), -fpseudo-probe-for-profiling -mllvm -sample-profile-prioritized-inline=0 -mllvm -sample-profile-inline-size=0$(if $(pgo-no-exttsp), $(pgo-no-exttsp)))
# GCC's -fauto-profile turns on -funroll-loops, which -O2 leaves off, and
# the unroller then trusts trip counts read from line counts: turned back
# off, it gained with every kind of profile measured (bench/results/
# unseen.md and quality-signal.md; gcc-12 Ir against -O2): exact counts,
# lua -2.30% -> -2.62%, gawk +0.52% -> -0.17%, zstd +2.01% -> +0.68%;
# 50,000 execution samples, lua -0.96% -> -1.58%, bzip2 -3.26% -> -4.97%,
# gawk -0.32% -> -1.04%, zstd +2.11% -> +0.91%.
# It also turns on -ftracer, which then duplicates tails by the static
# guess in every function the profile does not have (code that never ran
# in training); tracer-dynamic-coverage=0 keeps it to the functions with
# a profile (the parameter is read only without profile feedback: GCC's
# tracer.cc, tail_duplicate): zstd, trained and measured on different
# levels, +0.68% -> -0.05% (exact counts; sampled: +0.80% -> -0.06%);
# lua, bzip2, gawk and sqlite within 0.05 points.
PGO_USE_CFLAGS_gcc = -fauto-profile=$(abspath $(PGO_PROFILE)) -fno-unroll-loops --param=tracer-dynamic-coverage=0
PGO_USE_CFLAGS_gcc_exact = $(PGO_USE_CFLAGS_gcc)
# $(call pgo-opt,--option,VALUE): " --option VALUE", nothing when VALUE is empty.
pgo-opt = $(if $(strip $(2)), $(1) $(strip $(2)))
PGO_FORMAT_clang = --format llvm-extbinary$(call pgo-opt,--estimator,$(PGO_ESTIMATOR_clang)) --call-targets $(PGO_CALL_TARGETS_clang)
PGO_FORMAT_gcc = --format afdo$(call pgo-opt,--estimator,$(PGO_ESTIMATOR_gcc)) --call-targets $(PGO_CALL_TARGETS_gcc)$(call pgo-opt,--gcc-version,$(PGO_GCC_VERSION))
PGO_SAMPLE_CFLAGS ?= $(PGO_SAMPLE_CFLAGS_$(PGO_COMPILER)$(if $(filter exact,$(pgo-mode-used)),_exact))
PGO_USE_CFLAGS ?= $(PGO_USE_CFLAGS_$(PGO_COMPILER)$(if $(filter exact,$(pgo-mode-used)),_exact))

PGO_NAME = $(notdir $(PGO_PROGRAM))
PGO_RAW ?= $(PGO_DIR)/$(PGO_NAME).raw
PGO_PROFILE ?= $(PGO_DIR)/$(PGO_NAME).$(if $(filter clang,$(PGO_COMPILER)),extbin,afdo)
PGO_SAMPLED = $(abspath $(PGO_DIR)/sampled/$(PGO_PROGRAM))
PGO_BASELINE ?= $(PGO_DIR)/release/$(PGO_PROGRAM)
PGO_CANDIDATE ?= $(PGO_DIR)/pgo/$(PGO_PROGRAM)
PGO_REPORT_DIR ?= $(PGO_DIR)/validate

pgo-q = '$(subst ','\'',$(1))'
# "+" before the build command when PGO_BUILD runs $(MAKE): make then
# hands it the jobserver, so that make -j reaches the project's build
# (without it the sub-make warns and runs at -j1), and runs it under
# make -n too, as it does any recursive make.
pgo-recurse = $(if $(findstring $$(MAKE),$(value PGO_BUILD))$(findstring $${MAKE},$(value PGO_BUILD)),+)
# make -n: set when make only prints (GNU make runs the lines after a
# "+" line under -n too, and a build made by make -n makes no program).
pgo-dry-run = $(findstring n,$(firstword -$(MAKEFLAGS)))
# $(pgo-run-build) in a recipe: $(PGO_BUILD) into $(PGO_OUT), then check the program is there.
define pgo-run-build
	@echo "pgo.mk: build $(notdir $(PGO_OUT)): $(PGO_CC) $(PGO_CFLAGS)"
	@mkdir -p $(PGO_OUT)
	$(pgo-recurse)$(PGO_BUILD)
	@$(if $(pgo-dry-run),:,test -x $(PGO_OUT)/$(PGO_PROGRAM) || { echo "pgo.mk: PGO_BUILD did not make $(PGO_OUT)/$(PGO_PROGRAM)" >&2; exit 1; })
endef

# After the profile: one line when pgoprof record lowered the rate asked
# (META sample_freq_requested beside sample_freq, docs/raw-format.md), as
# it does when sampling would take too much of each CPU.
define pgo-rate-note
awk '$$1 == "meta" && $$2 == "sample_freq_requested" { asked = $$4 } \
	$$1 == "meta" && $$2 == "sample_freq" { got = $$4 } \
	$$1 == "counter" && $$2 == "samples.taken" { n = $$4 } \
	$$1 != "meta" && $$1 != "counter" && $$1 != "#" { exit } \
	END { if (asked != "" && got != "" && asked + 0 != got + 0) \
	printf "pgo.mk: pgoprof record sampled at %s Hz, not the %s Hz asked (PGO_FREQ): more would have taken too much of each CPU here; %s samples in all: a longer training run or a quieter machine gives more\n", got, asked, n }'
endef

# gcc 12 can stop with an internal compiler error in its vectorizer on an
# AutoFDO profile (docs/pgo.md, troubleshooting: vect_do_peeling scales by
# a count of 0; bzip2's exact counts do it).  pgo-build then builds once
# more with -O2's own cost model, which vectorizes only where no epilogue
# is peeled, and says so; every other failure stops the build.  Not the
# default: SQLite lost 1.1 points of its gain with it.
PGO_GCC_ICE_CFLAGS ?= -fvect-cost-model=very-cheap
define pgo-run-build-gcc
	@echo "pgo.mk: build $(notdir $(PGO_OUT)): $(PGO_CC) $(PGO_CFLAGS)"
	$(pgo-recurse)@mkdir -p $(PGO_OUT) && { $(PGO_BUILD); echo $$? >$(PGO_DIR)/pgo-build.rc; } 2>&1 | tee $(PGO_DIR)/pgo-build.log
	$(pgo-recurse)@rc=$$(cat $(PGO_DIR)/pgo-build.rc); rm -f $(PGO_DIR)/pgo-build.rc; \
	if [ "$$rc" != 0 ] && [ -z '$(PGO_GCC_ICE_RETRY)' ] && \
	   grep -q 'internal compiler error' $(PGO_DIR)/pgo-build.log && grep -q 'during GIMPLE pass: vect$$' $(PGO_DIR)/pgo-build.log; then \
		echo "pgo.mk: $(PGO_CC) stopped with an internal compiler error in its vectorizer (a GCC 12 bug with -fauto-profile, docs/pgo.md): building again with $(PGO_GCC_ICE_CFLAGS)"; \
		rm -rf $(PGO_OUT) && $(MAKE) -f $(firstword $(MAKEFILE_LIST)) --no-print-directory pgo-build PGO_GCC_ICE_RETRY=1; \
	else exit $$rc; fi
	@$(if $(pgo-dry-run),:,test -x $(PGO_OUT)/$(PGO_PROGRAM) || { echo "pgo.mk: PGO_BUILD did not make $(PGO_OUT)/$(PGO_PROGRAM)" >&2; exit 1; })
endef

# ---- targets ----------------------------------------------------------------
.PHONY: pgo pgo-profile pgo-build pgo-validate pgo-release pgo-vars pgo-clean pgo-mode

# Goals named together run in this order, also under make -j.  The build
# settings are `private`: prerequisites do not inherit them.
pgo-build: $(filter pgo-profile,$(MAKECMDGOALS))
pgo-release: $(filter pgo-profile pgo-build,$(MAKECMDGOALS))
pgo-validate: $(filter pgo-profile pgo-build,$(MAKECMDGOALS)) pgo-release

pgo-profile: private PGO_OUT = $(abspath $(PGO_DIR)/sampled)
pgo-profile: private PGO_CFLAGS = $(PGO_RELEASE_CFLAGS) $(filter-out $(PGO_RELEASE_CFLAGS),$(PGO_SAMPLE_CFLAGS))
pgo-profile: pgo-mode
	@test -n '$(pgo-mode-used)' || { echo "pgo.mk: no mode in $(PGO_MODE_FILE)" >&2; exit 1; }
	$(pgo-run-build)
	$(PGO_RECORD_$(pgo-mode-used)) -o $(PGO_RAW) -- \
		env PGO_BINARY=$(PGO_SAMPLED) sh -c $(call pgo-q,$(PGO_TRAIN))
	$(PGOPROF) convert $(PGO_RAW) --binary $(PGO_SAMPLED) $(PGO_FORMAT_$(PGO_COMPILER)) -o $(PGO_PROFILE)
	@echo "pgo.mk: profile $(PGO_PROFILE); hottest functions (name:samples:head):"
	@$(PGOPROF) show $(PGO_PROFILE) | grep -v '^ ' | head -n 5 | sed 's/^/  /'
	@$(PGOPROF) show $(PGO_RAW) | $(pgo-rate-note)

# The probe runs under make -n too (+): the commands it prints depend on it.
pgo-mode:
	+@mkdir -p $(PGO_DIR) && PGO_EXACT_ENGINE=$(PGO_EXACT_ENGINE) sh $(PGO_MODE_SH) -o $(PGO_MODE_FILE) $(PGO_MODE) $(call pgo-q,$(PGO_PROBE))

# The profile is an input that make cannot see: the PGO build starts clean.
pgo-build: private PGO_OUT = $(abspath $(PGO_DIR)/pgo)
pgo-build: private PGO_CFLAGS = $(PGO_RELEASE_CFLAGS) $(PGO_USE_CFLAGS)$(if $(PGO_GCC_ICE_RETRY), $(PGO_GCC_ICE_CFLAGS))
pgo-build:
	@test -s $(PGO_PROFILE) || { echo "pgo.mk: no profile $(PGO_PROFILE): run 'make pgo-profile' (or set PGO_PROFILE)" >&2; exit 1; }
	rm -rf $(PGO_OUT)
	$(if $(filter gcc,$(PGO_COMPILER)),$(pgo-run-build-gcc),$(pgo-run-build))

pgo-release: private PGO_OUT = $(abspath $(PGO_DIR)/release)
pgo-release: private PGO_CFLAGS = $(PGO_RELEASE_CFLAGS)
pgo-release:
	$(pgo-run-build)

pgo-validate:
	@test -x $(PGO_CANDIDATE) || { echo "pgo.mk: no $(PGO_CANDIDATE): run 'make pgo-build' first" >&2; exit 1; }
	@test -x $(PGO_BASELINE) || { echo "pgo.mk: no baseline $(PGO_BASELINE)" >&2; exit 1; }
	bash $(PGO_VALIDATE_SH) -n $(PGO_RUNS) -w $(PGO_WARMUP) -t $(PGO_TOLERANCE) \
		-c $(PGO_CONFIDENCE) -g $(PGO_GATE) $(if $(filter 1,$(PGO_STRICT)),--strict) \
		-o $(PGO_REPORT_DIR) -T $(call pgo-q,pgo-validate: $(PGO_PROGRAM) ($(PGO_CC)) release vs PGO build) \
		$(if $(strip $(PGO_PROXY_CMD)),-p $(call pgo-q,$(PGO_PROXY_CMD))) \
		--baseline $(PGO_BASELINE) --candidate $(PGO_CANDIDATE) -- $(call pgo-q,$(PGO_VALIDATE_CMD))

pgo:
	@$(MAKE) -f $(firstword $(MAKEFILE_LIST)) pgo-profile pgo-build pgo-validate

pgo-vars:
	@printf '%s\n' 'PGO_PROGRAM=$(PGO_PROGRAM)' 'PGO_CC=$(PGO_CC)' 'PGO_COMPILER=$(PGO_COMPILER)' \
		'PGO_RELEASE_CFLAGS=$(PGO_RELEASE_CFLAGS)' 'PGO_SAMPLE_CFLAGS=$(PGO_SAMPLE_CFLAGS)' \
		'PGO_USE_CFLAGS=$(PGO_USE_CFLAGS)' 'PGO_DIR=$(abspath $(PGO_DIR))' \
		'PGO_RAW=$(abspath $(PGO_RAW))' 'PGO_PROFILE=$(abspath $(PGO_PROFILE))' \
		'PGO_BASELINE=$(abspath $(PGO_BASELINE))' 'PGO_CANDIDATE=$(abspath $(PGO_CANDIDATE))' \
		'PGO_REPORT_DIR=$(abspath $(PGO_REPORT_DIR))' 'PGOPROF=$(PGOPROF)' 'PGO_MODE=$(PGO_MODE)' \
		'PGO_MODE_FILE=$(abspath $(PGO_MODE_FILE))' 'PGO_MODE_USED=$(pgo-mode-used)'

pgo-clean:
	$(if $(strip $(PGO_DIR)),rm -rf -- $(PGO_DIR))

# Including this file does not change your default goal.
.DEFAULT_GOAL := $(pgo-saved-default-goal)
