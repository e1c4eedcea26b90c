# SPDX-License-Identifier: GPL-2.0-only
# pgoprof: make, make check, make install PREFIX=..., make deps, make demo
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
CFLAGS ?= -O2 -g
WARN := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-missing-field-initializers
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
B := build

# SANITIZE=1: the programs too are built with ASan and UBSan, in their own
# object tree (make check SANITIZE=1 runs every test against them).
ifeq ($(SANITIZE),1)
B := build-san
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif

LIB_SRC := lib/util.c lib/bytes.c lib/md5.c lib/strtab.c lib/strmap.c
RAW_SRC := raw/rawprof.c raw/rawio.c raw/match.c raw/stacks.c raw/filter.c
PROC_SRC := proc/mappings.c proc/buildid.c proc/unwind.c proc/unwind_fp.c proc/elfaddr.c
# The privileged collector links no ELF structure checker (elfaddr).
REC_PROC_SRC := $(filter-out proc/elfaddr.c,$(PROC_SRC))
REC_SRC := collector/record.c collector/sideband.c \
	   collector/probe.c collector/dwarfcg.c collector/stacktab.c \
	   collector/privdrop.c collector/outwriter.c collector/rate.c collector/target.c
CONV_SRC := convert/convert.c convert/symbolize.c \
	    convert/fstree.c convert/llvm_text.c convert/llvm_extbinary.c \
	    convert/afdo.c convert/formats.c convert/estimate.c convert/blocks.c convert/cfg.c convert/lbr.c \
	    convert/overlap.c convert/pprof.c
CLI_SRC := cli/pgoprof.c cli/show.c cli/merge.c cli/record.c cli/check.c \
	   cli/import.c cli/exact.c cli/compare.c cli/report.c cli/diff.c \
	   cli/convert.c cli/writeopts.c
REPORT_SRC := report/demangle.c report/srcline.c report/syms.c \
	      report/funcs.c report/fsmodel.c report/folded.c report/source.c \
	      report/json.c report/diff.c report/load.c report/flame.c
IMPORT_SRC := import/perfdata.c import/perfdata_attr.c import/perfdata_header.c \
	      import/perfdata_order.c import/perfdata_task.c import/perfdata_sample.c \
	      import/perfdata_jobs.c \
	      import/perfscript.c import/samples.c import/callgrind.c import/pprof.c

PB_OBJ := $(B)/pprof/profile.pb-c.o

obj = $(patsubst %.c,$(B)/%.o,$(1))

PROGS := pgoprof pgoprof-record

all: $(PROGS)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -I$(B) -MMD -MP -c $< -o $@

# The BPF side: vmlinux.h from the running kernel's BTF, then a skeleton.
$(B)/vmlinux.h:
	@mkdir -p $(B)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(B)/record.bpf.o: bpf/record.bpf.c bpf/record.h proc/stackdepth.h $(B)/vmlinux.h
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(B) -Ibpf -c $< -o $@

$(B)/record.skel.h: $(B)/record.bpf.o
	$(BPFTOOL) gen skeleton $< name record_bpf > $@.tmp && mv $@.tmp $@

$(B)/collector/record.o: $(B)/record.skel.h

pgoprof-record: $(call obj,$(REC_SRC) $(REC_PROC_SRC) $(RAW_SRC) $(LIB_SRC))
	$(CC) $(LDFLAGS) -o $@ $^ -lbpf -ldw -lelf -lz

