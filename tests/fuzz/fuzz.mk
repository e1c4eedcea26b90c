# SPDX-License-Identifier: GPL-2.0-only
# Fuzz targets (tests/fuzz/README.md).  Included by the top-level Makefile
#   include tests/fuzz/fuzz.mk
# or used alone:  make -f tests/fuzz/fuzz.mk fuzzers
#
#   fuzzers       the libFuzzer binaries, $(FUZZ_B)/fuzz_NAME
#   fuzz-plain    the same targets with tests/fuzz/driver.c instead of
#                 libFuzzer (replay only), $(FUZZ_B)/plain/fuzz_NAME
#   fuzz          seeds (tests/fuzz/seeds.sh), build, then run each target
#                 for FUZZ_TIME seconds (tests/fuzz/run.sh)
#   fuzz-targets  print FUZZ_TARGETS, the one list of targets that run.sh,
#                 seeds.sh and tests/long/fuzz.sh read
# Include it after the Makefile's first target ('all'): alone, its default
# goal is 'fuzzers'.
ifeq ($(.DEFAULT_GOAL),)
.DEFAULT_GOAL := fuzzers
endif
FUZZ_CC ?= clang-16
FUZZ_PLAIN_CC ?= cc
FUZZ_B ?= build/fuzz
FUZZ_TIME ?= 60
FUZZ_TARGETS := raw perfdata perfscript elf llvm_text llvm_extbinary afdo cmdline pprof \
	callgrind qemucount

FUZZ_WARN := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-missing-field-initializers
FUZZ_SAN := -fsanitize=address,undefined,float-cast-overflow \
	-fno-sanitize-recover=undefined,float-cast-overflow -fno-omit-frame-pointer
FUZZ_LIBS := -ldw -lelf -lcapstone -lz -lm -lprotobuf-c

# Each target links the layers' archives (layers.mk) of its object tree;
# the linker takes the members it uses.
FUZZ_LAYERS := cli convert import proc raw lib
# fuzz_pprof: import/pprof.c and the code protoc-c makes of profile.proto.
FUZZ_PB := $(FUZZ_B)/gen/pprof/profile.pb-c.c
$(FUZZ_PB): third_party/pprof/profile.proto
	@mkdir -p $(dir $@)
	protoc-c --c_out=$(dir $@) --proto_path=third_party/pprof $<
$(FUZZ_B)/obj/import/pprof.o $(FUZZ_B)/plain/obj/import/pprof.o \
	$(FUZZ_B)/obj/convert/pprof.o $(FUZZ_B)/plain/obj/convert/pprof.o: $(FUZZ_PB)
# fuzz_cmdline: cli/ for convert's option parser; pgoprof-record's
# mode_by_name (collector/probe.c) alone, not the collector's archive.
fuzz_cmdline_EXTRA := collector/probe.c
fuzz_pprof_EXTRA := $(FUZZ_PB)

# libFuzzer build: instrumented objects in $(FUZZ_B)/obj.
$(FUZZ_B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_WARN) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link -I$(FUZZ_B)/gen -MMD -MP -c $< -o $@

# Plain build (driver.c): $(FUZZ_B)/plain/obj.
$(FUZZ_B)/plain/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_PLAIN_CC) $(FUZZ_WARN) -O1 -g $(FUZZ_SAN) -I$(FUZZ_B)/gen -MMD -MP -c $< -o $@

define FUZZ_TARGET_RULES
$(FUZZ_B)/fuzz_$(1): $(FUZZ_B)/obj/tests/fuzz/fuzz_$(1).o $(patsubst %.c,$(FUZZ_B)/obj/%.o,$(fuzz_$(1)_EXTRA)) $(call layer_libs,$(FUZZ_B)/obj,$(FUZZ_LAYERS))
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $$@ $$^ $(FUZZ_LIBS)

$(FUZZ_B)/plain/fuzz_$(1): $(FUZZ_B)/plain/obj/tests/fuzz/driver.o $(FUZZ_B)/plain/obj/tests/fuzz/fuzz_$(1).o $(patsubst %.c,$(FUZZ_B)/plain/obj/%.o,$(fuzz_$(1)_EXTRA)) $(call layer_libs,$(FUZZ_B)/plain/obj,$(FUZZ_LAYERS))
	$(FUZZ_PLAIN_CC) $(FUZZ_SAN) -o $$@ $$^ $(FUZZ_LIBS)
endef
include layers.mk
$(call layer_archives,$(FUZZ_B)/obj)
$(call layer_archives,$(FUZZ_B)/plain/obj)
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_TARGET_RULES,$(t))))

fuzzers: $(patsubst %,$(FUZZ_B)/fuzz_%,$(FUZZ_TARGETS))
fuzz-plain: $(patsubst %,$(FUZZ_B)/plain/fuzz_%,$(FUZZ_TARGETS))
fuzz:
	sh tests/fuzz/run.sh $(FUZZ_TIME)
fuzz-targets:
	@echo $(FUZZ_TARGETS)

-include $(shell find $(FUZZ_B) -name '*.d' 2>/dev/null)

.PHONY: fuzzers fuzz-plain fuzz fuzz-targets
.SECONDARY:
