# hip/hip.mk - HIP build of the CUDA sources, for AMD GPUs and DCU-class
# accelerators (make fragment, included by the top-level Makefile; paths are
# relative to the repository root). hip/README.md explains the port.
#
#   make hip               build/hip/adiflow: the Fortran driver and the GPU
#                          sources of build/adiflow compiled by hipcc (the
#                          same files nvcc compiles; cuda/common/adiflow_gpu_vendor.h
#                          maps the names), and build/hip/gpu_two_grids over
#                          them; build/hip/adiflow_mpi, whose GPU blocks move
#                          their halos with MPI through host memory (no RCCL);
#                          build/hip/wave/wave2d{,-dp}, the wave module's
#                          single-process multi-GPU path; what it leaves
#                          out: hip/README.md
#   make hip-clean         remove build/hip
#   make gpu-vendor-check  compile tests/gpu/gpu_vendor_check.cu with nvcc and hipcc,
#                          whichever are installed (make hip compiles it with hipcc)
# Variables:
#   HIP_ARCH="gfx906 gfx90a gfx942"  offload targets (rocminfo shows a GPU's);
#                          those the installed hipcc cannot build for are left
#                          out with a warning (HIP_ARCH_STRICT=1: an error)
#   HIPCC=...              default: hipcc on PATH, else /opt/rocm/bin/hipcc,
#                          else Debian's, installed by scripts/install_deps.sh hip
#   STRICT=1               no FMA contraction (-ffp-contract=off), as nvcc --fmad=false
#   BENCH_VARIANTS=1       the merged family's technique switches (bench/README.md)
#   HIP_GRAPHS=1           merged family: capture the iteration as a HIP graph
#                          (-DADIFLOW_HIP_GRAPHS; off by default on HIP, see hip/README.md)
#   HIPFLAGS=...           replaces the default compile flags below

ifndef ADIFLOW_HIP_MK
ADIFLOW_HIP_MK := 1

HIP_BUILD ?= build/hip
HIP_OBJ    = $(HIP_BUILD)/obj
HIP_ARCH  ?= gfx906 gfx90a gfx942
HIPCC     ?= $(or $(shell command -v hipcc 2>/dev/null),$(wildcard /opt/rocm/bin/hipcc),hipcc)
# -Wno-unused-result: HIP marks hipError_t [[nodiscard]]; the CUDA-written
# clean-up paths (cudaFree in free_all, ...) ignore it on purpose
HIPFLAGS  ?= -O3 -std=c++17 -Wall -Wno-unused-result
# the public headers and the GPU backend's internal ones (kept out of
# HIPFLAGS, so that replacing the flags keeps the sources compiling)
HIP_INC   := -Iinclude -Icuda/common

# the makefile that includes this one, for the recursive calls below
HIP_TOP_MAKEFILE := $(firstword $(MAKEFILE_LIST))

# The sources nvcc compiles (CU_SRCS of the top-level Makefile: cuda/api,
# cuda/split, cuda/merged), also the ones added later: nothing to list here.
HIP_CU_SRCS  = $(CU_SRCS)
HIP_GPU_OBJS = $(patsubst cuda/%.cu,$(HIP_OBJ)/hip/%.o,$(HIP_CU_SRCS))
# build/hip/adiflow_mpi's block driver with the transports a build without
# RCCL has (the Makefile's BLOCK_SRCS_BASE: MPI through host memory)
HIP_BLOCK_OBJS = $(patsubst cuda/%.cu,$(HIP_OBJ)/hip/%.o,$(BLOCK_SRCS_BASE))

# libamdhip64: ROCm's lib/ for a ROCm hipcc (with an rpath), the system's
# (Debian's libamdhip64-dev) otherwise. libstdc++ links shared: libamdhip64.so
# uses the shared one, and one copy in the process is the safe number.
HIP_ROCM_PATH = $(patsubst %/bin/hipcc,%,$(realpath $(shell command -v $(HIPCC) 2>/dev/null)))
HIP_LIBDIR   ?= $(patsubst %/libamdhip64.so,%,$(firstword $(wildcard $(HIP_ROCM_PATH)/lib/libamdhip64.so $(HIP_ROCM_PATH)/lib64/libamdhip64.so)))
HIP_LIBS      = $(if $(filter-out /usr/lib /usr/lib64,$(HIP_LIBDIR)),-L$(HIP_LIBDIR) -Wl$(hip_comma)-rpath$(hip_comma)$(HIP_LIBDIR)) \
                -lamdhip64 -lstdc++ -ldl -lpthread
hip_comma := ,
hip_empty :=
hip_space := $(hip_empty) $(hip_empty)

# set on the command line of the inner make (see hip-build)
HIP_ARCHS_OK ?=
HIP_MODE      = $(if $(filter 1,$(STRICT)),strict,fast)$(if $(filter 1,$(BENCH_VARIANTS)),-bench)
HIP_STAMP     = $(HIP_OBJ)/.hip-$(HIP_MODE)-$(subst :,_,$(subst $(hip_space),-,$(strip $(HIP_ARCHS_OK))))$(if $(filter 1,$(HIP_GRAPHS)),-graphs)
HIPFLAGS_ALL  = $(HIPFLAGS) $(HIP_INC) $(addprefix --offload-arch=,$(HIP_ARCHS_OK)) \
                $(if $(filter 1,$(STRICT)),-ffp-contract=off -DADIFLOW_STRICT) $(if $(filter 1,$(HIP_GRAPHS)),-DADIFLOW_HIP_GRAPHS) \
                $(if $(filter 1,$(BENCH_VARIANTS)),-DADIFLOW_BENCH_VARIANTS)

