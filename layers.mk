# SPDX-License-Identifier: GPL-2.0-only
# The layers (docs/design.md) as static libraries: each directory's sources
# (its *.c and those of its sub-folders, such as import/perfdata/, but the
# programs' main files) are one archive per object tree,
# TREE/libDIR.a.  Programs, unit tests, fuzzers and bench tools link the
# archives, so no source list is kept by hand: a new file in a layer is in
# its library.  Included by the top-level Makefile and tests/fuzz/fuzz.mk.
#
#   $(call layer_libs,TREE,DIRS)  the archives of DIRS in TREE, in link
#                                 order (higher layers first)
#   $(call layer_archives,TREE)   defines the rules that make TREE's
#                                 archives from TREE/DIR/*.o (the tree's
#                                 own pattern rule compiles them)
#
# The order is layers.txt's (the one statement of it, which ci/layers.sh
# checks the includes against), highest first, as the linker wants it.
# synth/ (synthesized branch records and perf.data, for tests and
# benchmarks) is linked by no program.
LAYERS_FILE := $(dir $(lastword $(MAKEFILE_LIST)))layers.txt
LAYERS := $(strip $(shell awk '{ sub(/\#.*/, "") } NF { l[n++] = $$0 } END { while (n--) print l[n] }' $(LAYERS_FILE)))
ifeq ($(strip $(LAYERS)),)
$(error $(LAYERS_FILE): no layers)
endif
# pgoprof-record's own files: main.c and the files of its phases
# (collector/collector.h), which only it calls.
RECORD_MAIN := $(addprefix collector/,main.c options.c launch.c events.c \
	bpfload.c collect.c summary.c)
# The programs' own files (with main()), not members.
LAYER_MAINS := cli/pgoprof.c $(RECORD_MAIN)

layer_src = $(filter-out $(LAYER_MAINS),$(wildcard $(1)/*.c $(1)/*/*.c))
layer_libs = $(foreach l,$(filter $(2),$(LAYERS)),$(1)/lib$(l).a)

define LAYER_ARCHIVE
$(1)/lib$(2).a: $(patsubst %.c,$(1)/%.o,$(call layer_src,$(2)))
	@rm -f $$@
	$(AR) rcs $$@ $$^
endef
layer_archives = $(foreach l,$(LAYERS),$(eval $(call LAYER_ARCHIVE,$(1),$(l))))
