# modules/ooc/ooc.mk - make fragment of the out-of-core module (method of
# pyramids), included by the top-level Makefile; paths relative to the
# repository root.
#   make ooc          CPU binaries into build/ooc/ (ooc2d with the CPU stand-in device, test_ooc)
#   make ooc-cuda     CUDA binary build/ooc/ooc2d-cuda (only when nvcc exists)
#   make ooc-test     CPU test suite, last line "N passed, M failed"
# Links build/modules/libmodcommon.a (modules/common/common.mk: case files and
# flags, exit codes and mod_fail, safe output files, host-memory check, hash,
# PNG) and includes modules/common/stencil.h (wave_update, real) and cuda_check.h.

include modules/common/common.mk

OOC_DIR   := modules/ooc
OOC_SRC   := $(OOC_DIR)/src
OOC_BUILD := build/ooc
OOC_CC    ?= gcc
OOC_CFLAGS ?= -std=c11 -D_GNU_SOURCE -O3 -march=x86-64-v2 -fopenmp -ffp-contract=off -Wall -Wextra
OOC_INC   := -I$(OOC_SRC) $(MODC_INC)
OOC_HDRS  := $(OOC_SRC)/ooc.h $(OOC_SRC)/ooc_stencil.h $(MODC_HDRS)
OOC_LIBSRC := $(OOC_SRC)/case.c $(OOC_SRC)/driver.c $(OOC_SRC)/dev_cpu.c
OOC_LIBS  := $(MODC_LIB) -lm

OOC_NVCC  ?= /usr/local/cuda/bin/nvcc
ifeq ($(origin OOC_CUDA_HOME),undefined)
OOC_CUDA_HOME := $(if $(OOC_NVCC),$(call cuda_home_of,$(OOC_NVCC)))
endif
OOC_NVFLAGS ?= -O3 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
               --fmad=false --prec-div=true --prec-sqrt=true -Xcompiler -ffp-contract=off
# ooc2d-cuda travels to a GPU machine that may lack compiler runtimes (MODC_STATIC_RT: common.mk)
OOC_CUDA_LIBS := -L$(OOC_CUDA_HOME)/lib64 -lcudart_static $(MODC_STATIC_RT) -ldl -lrt -lpthread

.PHONY: ooc ooc-cuda ooc-test ooc-clean
ooc: $(OOC_BUILD)/ooc2d $(OOC_BUILD)/test_ooc

$(OOC_BUILD)/.dir:
	@mkdir -p $(OOC_BUILD) && touch $@

$(OOC_BUILD)/ooc2d: $(OOC_SRC)/main.c $(OOC_LIBSRC) $(OOC_HDRS) $(MODC_LIB) | $(OOC_BUILD)/.dir
	$(OOC_CC) $(OOC_CFLAGS) $(OOC_INC) -o $@ $(OOC_SRC)/main.c $(OOC_LIBSRC) $(OOC_LIBS)
$(OOC_BUILD)/test_ooc: $(OOC_DIR)/tests/test_ooc.c $(MODC_TESTH) $(OOC_LIBSRC) $(OOC_HDRS) $(MODC_LIB) | $(OOC_BUILD)/.dir
	$(OOC_CC) $(OOC_CFLAGS) $(OOC_INC) -I$(MODC_DIR)/tests -o $@ $(OOC_DIR)/tests/test_ooc.c $(OOC_LIBSRC) $(OOC_LIBS)

ifneq ($(wildcard $(OOC_NVCC)),)
ooc-cuda: $(OOC_BUILD)/ooc2d-cuda
else
ooc-cuda:
	@echo "ooc-cuda: $(OOC_NVCC) not found, skipping the CUDA build"
endif

$(OOC_BUILD)/dev_cuda.o: $(OOC_SRC)/dev_cuda.cu $(OOC_HDRS) $(MODC_DIR)/cuda_check.h | $(OOC_BUILD)/.dir
	$(OOC_NVCC) $(OOC_NVFLAGS) $(OOC_INC) -DOOC_HAVE_CUDA -c -o $@ $<
$(OOC_BUILD)/ooc2d-cuda: $(OOC_SRC)/main.c $(OOC_LIBSRC) $(OOC_HDRS) $(MODC_LIB) $(OOC_BUILD)/dev_cuda.o
	$(OOC_CC) $(OOC_CFLAGS) $(OOC_INC) -DOOC_HAVE_CUDA -o $@ $(OOC_SRC)/main.c $(OOC_LIBSRC) $(OOC_BUILD)/dev_cuda.o $(OOC_CUDA_LIBS) $(OOC_LIBS)

ooc-test: ooc
	@bash $(OOC_DIR)/tests/run_tests.sh

ooc-clean:
	rm -rf $(OOC_BUILD)