.PHONY: hip hip-build hip-clean gpu-vendor-check

# 1. packages, when missing (a new make then sees the hipcc just installed;
#    OpenMPI for build/hip/adiflow_mpi)
hip: deps mpi-deps
	$(call install_if_missing,hip,$(call missing_cmds,$(HIPCC)))
	@$(MAKE) --no-print-directory -f $(HIP_TOP_MAKEFILE) hip-build

# 2. the targets this hipcc can build for (probed once per hipcc version
#    and HIP_ARCH), then 3. the top-level Makefile's own rules with the hipcc
#    objects in place of the nvcc ones, into $(HIP_BUILD)
hip-build:
	@mkdir -p $(HIP_BUILD)
	@key="$(HIPCC) $$($(HIPCC) --version 2>/dev/null | head -n 2 | tr '\n' ' ')| $(HIP_ARCH) | $(HIP_ARCH_STRICT)"; \
	if [ -f $(HIP_BUILD)/.arch-probe ] && [ "$$(head -n 1 $(HIP_BUILD)/.arch-probe)" = "$$key" ]; then \
	  archs=$$(sed -n 2p $(HIP_BUILD)/.arch-probe); \
	else \
	  archs=$$(bash hip/probe_arch.sh '$(HIPCC)' $(HIP_ARCH)) || exit 1; \
	  printf '%s\n%s\n' "$$key" "$$archs" > $(HIP_BUILD)/.arch-probe; \
	fi; \
	echo "make hip: $(HIPCC) for $$archs"; \
	$(MAKE) --no-print-directory -f $(HIP_TOP_MAKEFILE) BUILD=$(HIP_BUILD) HIP_ARCHS_OK="$$archs" \
	  GPU_OBJS="$(HIP_GPU_OBJS)" GPU_LIBS="$(HIP_LIBS)" LIBSTDCXX_A= \
	  ADI_BLOCK_CCL=0 MPI_GPU_OBJS="$(HIP_GPU_OBJS) $(HIP_BLOCK_OBJS)" MPI_GPU_LIBS="$(HIP_LIBS)" \
	  $(HIP_BUILD)/adiflow $(HIP_BUILD)/gpu_two_grids $(HIP_OBJ)/gpu_vendor_check.o \
	  $(HIP_BUILD)/adiflow_mpi $(WAVE_HIP_BINS) && \
	echo "make hip: built $(HIP_BUILD)/adiflow, $(HIP_BUILD)/gpu_two_grids, $(HIP_BUILD)/adiflow_mpi (MPI host-staged halos)" \
	  "and $(WAVE_HIP_BINS) for $$archs$(if $(filter 1,$(STRICT)), (strict)) (HIP_ARCH: $(HIP_ARCH))"

$(HIP_STAMP):
	@mkdir -p $(HIP_OBJ)
	@rm -f $(HIP_OBJ)/.hip-*
	@if [ "$(STRICT)" = 1 ]; then echo "$(HIPCC) $(HIPFLAGS_ALL)" > $(HIP_BUILD)/STRICT; else rm -f $(HIP_BUILD)/STRICT; fi
	@if [ "$(BENCH_VARIANTS)" = 1 ]; then echo "$(HIPCC) $(HIPFLAGS_ALL)" > $(HIP_BUILD)/BENCH_VARIANTS; else rm -f $(HIP_BUILD)/BENCH_VARIANTS; fi
	@touch $@

# objects mirror the source tree under hip/ (the nvcc rule's are under cuda/)
$(HIP_OBJ)/hip/%.o: cuda/%.cu $(GPU_HDRS) $(HIP_STAMP)
	@mkdir -p $(@D)
	$(HIPCC) $(HIPFLAGS_ALL) -c $< -o $@

# the block driver and its MPI transport: mpi.h besides (the Makefile's
# BLOCK_FLAGS, with ADI_BLOCK_CCL=0 from hip-build)
$(HIP_OBJ)/hip/multi/%.o: cuda/multi/%.cu $(GPU_HDRS) $(HIP_STAMP) | mpi-deps
	@mkdir -p $(@D)
	$(HIPCC) $(HIPFLAGS_ALL) $(BLOCK_FLAGS) -c $< -o $@

# compile-only check of the vendor header (not linked into adiflow)
$(HIP_OBJ)/gpu_vendor_check.o: tests/gpu/gpu_vendor_check.cu cuda/common/adiflow_gpu_vendor.h $(HIP_STAMP)
	$(HIPCC) $(HIPFLAGS_ALL) -c $< -o $@

gpu-vendor-check:
	@mkdir -p $(HIP_BUILD)
	@if [ -n "$(NVCC)" ]; then echo "nvcc:  tests/gpu/gpu_vendor_check.cu"; \
	  $(NVCC) $(NVFLAGS) -c tests/gpu/gpu_vendor_check.cu -o $(HIP_BUILD)/gpu_vendor_check_nvcc.o || exit 1; \
	else echo "nvcc not found: CUDA side not checked"; fi
	@if command -v $(HIPCC) > /dev/null 2>&1; then echo "hipcc: tests/gpu/gpu_vendor_check.cu"; \
	  $(HIPCC) $(HIPFLAGS) $(HIP_INC) --offload-arch=gfx90a -c tests/gpu/gpu_vendor_check.cu -o $(HIP_BUILD)/gpu_vendor_check_hip.o || exit 1; \
	else echo "hipcc not found: HIP side not checked (scripts/install_deps.sh hip)"; fi

hip-clean:
	rm -rf $(HIP_BUILD)

endif
