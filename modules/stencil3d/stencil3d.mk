# modules/stencil3d/stencil3d.mk - make fragment of the 3D stencil module
# (included by the top-level Makefile; paths relative to the repository root).
#   make stencil3d        CPU binaries into build/stencil3d/ (stencil3d, test_stencil3d)
#   make stencil3d-cuda   CUDA binaries (only when nvcc exists): build/stencil3d/stencil3d-cuda
#                         (--fmad=false, bit-identical to the CPU) and stencil3d-cuda-fma (FMA
#                         contraction allowed: faster, not bit-identical; for the benchmark only)
#   make stencil3d-test   CPU test suite, last line "N passed, M failed"
# It links build/modules/libmodcommon.a (modules/common/common.mk: case files
# and flags, exit codes and mod_fail, safe output files, host-memory check, PNG
# writer, FNV hash) and includes modules/common/stencil.h (real, MOD_HD,
# 8th-order coefficients) and cuda_check.h.

include modules/common/common.mk

S3_DIR   := modules/stencil3d
S3_SRC   := $(S3_DIR)/src
S3_BUILD := build/stencil3d
S3_CC    ?= gcc
# -ffp-contract=off: no FMA contraction, so the CPU reference, the CPU
# emulation and the GPU kernels (--fmad=false) give bit-identical fields
S3_CFLAGS ?= -std=c11 -D_GNU_SOURCE -O3 -march=x86-64-v2 -fopenmp -ffp-contract=off -Wall -Wextra
S3_INC   := -I$(S3_SRC) $(MODC_INC)
S3_HDRS  := $(S3_SRC)/s3d.h $(S3_SRC)/s3_stencil.h $(S3_SRC)/s3_kernels.h $(MODC_HDRS)
S3_LIBSRC := $(S3_SRC)/case.c $(S3_SRC)/cpu.c $(S3_SRC)/emu.c $(S3_SRC)/emu_fiber.c
S3_LIBS  := $(MODC_LIB) -lm

S3_NVCC  ?= /usr/local/cuda/bin/nvcc
ifeq ($(origin S3_CUDA_HOME),undefined)
S3_CUDA_HOME := $(if $(S3_NVCC),$(call cuda_home_of,$(S3_NVCC)))
endif
# sm_90 machine code plus compute_90 PTX (JIT on newer GPUs); --fmad=false for bit-identity
S3_NVFLAGS ?= -O3 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
              --fmad=false --prec-div=true --prec-sqrt=true -Xcompiler -ffp-contract=off -Xptxas -warn-spills
# The CUDA binaries travel to a GPU machine that may lack compiler runtimes (MODC_STATIC_RT: common.mk)
S3_CUDA_LIBS := -L$(S3_CUDA_HOME)/lib64 -lcudart_static $(MODC_STATIC_RT) -ldl -lrt -lpthread

.PHONY: stencil3d stencil3d-cuda stencil3d-test stencil3d-clean
stencil3d: $(S3_BUILD)/stencil3d $(S3_BUILD)/test_stencil3d

$(S3_BUILD)/.dir:
	@mkdir -p $(S3_BUILD) && touch $@

$(S3_BUILD)/stencil3d: $(S3_SRC)/main.c $(S3_LIBSRC) $(S3_HDRS) $(MODC_LIB) | $(S3_BUILD)/.dir
	$(S3_CC) $(S3_CFLAGS) $(S3_INC) -o $@ $(S3_SRC)/main.c $(S3_LIBSRC) $(S3_LIBS)
# the unit tests run in double precision (convergence orders near round-off)
$(S3_BUILD)/test_stencil3d: $(S3_DIR)/tests/test_stencil3d.c $(MODC_TESTH) $(S3_LIBSRC) $(S3_HDRS) $(MODC_LIB) | $(S3_BUILD)/.dir
	$(S3_CC) $(S3_CFLAGS) $(S3_INC) -I$(MODC_DIR)/tests -DMOD_DOUBLE -o $@ $(S3_DIR)/tests/test_stencil3d.c $(S3_LIBSRC) $(S3_LIBS)

ifneq ($(wildcard $(S3_NVCC)),)
stencil3d-cuda: $(S3_BUILD)/stencil3d-cuda $(S3_BUILD)/stencil3d-cuda-fma
else
stencil3d-cuda:
	@echo "stencil3d-cuda: $(S3_NVCC) not found, skipping the CUDA build"
endif

$(S3_BUILD)/gpu.o: $(S3_SRC)/gpu.cu $(S3_HDRS) $(MODC_DIR)/cuda_check.h | $(S3_BUILD)/.dir
	$(S3_NVCC) $(S3_NVFLAGS) $(S3_INC) -DS3_HAVE_CUDA -c -o $@ $<
$(S3_BUILD)/stencil3d-cuda: $(S3_SRC)/main.c $(S3_LIBSRC) $(S3_HDRS) $(MODC_LIB) $(S3_BUILD)/gpu.o
	$(S3_CC) $(S3_CFLAGS) $(S3_INC) -DS3_HAVE_CUDA -o $@ $(S3_SRC)/main.c $(S3_LIBSRC) $(S3_BUILD)/gpu.o $(S3_CUDA_LIBS) $(S3_LIBS)
$(S3_BUILD)/gpu-fma.o: $(S3_SRC)/gpu.cu $(S3_HDRS) $(MODC_DIR)/cuda_check.h | $(S3_BUILD)/.dir
	$(S3_NVCC) $(filter-out --fmad=false,$(S3_NVFLAGS)) --fmad=true $(S3_INC) -DS3_HAVE_CUDA -DS3_FMA_BUILD -c -o $@ $<
$(S3_BUILD)/stencil3d-cuda-fma: $(S3_SRC)/main.c $(S3_LIBSRC) $(S3_HDRS) $(MODC_LIB) $(S3_BUILD)/gpu-fma.o
	$(S3_CC) $(S3_CFLAGS) $(S3_INC) -DS3_HAVE_CUDA -o $@ $(S3_SRC)/main.c $(S3_LIBSRC) $(S3_BUILD)/gpu-fma.o $(S3_CUDA_LIBS) $(S3_LIBS)

stencil3d-test: stencil3d
	@bash $(S3_DIR)/tests/run_tests.sh

stencil3d-clean:
	rm -rf $(S3_BUILD)
