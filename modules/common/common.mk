# modules/common/common.mk - make fragment of the library the module programs
# share (wave2d, stencil3d, ooc2d). Included by each module's fragment (once,
# whichever comes first); paths relative to the repository root.
#   build/modules/libmodcommon.a   fail.c (exit codes, mod_fail, signals),
#       guard.c (host memory, input and output files), opts.c (case files and
#       flags), output.c (PNG, hash, clock, mod_out_*), and the host library
#       that the solver and the tools share too (modules/common/host/host.mk: input files
#       opened safely, file kinds, host memory): built once, with no
#       dependence on a module's precision, MPI or CUDA choice.
#   header only: stencil.h (real, MOD_HD, 8th-order coefficients, wave_update),
#       cuda_check.h (CUDA_CHECK), tests/check.h (C unit tests);
#   tests/harness.sh: the harness of the modules' run_tests.sh.
ifndef MODC_MK
MODC_MK := 1
include modules/common/host/host.mk

MODC_DIR    := modules/common
MODC_BUILD  := build/modules
MODC_LIB    := $(MODC_BUILD)/libmodcommon.a
MODC_CC     ?= gcc
MODC_AR     ?= ar
MODC_CFLAGS ?= -std=c11 -D_GNU_SOURCE -O3 -march=x86-64-v2 -ffp-contract=off -Wall -Wextra
MODC_INC    := -I$(MODC_DIR)
MODC_HDRS   := $(MODC_DIR)/fail.h $(MODC_DIR)/guard.h $(MODC_DIR)/opts.h $(MODC_DIR)/output.h $(MODC_DIR)/stencil.h
MODC_OBJS   := $(patsubst %,$(MODC_BUILD)/common/%.o,fail guard opts output) \
               $(patsubst $(HOST_DIR)/%.c,$(MODC_BUILD)/host/%.o,$(HOST_SRCS))
MODC_TESTH  := $(MODC_DIR)/tests/check.h
# CUDA binaries that travel to a GPU machine lacking compiler runtimes (stencil3d,
# ooc2d) link libstdc++ and libgomp statically where their archives exist
# (ldd then shows libc, libm, libgcc_s only).
MODC_GOMP_A    := $(filter /%,$(shell $(MODC_CC) -print-file-name=libgomp.a 2>/dev/null))
MODC_STDCXX_A  := $(filter /%,$(shell $(MODC_CC) -print-file-name=libstdc++.a 2>/dev/null))
MODC_STATIC_RT := $(or $(MODC_STDCXX_A),-lstdc++) $(MODC_GOMP_A)

.PHONY: modules-common modules-common-clean
modules-common: $(MODC_LIB)

$(MODC_BUILD)/common/.dir:
	@mkdir -p $(MODC_BUILD)/common && touch $@
$(MODC_BUILD)/common/%.o: $(MODC_DIR)/%.c $(MODC_HDRS) $(HOST_HDRS) | $(MODC_BUILD)/common/.dir
	$(MODC_CC) $(MODC_CFLAGS) $(MODC_INC) $(HOST_INC) -c -o $@ $<
$(MODC_BUILD)/host/%.o: $(HOST_DIR)/%.c $(HOST_HDRS) | $(MODC_BUILD)/common/.dir
	@mkdir -p $(@D)
	$(MODC_CC) $(MODC_CFLAGS) $(HOST_INC) -c -o $@ $<
$(MODC_LIB): $(MODC_OBJS)
	rm -f $@ && $(MODC_AR) rcs $@ $^

modules-common-clean:
	rm -rf $(MODC_BUILD)
endif
