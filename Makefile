# adiflow — top-level build.
#   make            build build/adiflow (CUDA backend too when nvcc is found)
#   make run        run the default cavity case (GPU if present, else CPU)
#   make test       CPU test suite (what CI runs)
#   make validate   Ghia et al. (1982) comparisons -> validation/RESULTS.md
#   make validate-cube  the Re=1000 cube against Albensoeder & Kuhlmann (2005) -> validation/CUBE.md
#   make gpu-test   on a GPU machine: CPU vs GPU comparisons (builds nothing)
#   make hip        HIP build of the same CUDA sources (AMD / DCU)
#   make clean
# Variables: STRICT=1 (no FMA contraction anywhere: bit-identical backends),
#            CUDA_ARCH=sm_90, NVCC=..., FC=gfortran, CC=gcc, HIP_ARCH=...,
#            BUILD=build (make BUILD=build/strict STRICT=1 keeps a second build),
#            STATIC_RUNTIME=1 (link the compiler runtimes statically, see below),
#            GPU_BACKEND=cuda|hip|none (see below; none skips the CUDA build)

SHELL := /bin/bash
FC ?= gfortran
ifeq ($(origin FC),default)
FC := gfortran
endif
CC := gcc
BUILD := build
OBJ := $(BUILD)/obj

