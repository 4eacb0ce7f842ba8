# modules/wave/wave.mk - make fragment of the 2D acoustic wave module (included
# by the top-level Makefile; all paths relative to the repository root). Links
# build/modules/libmodcommon.a (modules/common/common.mk).
#   make wave        CPU (OpenMP) + MPI binaries into build/wave/
#   make wave-cuda   CUDA binaries (single-process multi-GPU, MPI+NCCL)
#   make wave-test   CPU test suite, last line "N passed, M failed"
#   make hip         (hip/hip.mk) also builds build/hip/wave/wave2d{,-dp}: the
#                    single-process multi-GPU path for HIP (no MPI+RCCL binary:
#                    Debian ships no RCCL)

include modules/common/common.mk

WAVE_DIR   := modules/wave
WAVE_SRC   := $(WAVE_DIR)/src
WAVE_BUILD := build/wave
WAVE_CC    ?= gcc
WAVE_MPICC ?= mpicc
# -ffp-contract=off: no FMA contraction, so all modes give bit-identical fields
WAVE_CFLAGS ?= -std=c11 -D_GNU_SOURCE -O3 -march=x86-64-v2 -fopenmp -ffp-contract=off -Wall -Wextra
WAVE_INC   := -I$(WAVE_SRC) $(MODC_INC)
WAVE_LIBS  := $(MODC_LIB) -lm
WAVE_HDRS  := $(WAVE_SRC)/wave.h $(MODC_HDRS)
WAVE_CSRC  := $(WAVE_SRC)/main.c $(WAVE_SRC)/case.c $(WAVE_SRC)/cpu.c

WAVE_NVCC  ?= /usr/local/cuda/bin/nvcc
ifeq ($(origin WAVE_CUDA_HOME),undefined)
WAVE_CUDA_HOME := $(if $(WAVE_NVCC),$(call cuda_home_of,$(WAVE_NVCC)))
endif
# NCCL: CUDA's lib64/lib, the system lib dir, else wherever `find / -name libnccl.so` says
# (searched only when nvcc is present, so CPU-only makes stay fast)
ifneq ($(wildcard $(WAVE_NVCC)),)
ifeq ($(origin WAVE_NCCL_LIB),undefined)
WAVE_NCCL_LIB := $(or $(firstword $(foreach d,$(WAVE_CUDA_HOME)/lib64 $(WAVE_CUDA_HOME)/lib /usr/lib/x86_64-linux-gnu,$(if $(wildcard $(d)/libnccl.so),$(d)))),$(patsubst %/,%,$(dir $(firstword $(shell find / -name libnccl.so -not -path '/proc/*' 2>/dev/null)))))
endif
ifeq ($(origin WAVE_NCCL_INC),undefined)
WAVE_NCCL_INC := $(or $(firstword $(foreach d,$(WAVE_CUDA_HOME)/include /usr/include,$(if $(wildcard $(d)/nccl.h),$(d)))),$(WAVE_NCCL_LIB)/../include)
endif
endif
# sm_90 machine code plus compute_90 PTX for JIT on newer GPUs; --fmad=false for bit-identity
WAVE_NVFLAGS ?= -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
                --fmad=false --prec-div=true --prec-sqrt=true -Xcompiler -ffp-contract=off
WAVE_CUDA_LIBS := -L$(WAVE_CUDA_HOME)/lib64 -lcudart_static -L$(WAVE_NCCL_LIB) -Wl,-rpath,$(WAVE_NCCL_LIB) -lnccl -lstdc++ -ldl -lrt -lpthread

WAVE_CPU_BINS  := $(WAVE_BUILD)/wave2d $(WAVE_BUILD)/wave2d-dp $(WAVE_BUILD)/wave2d-mpi $(WAVE_BUILD)/wave2d-mpi-dp
WAVE_CUDA_BINS := $(WAVE_BUILD)/wave2d-cuda $(WAVE_BUILD)/wave2d-cuda-dp $(WAVE_BUILD)/wave2d-mpi-cuda

.PHONY: wave wave-cuda wave-test wave-clean
wave: $(WAVE_CPU_BINS) $(WAVE_BUILD)/test_wave

$(WAVE_BUILD)/.dir:
	@mkdir -p $(WAVE_BUILD) && touch $@

$(WAVE_BUILD)/wave2d: $(WAVE_CSRC) $(WAVE_HDRS) $(MODC_LIB) | $(WAVE_BUILD)/.dir
	$(WAVE_CC) $(WAVE_CFLAGS) $(WAVE_INC) -o $@ $(WAVE_CSRC) $(WAVE_LIBS)
$(WAVE_BUILD)/wave2d-dp: $(WAVE_CSRC) $(WAVE_HDRS) $(MODC_LIB) | $(WAVE_BUILD)/.dir
	$(WAVE_CC) $(WAVE_CFLAGS) $(WAVE_INC) -DMOD_DOUBLE -o $@ $(WAVE_CSRC) $(WAVE_LIBS)
$(WAVE_BUILD)/wave2d-mpi: $(WAVE_CSRC) $(WAVE_HDRS) $(MODC_LIB) | $(WAVE_BUILD)/.dir
	$(WAVE_MPICC) $(WAVE_CFLAGS) $(WAVE_INC) -DWAVE_HAVE_MPI -o $@ $(WAVE_CSRC) $(WAVE_LIBS)
$(WAVE_BUILD)/wave2d-mpi-dp: $(WAVE_CSRC) $(WAVE_HDRS) $(MODC_LIB) | $(WAVE_BUILD)/.dir
	$(WAVE_MPICC) $(WAVE_CFLAGS) $(WAVE_INC) -DWAVE_HAVE_MPI -DMOD_DOUBLE -o $@ $(WAVE_CSRC) $(WAVE_LIBS)