pgoprof: $(call obj,$(CLI_SRC) $(REPORT_SRC) $(CONV_SRC) $(IMPORT_SRC) $(PROC_SRC) $(RAW_SRC) $(LIB_SRC)) $(PB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ -ldw -lelf -lcapstone -lz -lm -liberty -lprotobuf-c

# pprof's profile.proto (third_party/pprof) as C, by protobuf-c's protoc-c;
# convert/pprof.c and import/pprof.c include $(B)/pprof/profile.pb-c.h.
$(B)/pprof/profile.pb-c.c: third_party/pprof/profile.proto
	@mkdir -p $(dir $@)
	protoc-c --c_out=$(dir $@) --proto_path=third_party/pprof $<
$(B)/pprof/profile.pb-c.h: $(B)/pprof/profile.pb-c.c
$(B)/pprof/profile.pb-c.o: $(B)/pprof/profile.pb-c.c
	$(CC) $(CFLAGS) -c $< -o $@
$(call obj,convert/pprof.c import/pprof.c) $(B)/san/convert/pprof.o \
	$(B)/san/import/pprof.o $(B)/san/tests/unit/test_pprof.o: $(B)/pprof/profile.pb-c.h

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# The branch-record synthesizer (a ptrace tracer) for the LBR tests.
include tests/lbrsynth/lbrsynth.mk
# Synthesized branch-record samples as perf.data, for conversion benchmarks.
LBRGEN_SRC := bench/lbrgen.c tests/lbrgen/walk.c tests/lbrsynth/perfwrite.c \
	      proc/buildid.c
$(B)/bench/lbrgen: $(call obj,$(LBRGEN_SRC) $(RAW_SRC) $(LIB_SRC))
	$(CC) $(LDFLAGS) -o $@ $^ -lcapstone -lelf -lz
# Synthesized fleets of raw profiles, for bench/fleet-merge.sh.
$(B)/bench/fleetgen: $(call obj,bench/fleetgen.c $(RAW_SRC) $(LIB_SRC))
	$(CC) $(LDFLAGS) -o $@ $^
# Fuzz targets (tests/fuzz/README.md): make fuzzers, make fuzz [FUZZ_TIME=60]
include tests/fuzz/fuzz.mk

# Unit tests are always built with AddressSanitizer and UBSan, in their own
# object tree, so a parser that reads out of bounds fails its test.
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
TESTLIB_SRC := $(LIB_SRC) $(RAW_SRC) convert/symbolize.c \
	       convert/fstree.c convert/llvm_text.c convert/llvm_extbinary.c \
	       convert/afdo.c convert/formats.c convert/estimate.c convert/blocks.c convert/cfg.c convert/lbr.c convert/overlap.c \
	       convert/pprof.c collector/probe.c $(IMPORT_SRC) $(PROC_SRC) $(REPORT_SRC)
UNIT_TESTS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/test_*.c))

$(B)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -O1 -g $(SAN) -I$(B) -MMD -MP -c $< -o $@

# test_unwind includes the unwinder's sources to reach its internals: it
# links without their objects.
$(B)/tests/%: $(B)/san/tests/unit/%.o $(patsubst %.c,$(B)/san/%.o,$(TESTLIB_SRC)) $(PB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(SAN) -o $@ $(if $(filter %/test_unwind.o,$<),$(filter-out %/proc/unwind.o %/proc/unwind_fp.o,$^),$^) -ldw -lelf -lcapstone -lz -lm -liberty -lprotobuf-c

# test_lbr's samples come from the random walk of tests/lbrgen.
$(B)/tests/test_lbr: $(B)/san/tests/lbrgen/walk.o

unit-tests: $(UNIT_TESTS)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 0755 pgoprof pgoprof-record $(DESTDIR)$(BINDIR)/
	install -m 0644 docs/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 docs/man/*.5 $(DESTDIR)$(MANDIR)/man5/

deps:
	sh ci/install-deps.sh

check: deps all unit-tests
	sh tests/run.sh $(B)

# What is too long for make check (README.md, "Tests"): exhaustive sweeps,
# big programs, the PGO speedup.  Not part of make check.
check-long: deps all unit-tests
	sh tests/run.sh $(B) long

demo: deps all
	sh pgo/demo.sh

# make bench: PGO gains against instrumented PGO, conversion speed against
# llvm-profgen, collector overhead against perf (bench/results/*.md).
include bench/bench.mk

clean:
	rm -rf $(B) $(PROGS) tests/out

.PHONY: all install deps check check-long demo clean unit-tests bench
# Keep the sanitizer objects between runs (they are intermediate files).
.SECONDARY:
