# SPDX-License-Identifier: GPL-2.0-only
# The branch-record synthesizer (tests/lbrsynth/README.md).  Included by the
# top-level Makefile:  include tests/lbrsynth/lbrsynth.mk
# Uses its variables B, CC, LDFLAGS and layers.mk's layer_libs.
LBRSYNTH_CLANG ?= clang-16
LBRSYNTH_PROGS := $(patsubst tests/lbrsynth/progs/%.c,$(B)/lbrsynth-progs/%,$(wildcard tests/lbrsynth/progs/*.c))

$(B)/lbrsynth: $(B)/tests/lbrsynth/lbrsynth.o $(call layer_libs,$(B),synth proc raw lib)
	$(CC) $(LDFLAGS) -o $@ $^ -lcapstone

# The test programs: built like a profiled release binary.
$(B)/lbrsynth-progs/%: tests/lbrsynth/progs/%.c
	@mkdir -p $(dir $@)
	$(LBRSYNTH_CLANG) -O2 -g -fdebug-info-for-profiling -o $@ $<

lbrsynth: $(B)/lbrsynth $(LBRSYNTH_PROGS)

.PHONY: lbrsynth