NVCC ?= $(shell command -v nvcc 2>/dev/null || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
# CUDA's root as nvcc itself reports it (its TOP), so that an nvcc reached
# through a symlink or wrapper (/usr/local/bin/nvcc) still finds lib64
cuda_home_of = $(or $(realpath $(shell $(or $(realpath $(1)),$(1)) --dryrun -x cu -c /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$$ TOP=//p' | head -n 1)),$(patsubst %/bin/nvcc,%,$(or $(realpath $(1)),$(1))))
ifeq ($(origin CUDA_HOME),undefined)
CUDA_HOME := $(if $(NVCC),$(call cuda_home_of,$(NVCC)))
endif
CUDA_ARCH ?= sm_90
CUDA_PTX  := $(patsubst sm_%,compute_%,$(CUDA_ARCH))

# The Fortran reference never contracts a*b+c into an FMA: its rounding is the
# one the strict GPU build reproduces bit for bit.
FFLAGS ?= -O2 -g -fopenmp -ffp-contract=off -fno-fast-math -std=f2018 -fno-backtrace -ffpe-summary=none -Wall -Wno-maybe-uninitialized \
          -Wno-compare-reals -Wno-unused-dummy-argument -ffree-line-length-none -fcheck=bounds
FFLAGS_RELEASE := -O2 -g -fopenmp -ffp-contract=off -std=f2018 -fno-backtrace -ffpe-summary=none -ffree-line-length-none
CFLAGS ?= -O2 -g -std=c11 -Wall -Wextra -ffp-contract=off -Iinclude
NVFLAGS := -O3 -std=c++17 -Iinclude -Icuda/common -gencode arch=$(CUDA_PTX),code=$(CUDA_ARCH) \
           -gencode arch=$(CUDA_PTX),code=$(CUDA_PTX) -Xcompiler -Wall
ifeq ($(STRICT),1)
NVFLAGS += --fmad=false -DADIFLOW_STRICT
endif
ifeq ($(DEBUG),1)
FFLAGS_USE := $(FFLAGS)
else
FFLAGS_USE := $(FFLAGS_RELEASE)
endif
# The Fortran sources are preprocessed: the case-key lists (fortran/case_keys/)
# and the rows the C headers are made from (include/*.def, cuda/common/*.def)
# expand into Fortran there
FFLAGS_USE += -cpp -Iinclude -Ifortran -Icuda/common

F_MODULES := kinds grid_layout omp_policy solver_params gpu_settings sys_interface case_config output_file flow_math flow_math_sp grid_generation \
  metrics boundary_conditions primitives time_step convective_flux viscous_flux lu_adi flow_fields \
  residual_norms mass_constraint solver_cpu multigrid_config multigrid_levels multigrid_transfer \
  multigrid_cycle multigrid_cpu parallel_config field_io output_fields output_vtk output_tecplot output_profiles \
  residual_monitor convergence_rate driver_loop gpu_bridge
F_OBJS := $(addprefix $(OBJ)/,$(addsuffix .o,$(F_MODULES)))
# the C side of the drivers: system services, the dump reader/writer, the
# safe commit of output files, the case file's text check
C_OBJS := $(OBJ)/sys_support.o $(OBJ)/run_folder.o $(OBJ)/history_file.o $(OBJ)/field_file.o $(OBJ)/safe_file.o $(OBJ)/case_scan.o $(OBJ)/grid_layout_c.o

# the GPU backend: the bridge API (cuda/api), the two kernel families
# (cuda/split, cuda/merged), their internal headers (cuda/common); the
# multi-GPU block mode (cuda/multi) goes into make mpi's build only
CU_SRCS := $(wildcard cuda/api/*.cu cuda/split/*.cu cuda/merged/*.cu)
GPU_HDRS := $(wildcard include/*.h include/*.def cuda/*/*.h cuda/*/*.cuh cuda/*/*.def)
# GPU_BACKEND picks the GPU backend of build/adiflow: cuda (the default when
# nvcc is found), none (CPU only: cuda/api/bridge_stub.c, nvcc is not run),
# hip (build/adiflow as with none, plus make hip's build/hip/adiflow).
GPU_BACKEND_GIVEN := $(filter-out undefined,$(origin GPU_BACKEND))
GPU_BACKEND ?= $(if $(NVCC),cuda,none)
ifneq ($(filter-out cuda hip none,$(GPU_BACKEND))$(word 2,$(GPU_BACKEND)),)
$(error GPU_BACKEND=$(GPU_BACKEND): use cuda, hip or none)
endif
ifeq ($(GPU_BACKEND)$(NVCC),cuda)
$(error GPU_BACKEND=cuda but nvcc was not found: set NVCC=/path/to/nvcc, or GPU_BACKEND=none)
endif
# nvcc without a GPU (a build or CI machine): the CUDA objects take minutes on
# a few cores, so say once (top-level make only) how to skip them. No GPU is
# read as no /dev/nvidiaN device node: a cheap test, nothing is run.
ifeq ($(GPU_BACKEND_GIVEN)$(MAKELEVEL)$(GPU_BACKEND),0cuda)
ifeq ($(wildcard /dev/nvidia[0-9]*),)
ifneq ($(filter-out clean hip hip-clean gpu-test gpu-vendor-check,$(or $(MAKECMDGOALS),all)),)
$(info make: nvcc found but no NVIDIA GPU here: the CUDA backend is built anyway (minutes on 2 cores); make GPU_BACKEND=none skips it)
endif
endif
endif
ifneq ($(and $(filter cuda,$(GPU_BACKEND)),$(NVCC),$(CU_SRCS)),)
GPU_OBJS := $(patsubst cuda/%.cu,$(OBJ)/cuda/%.o,$(CU_SRCS))
GPU_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread -lstdc++
else
GPU_OBJS := $(OBJ)/bridge_stub.o
GPU_LIBS :=
endif

# build/adiflow links libgfortran, libquadmath, libgomp and libstdc++
# statically where their archives exist, so it runs on a GPU machine with no
# compiler runtimes installed (ldd: libc, libm, libgcc_s). STATIC_RUNTIME=0
# links them the usual, shared way.
STATIC_RUNTIME ?= 1
static_archive = $(filter /%,$(shell $(FC) -print-file-name=$(1) 2>/dev/null))
ifeq ($(STATIC_RUNTIME),1)
LIBGOMP_A     := $(call static_archive,libgomp.a)
LIBGFORTRAN_A := $(call static_archive,libgfortran.a)
LIBQUADMATH_A := $(call static_archive,libquadmath.a)
LIBSTDCXX_A   := $(call static_archive,libstdc++.a)
endif
LINK_FLAGS := $(if $(LIBGOMP_A),$(filter-out -fopenmp,$(FFLAGS_USE)),$(FFLAGS_USE)) \
              $(if $(and $(LIBGFORTRAN_A),$(LIBQUADMATH_A)),-static-libgfortran)
LINK_LIBS  := $(if $(LIBSTDCXX_A),$(patsubst -lstdc++,$(LIBSTDCXX_A),$(GPU_LIBS)),$(GPU_LIBS)) \
              $(if $(LIBGOMP_A),$(LIBGOMP_A) -lpthread) \
              $(if $(and $(LIBGFORTRAN_A),$(LIBQUADMATH_A)),$(LIBGFORTRAN_A) $(LIBQUADMATH_A))

# The CUDA objects remember the mode they were built in (STRICT=1 or not):
# switching it in the same build folder recompiles them, and $(BUILD)/STRICT
# marks a strict build for validation/gpu_test.sh.
CUDA_MODE := $(if $(filter 1,$(STRICT)),strict,fast)

TOOLS := $(BUILD)/compare_fields $(BUILD)/ghia_compare $(BUILD)/gridstudy $(BUILD)/cube_compare
TESTS := $(BUILD)/test_roe_flux $(BUILD)/test_conservation $(BUILD)/test_freestream \
         $(BUILD)/test_adi_sweep $(BUILD)/test_math_c_vs_fortran $(BUILD)/test_stages_c_vs_fortran \
         $(BUILD)/test_merged_c_vs_fortran $(BUILD)/test_block_sweep $(BUILD)/test_mass_constraint \
         $(BUILD)/test_params_layout $(BUILD)/test_multigrid_c_vs_fortran $(BUILD)/test_implicit_precision \
         $(BUILD)/test_convergence_rate \
         $(BUILD)/dump_fixtures
# device copy bandwidth (bench/copy_bw.cu), and two grids of different sizes
# in one process (tests/gpu_two_grids.c: run it on a GPU machine), with the
# CUDA backend only
# the merged family's tuning tables go beside the executable, where it looks
# for them (tune/sm_XY.txt; never in the source tree)
TUNE_TABLES := $(patsubst cuda/tune/%,$(BUILD)/tune/%,$(wildcard cuda/tune/*.txt))
ifneq ($(GPU_LIBS),)
TOOLS += $(BUILD)/copy_bw $(BUILD)/gpu_two_grids $(TUNE_TABLES)
endif
$(BUILD)/tune/%.txt: cuda/tune/%.txt
	@mkdir -p $(dir $@)
	cp $< $@

.PHONY: all deps run test validate gpu-test clean hip bench
all: deps $(BUILD)/adiflow $(TOOLS) $(if $(filter hip,$(GPU_BACKEND)),hip)

# base packages only (gfortran, gcc, make, gnuplot-nox): make and make run need
# no MPI; make mpi and make test (its MPI suite) install OpenMPI themselves
deps:
	@bash scripts/install_deps.sh base

$(OBJ):
	@mkdir -p $(OBJ)

$(OBJ)/%.o: fortran/%.f90 | $(OBJ)
	$(FC) $(FFLAGS_USE) -J$(OBJ) -c $< -o $@

$(OBJ)/%.o: fortran/%.c include/field_format.h fortran/safe_file.h | $(OBJ)
	$(CC) $(CFLAGS) -Ifortran -c $< -o $@

$(OBJ)/bridge_stub.o: cuda/api/bridge_stub.c include/adiflow_bridge.h | $(OBJ)
	$(CC) $(CFLAGS) -c $< -o $@

$(OBJ)/.cuda-$(CUDA_MODE): | $(OBJ)
	@rm -f $(OBJ)/.cuda-strict $(OBJ)/.cuda-fast
	@if [ "$(CUDA_MODE)" = strict ]; then echo "nvcc $(NVFLAGS)" > $(BUILD)/STRICT; else rm -f $(BUILD)/STRICT; fi
	@touch $@

# objects mirror the source tree (build/obj/cuda/split/adi_kernels.o, ...)
$(OBJ)/cuda/%.o: cuda/%.cu $(GPU_HDRS) $(OBJ)/.cuda-$(CUDA_MODE) | $(OBJ)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -c $< -o $@

# Fortran modules must be compiled in dependency order.
$(OBJ)/grid_layout.o: $(OBJ)/kinds.o
$(OBJ)/omp_policy.o: $(OBJ)/grid_layout.o
$(OBJ)/boundary_conditions.o $(OBJ)/convective_flux.o $(OBJ)/lu_adi.o $(OBJ)/mass_constraint.o $(OBJ)/metrics.o \
  $(OBJ)/multigrid_transfer.o $(OBJ)/primitives.o $(OBJ)/residual_norms.o $(OBJ)/solver_cpu.o $(OBJ)/time_step.o \
  $(OBJ)/viscous_flux.o: $(OBJ)/omp_policy.o
$(OBJ)/case_config.o: $(OBJ)/kinds.o $(OBJ)/solver_params.o $(OBJ)/gpu_settings.o $(OBJ)/sys_interface.o \
  $(wildcard fortran/case_keys/*) include/adiflow_gpu_settings.def
$(OBJ)/solver_params.o: include/adiflow_params.def
$(OBJ)/gpu_settings.o: include/adiflow_gpu_settings.def
$(OBJ)/gpu_bridge.o: include/adiflow_kernel_families.def
$(OBJ)/output_file.o: $(OBJ)/sys_interface.o $(OBJ)/case_config.o
$(OBJ)/flow_math.o $(OBJ)/flow_math_sp.o: $(OBJ)/kinds.o $(OBJ)/solver_params.o
$(OBJ)/grid_generation.o: $(OBJ)/case_config.o
$(OBJ)/metrics.o: $(OBJ)/grid_layout.o
$(OBJ)/boundary_conditions.o $(OBJ)/primitives.o $(OBJ)/time_step.o $(OBJ)/convective_flux.o: \
  $(OBJ)/flow_math.o $(OBJ)/grid_layout.o
$(OBJ)/viscous_flux.o $(OBJ)/lu_adi.o: $(OBJ)/convective_flux.o
$(OBJ)/lu_adi.o: $(OBJ)/flow_math_sp.o
$(OBJ)/flow_fields.o $(OBJ)/residual_norms.o $(OBJ)/mass_constraint.o: $(OBJ)/grid_layout.o
$(OBJ)/solver_cpu.o: $(OBJ)/flow_fields.o $(OBJ)/boundary_conditions.o $(OBJ)/primitives.o \
  $(OBJ)/time_step.o $(OBJ)/viscous_flux.o $(OBJ)/lu_adi.o $(OBJ)/mass_constraint.o
$(OBJ)/multigrid_config.o: $(OBJ)/case_config.o fortran/case_keys/multigrid.def
$(OBJ)/parallel_config.o: $(OBJ)/case_config.o fortran/case_keys/parallel.def
$(OBJ)/multigrid_levels.o: $(OBJ)/flow_fields.o $(OBJ)/grid_generation.o $(OBJ)/metrics.o
$(OBJ)/multigrid_transfer.o: $(OBJ)/grid_layout.o
$(OBJ)/multigrid_cycle.o: $(OBJ)/multigrid_config.o
$(OBJ)/multigrid_cpu.o: $(OBJ)/solver_cpu.o $(OBJ)/multigrid_levels.o $(OBJ)/multigrid_transfer.o
$(OBJ)/field_io.o: $(OBJ)/sys_interface.o $(OBJ)/case_config.o $(OBJ)/grid_layout.o
$(OBJ)/output_vtk.o $(OBJ)/output_tecplot.o $(OBJ)/output_profiles.o $(OBJ)/residual_monitor.o: \
  $(OBJ)/case_config.o $(OBJ)/grid_layout.o $(OBJ)/output_file.o
$(OBJ)/output_fields.o: $(OBJ)/flow_math.o $(OBJ)/grid_layout.o $(OBJ)/omp_policy.o
$(OBJ)/output_vtk.o $(OBJ)/output_tecplot.o: $(OBJ)/output_fields.o
$(OBJ)/gpu_bridge.o: $(OBJ)/solver_params.o $(OBJ)/gpu_settings.o $(OBJ)/sys_interface.o
$(OBJ)/convergence_rate.o: $(OBJ)/case_config.o
$(OBJ)/driver_loop.o: $(OBJ)/case_config.o $(OBJ)/residual_monitor.o $(OBJ)/convergence_rate.o
$(OBJ)/adiflow.o: $(F_OBJS)

# the backend's stamp: switching GPU_BACKEND relinks even when the other
# backend's objects are older than the executable
$(OBJ)/.backend-$(if $(GPU_LIBS),gpu,none): | $(OBJ)
	@rm -f $(OBJ)/.backend-gpu $(OBJ)/.backend-none
	@touch $@
$(BUILD)/adiflow: $(OBJ)/adiflow.o $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(OBJ)/.backend-$(if $(GPU_LIBS),gpu,none)
	$(FC) $(LINK_FLAGS) $(filter-out $(OBJ)/.backend-%,$^) $(LINK_LIBS) -o $@

# MPI build over a j/k block decomposition (make mpi): build/adiflow_mpi,
# OpenMPI's mpif90 over the same objects. With nvcc and NCCL it carries the
# multi-GPU block mode too (one rank per GPU, NCCL halos:
# cuda/multi/block_nccl.cu); otherwise stubs say "no device" and the CPU
# backend runs. libgfortran stays shared here: OpenMPI's Fortran bindings
# link it shared anyway, and two copies of its runtime in one process would
# each keep their own I/O units.
MPIFC ?= mpif90
MPI_F_OBJS := $(F_OBJS) $(OBJ)/gpu_block_bridge.o
ifneq ($(GPU_LIBS),)
ADI_NCCL_LIB ?= $(firstword $(foreach d,$(CUDA_HOME)/lib64 $(CUDA_HOME)/lib /usr/lib/x86_64-linux-gnu,$(if $(wildcard $(d)/libnccl.so),$(d))))
ADI_NCCL_INC ?= $(firstword $(foreach d,$(CUDA_HOME)/include /usr/include,$(if $(wildcard $(d)/nccl.h),$(d))))
endif
ifneq ($(and $(GPU_LIBS),$(ADI_NCCL_LIB),$(ADI_NCCL_INC)),)
MPI_GPU_OBJS := $(GPU_OBJS) $(OBJ)/cuda/multi/block_nccl.o
MPI_GPU_LIBS := $(if $(LIBSTDCXX_A),$(patsubst -lstdc++,$(LIBSTDCXX_A),$(GPU_LIBS)),$(GPU_LIBS)) \
                -L$(ADI_NCCL_LIB) -Wl,-rpath,$(ADI_NCCL_LIB) -lnccl
else
MPI_GPU_OBJS := $(GPU_OBJS) $(OBJ)/block_stub.o
MPI_GPU_LIBS := $(GPU_LIBS)
endif
MPI_LINK_FLAGS := $(if $(LIBGOMP_A),$(filter-out -fopenmp,$(FFLAGS_USE)),$(FFLAGS_USE))
MPI_LINK_LIBS := $(MPI_GPU_LIBS) $(if $(LIBGOMP_A),$(LIBGOMP_A) -lpthread)
$(OBJ)/gpu_block_bridge.o: $(OBJ)/solver_params.o $(OBJ)/gpu_settings.o $(OBJ)/sys_interface.o
$(OBJ)/cuda/multi/block_nccl.o: cuda/multi/block_nccl.cu $(GPU_HDRS) $(OBJ)/.cuda-$(CUDA_MODE) | $(OBJ)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -I$(ADI_NCCL_INC) -c $< -o $@
$(OBJ)/block_stub.o: cuda/multi/block_stub.c include/adiflow_block.h | $(OBJ)
	$(CC) $(CFLAGS) -c $< -o $@
$(OBJ)/mpi/mpi_decomp.o: fortran/mpi_decomp.f90 $(F_OBJS) | $(OBJ)
	@mkdir -p $(OBJ)/mpi
	$(MPIFC) $(FFLAGS_USE) -I$(OBJ) -J$(OBJ)/mpi -c $< -o $@
$(OBJ)/mpi/mpi_settings.o: fortran/mpi_settings.f90 $(OBJ)/mpi/mpi_decomp.o
	$(MPIFC) $(FFLAGS_USE) -I$(OBJ) -J$(OBJ)/mpi -c $< -o $@
$(OBJ)/mpi/adiflow_mpi.o: fortran/adiflow_mpi.f90 $(OBJ)/mpi/mpi_decomp.o $(OBJ)/mpi/mpi_settings.o $(OBJ)/gpu_block_bridge.o
	$(MPIFC) $(FFLAGS_USE) -I$(OBJ) -J$(OBJ)/mpi -c $< -o $@
$(BUILD)/adiflow_mpi: $(OBJ)/mpi/adiflow_mpi.o $(OBJ)/mpi/mpi_decomp.o $(OBJ)/mpi/mpi_settings.o $(MPI_F_OBJS) $(C_OBJS) $(MPI_GPU_OBJS)
	$(MPIFC) $(MPI_LINK_FLAGS) $^ $(MPI_LINK_LIBS) -o $@
.PHONY: mpi mpi-test
mpi:
	@bash scripts/install_deps.sh base
	@bash scripts/install_deps.sh mpi
	@$(MAKE) --no-print-directory $(BUILD)/adiflow_mpi $(BUILD)/adiflow $(BUILD)/compare_fields
mpi-test: mpi
	@bash tests/run_mpi_tests.sh

# tools (C)
$(BUILD)/compare_fields: validation/compare_fields.c fortran/field_file.c fortran/safe_file.c \
  include/field_format.h fortran/safe_file.h | $(OBJ)
	$(CC) $(CFLAGS) -Ifortran validation/compare_fields.c fortran/field_file.c fortran/safe_file.c -lm -o $@
# fixtures of compare_fields' tolerance tests (tests/run_tests.sh)
$(BUILD)/dump_fixtures: tests/dump_fixtures.c fortran/field_file.c fortran/safe_file.c include/field_format.h \
  fortran/safe_file.h | $(OBJ)
	$(CC) $(CFLAGS) -Ifortran tests/dump_fixtures.c fortran/field_file.c fortran/safe_file.c -lm -o $@
$(BUILD)/ghia_compare: validation/ghia_compare.c validation/profile_io.h | $(OBJ)
	$(CC) $(CFLAGS) $< -lm -o $@
# the cube's centrelines and extrema against Albensoeder & Kuhlmann (2005)
$(BUILD)/cube_compare: validation/cube_compare.c validation/profile_io.h | $(OBJ)
	$(CC) $(CFLAGS) $< -lm -o $@
# grid-convergence analysis (observed order, Richardson, GCI) of centreline profiles
$(BUILD)/gridstudy: validation/gridstudy.c validation/profile_io.h | $(OBJ)
	$(CC) $(CFLAGS) $< -lm -o $@

# unit tests (Fortran programs over the solver modules)
$(BUILD)/test_%: tests/test_%.f90 $(F_OBJS) $(C_OBJS) $(GPU_OBJS) tests/test_util.f90 tests/case_setup.f90
	@mkdir -p $(BUILD)/testmod/$*
	$(FC) $(FFLAGS_USE) -J$(BUILD)/testmod/$* -I$(OBJ) tests/test_util.f90 tests/case_setup.f90 $< $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(GPU_LIBS) -o $@
$(BUILD)/test_math_c_vs_fortran: tests/test_math_c_vs_fortran.f90 tests/math_c_shim.c cuda/common/adiflow_math.h $(F_OBJS) $(C_OBJS) tests/test_util.f90
	$(CC) $(CFLAGS) -Icuda/common -c tests/math_c_shim.c -o $(OBJ)/math_c_shim.o
	$(FC) $(FFLAGS_USE) -J$(OBJ) -I$(OBJ) tests/test_util.f90 $< $(OBJ)/math_c_shim.o $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(GPU_LIBS) -o $@
$(BUILD)/test_multigrid_c_vs_fortran: tests/test_multigrid_c_vs_fortran.f90 tests/multigrid_c_shim.c \
  cuda/common/adiflow_multigrid.h cuda/common/adiflow_stages.h $(F_OBJS) $(C_OBJS) tests/test_util.f90
	@mkdir -p $(BUILD)/testmod/multigrid
	$(CC) $(CFLAGS) -Icuda/common -c tests/multigrid_c_shim.c -o $(OBJ)/multigrid_c_shim.o
	$(FC) $(FFLAGS_USE) -J$(BUILD)/testmod/multigrid -I$(OBJ) tests/test_util.f90 $< $(OBJ)/multigrid_c_shim.o \
	  $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(GPU_LIBS) -o $@
# the bind(c) parameter struct: same size and offsets in Fortran and C
$(BUILD)/test_params_layout: tests/test_params_layout.f90 tests/params_layout_shim.c include/adiflow_params.h \
  include/adiflow_gpu_settings.h include/adiflow_params.def include/adiflow_gpu_settings.def $(OBJ)/solver_params.o $(OBJ)/gpu_settings.o tests/test_util.f90 | $(OBJ)
	@mkdir -p $(BUILD)/testmod/params_layout
	$(CC) $(CFLAGS) -c tests/params_layout_shim.c -o $(OBJ)/params_layout_shim.o
	$(FC) $(FFLAGS_USE) -J$(BUILD)/testmod/params_layout -I$(OBJ) tests/test_util.f90 $< $(OBJ)/params_layout_shim.o \
	  $(OBJ)/solver_params.o $(OBJ)/gpu_settings.o -o $@
# the multi-GPU exact mode's split sweeps against whole-line sweeps (C only)
$(BUILD)/test_block_sweep: tests/test_block_sweep.c cuda/common/adiflow_stages.h cuda/common/adiflow_math.h \
  include/adiflow_bridge.h | $(OBJ)
	$(CC) $(CFLAGS) -Icuda/common $< -lm -o $@
# the GPU launch sequence over the shared stage bodies, emulated on the CPU
$(BUILD)/test_stages_c_vs_fortran: tests/test_stages_c_vs_fortran.f90 tests/stages_host_emul.c \
  cuda/common/adiflow_stages.h cuda/common/adiflow_math.h $(F_OBJS) $(C_OBJS) $(GPU_OBJS) tests/test_util.f90 tests/case_setup.f90
	@mkdir -p $(BUILD)/testmod/stages_c_vs_fortran
	$(CC) $(CFLAGS) -Icuda/common -c tests/stages_host_emul.c -o $(OBJ)/stages_host_emul.o
	$(FC) $(FFLAGS_USE) -J$(BUILD)/testmod/stages_c_vs_fortran -I$(OBJ) tests/test_util.f90 tests/case_setup.f90 $< \
	  $(OBJ)/stages_host_emul.o $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(GPU_LIBS) -o $@

# the merged kernel family's launch sequence, emulated on the CPU
$(BUILD)/test_merged_c_vs_fortran: tests/test_merged_c_vs_fortran.f90 tests/merged_host_emul.c \
  cuda/common/adiflow_merged.h cuda/common/adiflow_merged_steps.def cuda/common/adiflow_stages.h cuda/common/adiflow_math.h $(F_OBJS) $(C_OBJS) $(GPU_OBJS) \
  tests/test_util.f90 tests/case_setup.f90
	@mkdir -p $(BUILD)/testmod/merged_c_vs_fortran
	$(CC) $(CFLAGS) -Icuda/common -c tests/merged_host_emul.c -o $(OBJ)/merged_host_emul.o
	$(FC) $(FFLAGS_USE) -J$(BUILD)/testmod/merged_c_vs_fortran -I$(OBJ) tests/test_util.f90 tests/case_setup.f90 $< \
	  $(OBJ)/merged_host_emul.o $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(GPU_LIBS) -o $@
# device-to-device copy bandwidth, the reference of bench/device_merged.sh
$(BUILD)/copy_bw: bench/copy_bw.cu | $(OBJ)
	$(NVCC) $(NVFLAGS) $< -o $@
# two grids in one process through the bridge's handles (C, over the CUDA objects)
$(BUILD)/gpu_two_grids: tests/gpu_two_grids.c include/adiflow_bridge.h include/adiflow_params.h $(GPU_OBJS) | $(OBJ)
	$(CC) $(CFLAGS) $< $(GPU_OBJS) $(if $(LIBSTDCXX_A),$(patsubst -lstdc++,$(LIBSTDCXX_A),$(GPU_LIBS)),$(GPU_LIBS)) -lm -o $@

# then its centrelines against Ghia's Re = 100 tables: the largest differences
# and runs/cavity_default/ghia_re100.png (a second at most)
run: all
	./$(BUILD)/adiflow cases/cavity_default.nml
	@BUILD=$(BUILD) bash validation/ghia_run.sh runs/cavity_default 100

test: all $(TESTS)
	@bash scripts/install_deps.sh test
	@bash tests/run_all.sh

validate: all
	@BUILD=$(BUILD) bash validation/run_ghia.sh

# the Re = 1000 cube against Albensoeder & Kuhlmann (2005) (validation/run_cube.sh):
# 64^3 on a GPU, a 32^3 smoke check on a CPU; CUBE_ARGS="--grid 64" etc.
.PHONY: validate-cube
validate-cube: all
	@BUILD=$(BUILD) bash validation/run_cube.sh $(CUBE_ARGS)

# grid-convergence study (validation/gridstudy.sh): GRIDSTUDY_ARGS picks the
# case, e.g. "--geometry quasi2d --grids 16,32,64,128 --mg-levels 5" on a CPU;
# the default is the cube at Re 100/400/1000 on 32^3/64^3/128^3 (GPU work)
.PHONY: gridstudy
gridstudy: all
	@BUILD=$(BUILD) bash validation/gridstudy.sh $(GRIDSTUDY_ARGS)

gpu-test:
	@BUILD=$(BUILD) bash validation/gpu_test.sh

clean:
	rm -rf $(BUILD)

-include modules/wave/wave.mk
-include modules/stencil3d/stencil3d.mk
-include modules/ooc/ooc.mk
-include modules/foam/foam.mk
-include hip/hip.mk