WAVE_TSRC  := $(WAVE_SRC)/case.c $(WAVE_SRC)/cpu.c
$(WAVE_BUILD)/test_wave: $(WAVE_DIR)/tests/test_wave.c $(MODC_TESTH) $(WAVE_TSRC) $(WAVE_HDRS) $(MODC_LIB) | $(WAVE_BUILD)/.dir
	$(WAVE_CC) $(WAVE_CFLAGS) $(WAVE_INC) -I$(MODC_DIR)/tests -DMOD_DOUBLE -o $@ $(WAVE_DIR)/tests/test_wave.c $(WAVE_TSRC) $(WAVE_LIBS)

# ---- CUDA ----
ifneq ($(wildcard $(WAVE_NVCC)),)
wave-cuda: $(WAVE_CUDA_BINS)
else
wave-cuda:
	@echo "wave-cuda: $(WAVE_NVCC) not found, skipping the CUDA build"
endif

# gpu.cu includes the solver's vendor header (cuda/common/adiflow_gpu_vendor.h),
# which makes the same source HIP under hipcc
WAVE_GPU_HDRS := $(WAVE_HDRS) $(MODC_DIR)/cuda_check.h cuda/common/adiflow_gpu_vendor.h
$(WAVE_BUILD)/gpu.o: $(WAVE_SRC)/gpu.cu $(WAVE_GPU_HDRS) | $(WAVE_BUILD)/.dir
	$(WAVE_NVCC) $(WAVE_NVFLAGS) $(WAVE_INC) -Icuda/common -DWAVE_HAVE_CCL=1 -I$(WAVE_NCCL_INC) -c -o $@ $<
$(WAVE_BUILD)/gpu-dp.o: $(WAVE_SRC)/gpu.cu $(WAVE_GPU_HDRS) | $(WAVE_BUILD)/.dir
	$(WAVE_NVCC) $(WAVE_NVFLAGS) $(WAVE_INC) -Icuda/common -DWAVE_HAVE_CCL=1 -DMOD_DOUBLE -I$(WAVE_NCCL_INC) -c -o $@ $<
$(WAVE_BUILD)/wave2d-cuda: $(WAVE_CSRC) $(WAVE_HDRS) $(MODC_LIB) $(WAVE_BUILD)/gpu.o
	$(WAVE_CC) $(WAVE_CFLAGS) $(WAVE_INC) -DWAVE_HAVE_CUDA -o $@ $(WAVE_CSRC) $(WAVE_BUILD)/gpu.o $(WAVE_CUDA_LIBS) $(WAVE_LIBS)
$(WAVE_BUILD)/wave2d-cuda-dp: $(WAVE_CSRC) $(WAVE_HDRS) $(MODC_LIB) $(WAVE_BUILD)/gpu-dp.o
	$(WAVE_CC) $(WAVE_CFLAGS) $(WAVE_INC) -DWAVE_HAVE_CUDA -DMOD_DOUBLE -o $@ $(WAVE_CSRC) $(WAVE_BUILD)/gpu-dp.o $(WAVE_CUDA_LIBS) $(WAVE_LIBS)
$(WAVE_BUILD)/wave2d-mpi-cuda: $(WAVE_CSRC) $(WAVE_HDRS) $(MODC_LIB) $(WAVE_BUILD)/gpu.o
	$(WAVE_MPICC) $(WAVE_CFLAGS) $(WAVE_INC) -DWAVE_HAVE_MPI -DWAVE_HAVE_CUDA -o $@ $(WAVE_CSRC) $(WAVE_BUILD)/gpu.o $(WAVE_CUDA_LIBS) $(WAVE_LIBS)

# ---- HIP: made by make hip's inner make (hip/hip.mk, included before this
# file), which sets HIPCC, HIP_ARCHS_OK and HIP_LIBS. One process drives
# every GPU (--gpus N); no WAVE_HAVE_CCL, so no MPI+RCCL path.
# -ffp-contract=off always, as --fmad=false above: the modes stay bit-identical.
WAVE_HIP_BUILD := $(HIP_BUILD)/wave
WAVE_HIP_BINS  := $(WAVE_HIP_BUILD)/wave2d $(WAVE_HIP_BUILD)/wave2d-dp
WAVE_HIPFLAGS   = $(HIPFLAGS) -ffp-contract=off -Icuda/common $(addprefix --offload-arch=,$(HIP_ARCHS_OK))
$(WAVE_HIP_BUILD)/gpu.o $(WAVE_HIP_BUILD)/gpu-dp.o: $(WAVE_SRC)/gpu.cu $(WAVE_GPU_HDRS) $(HIP_STAMP)
	@mkdir -p $(@D)
	$(HIPCC) $(WAVE_HIPFLAGS) $(WAVE_INC) $(if $(findstring -dp,$(@F)),-DMOD_DOUBLE) -c -o $@ $<
$(WAVE_HIP_BUILD)/wave2d: $(WAVE_HIP_BUILD)/gpu.o
$(WAVE_HIP_BUILD)/wave2d-dp: $(WAVE_HIP_BUILD)/gpu-dp.o
$(WAVE_HIP_BINS): $(WAVE_CSRC) $(WAVE_HDRS) $(MODC_LIB)
	$(WAVE_CC) $(WAVE_CFLAGS) $(WAVE_INC) -DWAVE_HAVE_CUDA $(if $(findstring -dp,$(@F)),-DMOD_DOUBLE) -o $@ $(WAVE_CSRC) \
	  $(filter %.o,$^) $(HIP_LIBS) $(WAVE_LIBS)

wave-test: wave
	@bash $(WAVE_DIR)/tests/run_tests.sh

wave-clean:
	rm -rf $(WAVE_BUILD)
