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
# float-cast-overflow (a double out of an integer's range, NaN, cast to
# it) is UB that -fsanitize=undefined leaves out: asked for by name.
ifeq ($(SANITIZE),1)
B := build-san
CFLAGS += -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined,float-cast-overflow
endif

# `make` alone builds the programs: layers.mk's archive rules come first.
.DEFAULT_GOAL := all
include layers.mk

# Every layer's archive in the programs' tree, $(B)/libDIR.a.
$(call layer_archives,$(B))
# pgoprof links all that reads and writes profiles; the privileged
# collector only what it needs to record (no convert, no ELF structure
# checker: the linker takes an archive's members that are used).
PGOPROF_LIBS := $(call layer_libs,$(B),cli report convert import proc raw lib)
RECORD_LIBS := $(call layer_libs,$(B),collector proc raw lib)
PB_OBJ := $(B)/pprof/profile.pb-c.o

obj = $(patsubst %.c,$(B)/%.o,$(1))

PROGS := pgoprof pgoprof-record pgoprof-count.so

all: $(PROGS)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -I$(B) -MMD -MP -c $< -o $@

# The BPF side, then its skeleton.  UAPI headers only, no vmlinux.h
# (bpf/record.bpf.c says why); asm/ is in the target's multiarch
# directory, which clang -target bpf does not search.
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null || $(CC) -dumpmachine)
$(B)/record.bpf.o: bpf/record.bpf.c bpf/record.h proc/stackdepth.h
	@mkdir -p $(B)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -idirafter /usr/include/$(MULTIARCH) -Ibpf -c $< -o $@

$(B)/record.skel.h: $(B)/record.bpf.o
	$(BPFTOOL) gen skeleton $< name record_bpf > $@.tmp && mv $@.tmp $@

# --as-needed: a library the program does not call is not loaded at each
# start.  pgoprof loads capstone itself when it first decodes
# (convert/insn.c): `pgoprof record` and the like start without it.
pgoprof-record: $(call obj,$(RECORD_MAIN)) $(RECORD_LIBS)
	$(CC) $(LDFLAGS) -Wl,--as-needed -o $@ $^ -lbpf -ldw -lelf -lz

pgoprof: $(B)/cli/pgoprof.o $(PGOPROF_LIBS) $(PB_OBJ)
	$(CC) $(LDFLAGS) -Wl,--as-needed -o $@ $^ -ldw -lelf -lz -lm -liberty -lprotobuf-c -ldl

# The exact-count engine: a plugin loaded by qemu-user (qemu/count.c),
# never sanitized (QEMU is not), beside pgoprof where cli/exact.c looks.
pgoprof-count.so: qemu/count.c qemu/count.h qemu/qemu-plugin.h
	$(CC) $(WARN) -O2 -g -fPIC -shared -fvisibility=hidden -o $@ $< -lelf -lpthread -ldl

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
# The collector's library compiles without the skeleton; pgoprof-record's
# own files (layers.mk RECORD_MAIN) include it.
$(call obj,$(RECORD_MAIN)): $(B)/record.skel.h

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# The branch-record synthesizer (a ptrace tracer) for the LBR tests.
include tests/lbrsynth/lbrsynth.mk
# Synthesized branch-record samples as perf.data, for conversion benchmarks.
$(B)/bench/lbrgen: $(B)/bench/lbrgen.o $(call layer_libs,$(B),synth proc raw lib)
	$(CC) $(LDFLAGS) -o $@ $^ -lcapstone -lelf -lz
# Execution-proportional samples drawn from exact counts, for
# bench/quality.sh -S and the tests of convert's signal rules.
$(B)/bench/expsample: $(B)/bench/expsample.o $(call layer_libs,$(B),synth proc raw lib)
	$(CC) $(LDFLAGS) -o $@ $^ -ldw -lelf -lz
# The branch-stack rule on both sides, for tests/integration/lbrfold.sh:
# the BPF fold and the collector's map reading against perf.data records.
$(B)/lbrfold: $(B)/tests/lbrfold/lbrfold.o $(call layer_libs,$(B),collector synth proc raw lib)
	$(CC) $(LDFLAGS) -o $@ $^ -lbpf -lelf -lz
$(B)/tests/lbrfold/lbrfold.o: $(B)/record.skel.h
# fp stacks counted by the BPF program and taken back by the collector's
# code, for tests/integration/fpcount.sh.
$(B)/fpcount: $(B)/tests/fpcount/fpcount.o $(call layer_libs,$(B),collector proc raw lib)
	$(CC) $(LDFLAGS) -o $@ $^ -lbpf -lelf -lz
$(B)/tests/fpcount/fpcount.o: $(B)/record.skel.h
# Synthesized fleets of raw profiles, for bench/fleet-merge.sh.
$(B)/bench/fleetgen: $(B)/bench/fleetgen.o $(call layer_libs,$(B),raw lib)
	$(CC) $(LDFLAGS) -o $@ $^
# report/flame.c's SVG of a made-up profile, for tests/integration/flame.sh.
$(B)/flamegen: $(B)/tests/flamegen/flamegen.o $(call layer_libs,$(B),report lib)
	$(CC) $(LDFLAGS) -o $@ $^ -lm
# Fuzz targets (tests/fuzz/README.md): make fuzzers, make fuzz [FUZZ_TIME=60]
include tests/fuzz/fuzz.mk

# Unit tests are always built with AddressSanitizer and UBSan, in their own
# object tree, so a parser that reads out of bounds fails its test.
SAN := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined,float-cast-overflow
# Their archives: $(B)/san/libDIR.a.
$(call layer_archives,$(B)/san)
TEST_LIBS := $(call layer_libs,$(B)/san,report collector convert import synth proc raw lib)
UNIT_TESTS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/test_*.c))

$(B)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -O1 -g $(SAN) -I$(B) -MMD -MP -c $< -o $@

$(B)/tests/test_%: $(B)/san/tests/unit/test_%.o $(TEST_LIBS) $(PB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(SAN) -o $@ $^ -ldw -lelf -lcapstone -lz -lm -liberty -lprotobuf-c

# The unit tests, and the tools the integration tests run.
unit-tests: $(UNIT_TESTS) $(B)/flamegen $(B)/lbrfold $(B)/fpcount $(B)/bench/expsample lbrsynth

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 0755 pgoprof pgoprof-record $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(PREFIX)/lib/pgoprof
	install -m 0644 pgoprof-count.so $(DESTDIR)$(PREFIX)/lib/pgoprof/
	install -m 0644 docs/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 docs/man/*.5 $(DESTDIR)$(MANDIR)/man5/

# make deps installs what the build and the tests need (apt; root or
# sudo); make check only says what is missing (ci/install-deps.sh).
deps:
	sh ci/install-deps.sh

check-deps:
	@sh ci/install-deps.sh --check

check: check-deps all unit-tests
	sh tests/run.sh $(B)

# What is too long for make check (README.md, "Tests"): exhaustive sweeps,
# big programs, the PGO speedup.  Not part of make check.
check-long: check-deps all unit-tests
	sh tests/run.sh $(B) long

demo: deps all
	sh pgo/demo.sh

# make bench: PGO gains against instrumented PGO, conversion speed against
# llvm-profgen, collector overhead against perf (bench/results/*.md).
include bench/bench.mk

clean:
	rm -rf $(B) $(PROGS) tests/out

.PHONY: all install deps check-deps check check-long demo clean unit-tests bench
# Keep the sanitizer objects between runs (they are intermediate files).
.SECONDARY:
