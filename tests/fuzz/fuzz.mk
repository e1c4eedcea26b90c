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
# Include it after the Makefile's first target ('all'): alone, its default
# goal is 'fuzzers'.
ifeq ($(.DEFAULT_GOAL),)
.DEFAULT_GOAL := fuzzers
endif
FUZZ_CC ?= clang-16
FUZZ_PLAIN_CC ?= cc
FUZZ_B ?= build/fuzz
FUZZ_TIME ?= 60
FUZZ_TARGETS := raw perfdata perfscript elf llvm_text llvm_extbinary afdo cmdline pprof

FUZZ_WARN := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-missing-field-initializers
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_LIBS := -ldw -lelf -lcapstone -lz -lm -lprotobuf-c

FUZZ_LIB := lib/util.c lib/bytes.c lib/md5.c lib/strmap.c lib/strtab.c
FUZZ_RAW := raw/rawprof.c raw/rawio.c raw/match.c raw/stacks.c raw/filter.c
fuzz_raw_SRC := $(FUZZ_RAW) $(FUZZ_LIB)
fuzz_perfdata_SRC := import/perfdata.c import/perfdata_attr.c import/perfdata_header.c \
	import/perfdata_order.c import/perfdata_task.c import/perfdata_sample.c import/perfdata_jobs.c \
	import/samples.c \
	proc/buildid.c proc/mappings.c proc/unwind.c proc/unwind_fp.c \
	$(FUZZ_RAW) $(FUZZ_LIB)
fuzz_perfscript_SRC := import/perfscript.c import/samples.c proc/buildid.c \
	proc/mappings.c $(FUZZ_RAW) $(FUZZ_LIB)
fuzz_elf_SRC := proc/buildid.c proc/elfaddr.c convert/symbolize.c $(FUZZ_LIB)
fuzz_llvm_text_SRC := convert/fstree.c convert/llvm_text.c $(FUZZ_LIB)
fuzz_llvm_extbinary_SRC := convert/fstree.c convert/llvm_extbinary.c $(FUZZ_LIB)
fuzz_afdo_SRC := convert/fstree.c convert/afdo.c $(FUZZ_LIB)
# fuzz_pprof: import/pprof.c and the code protoc-c makes of profile.proto.
FUZZ_PB := $(FUZZ_B)/gen/pprof/profile.pb-c.c
fuzz_pprof_SRC := import/pprof.c $(FUZZ_PB) $(FUZZ_RAW) $(FUZZ_LIB)
$(FUZZ_PB): third_party/pprof/profile.proto
	@mkdir -p $(dir $@)
	protoc-c --c_out=$(dir $@) --proto_path=third_party/pprof $<
$(FUZZ_B)/obj/import/pprof.o $(FUZZ_B)/plain/obj/import/pprof.o: $(FUZZ_PB)
# fuzz_cmdline.c includes cli/convert.c itself.
fuzz_cmdline_SRC := convert/convert.c cli/writeopts.c proc/elfaddr.c convert/symbolize.c convert/fstree.c \
	convert/llvm_text.c convert/llvm_extbinary.c convert/afdo.c \
	convert/formats.c convert/estimate.c convert/blocks.c convert/cfg.c convert/lbr.c collector/probe.c \
	$(FUZZ_RAW) $(FUZZ_LIB)

# libFuzzer build: instrumented objects in $(FUZZ_B)/obj.
$(FUZZ_B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_WARN) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link -I$(FUZZ_B)/gen -MMD -MP -c $< -o $@

# Plain build (driver.c): $(FUZZ_B)/plain/obj.
$(FUZZ_B)/plain/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_PLAIN_CC) $(FUZZ_WARN) -O1 -g $(FUZZ_SAN) -I$(FUZZ_B)/gen -MMD -MP -c $< -o $@

define FUZZ_TARGET_RULES
$(FUZZ_B)/fuzz_$(1): $(FUZZ_B)/obj/tests/fuzz/fuzz_$(1).o $(patsubst %.c,$(FUZZ_B)/obj/%.o,$(fuzz_$(1)_SRC))
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $$@ $$^ $(FUZZ_LIBS)

$(FUZZ_B)/plain/fuzz_$(1): $(FUZZ_B)/plain/obj/tests/fuzz/driver.o $(FUZZ_B)/plain/obj/tests/fuzz/fuzz_$(1).o $(patsubst %.c,$(FUZZ_B)/plain/obj/%.o,$(fuzz_$(1)_SRC))
	$(FUZZ_PLAIN_CC) $(FUZZ_SAN) -o $$@ $$^ $(FUZZ_LIBS)
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_TARGET_RULES,$(t))))

fuzzers: $(patsubst %,$(FUZZ_B)/fuzz_%,$(FUZZ_TARGETS))
fuzz-plain: $(patsubst %,$(FUZZ_B)/plain/fuzz_%,$(FUZZ_TARGETS))
fuzz:
	sh tests/fuzz/run.sh $(FUZZ_TIME)

-include $(shell find $(FUZZ_B) -name '*.d' 2>/dev/null)

.PHONY: fuzzers fuzz-plain fuzz
.SECONDARY:
