# adiflow — top-level build.
#   make            build build/adiflow (CUDA backend too when nvcc is found)
#   make run        run the default cavity case (GPU if present, else CPU)
#   make test       CPU test suite (what CI runs)
#   make validate   Ghia et al. (1982) comparisons -> validation/RESULTS.md
#   make validate-cube  the Re=1000 cube against Albensoeder & Kuhlmann (2005) -> validation/CUBE.md
#   make gpu-test   on a GPU machine: CPU vs GPU comparisons (builds nothing)
#   make mpi        build/adiflow_mpi: the solver over an MPI block decomposition
#   make hip        HIP build of the same CUDA sources (AMD / DCU)
#   make bench      what bench/ holds and how its measurements are run
#   make clean
# Variables (give them on make's command line):
#   GPU_BACKEND=cuda|hip|none  the GPU backend of build/adiflow: cuda (the
#            default when nvcc is found), none (the default without nvcc: CPU
#            only, nvcc is not run), hip (as none, plus make hip's build/hip/adiflow)
#   STRICT=1 no FMA contraction anywhere: bit-identical backends
#   BENCH_VARIANTS=1 the merged family's technique switches and the kernels only they
#            reach: measurements only (bench/README.md)
#   DEBUG=1  Fortran with warnings and bounds checks (FFLAGS_DEBUG instead of FFLAGS_RELEASE)
#   FFLAGS=... replaces FFLAGS_RELEASE / FFLAGS_DEBUG (e.g. FFLAGS="-O3 -march=native");
#            the flags the sources need (FFLAGS_REQUIRED: OpenMP, no FMA
#            contraction, f2018, long lines) are always kept in front.
#            CFLAGS=... likewise, before CFLAGS_REQUIRED. The environment's
#            FFLAGS and CFLAGS are not read (a distribution's or a package
#            manager's would change the bits the tests compare).
#   FC=gfortran, CC=gcc (defaults; a user's FC or CC is kept), NVCC=..., CUDA_ARCH=sm_90,
#   HIP_ARCH=... (hip/hip.mk), MPIFC=mpif90,
#   BUILD=build (make BUILD=build/strict STRICT=1 keeps a second build),
#   STATIC_RUNTIME=1 (link the compiler runtimes statically, see below)
# Packages: make, make mpi, make test and make hip check for the commands they
# need and run scripts/install_deps.sh only when one is missing.

SHELL := /bin/bash
# make's built-in defaults (f77, cc) give way to gfortran and gcc; a FC or CC
# from the command line or the environment is kept
ifeq ($(origin FC),default)
FC := gfortran
endif
ifeq ($(origin CC),default)
CC := gcc
endif
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
# one the strict GPU build reproduces bit for bit. FFLAGS_REQUIRED holds that
# rule and what the sources need to compile; FFLAGS adds the rest: the release
# set, the debug set with DEBUG=1, or a FFLAGS given on the command line.
# The Fortran sources are preprocessed (-cpp): the case-key lists
# (fortran/case_keys/) and the rows the C headers are made from (include/*.def,
# cuda/common/*.def) expand into Fortran there
# -Werror=trampolines: a pointer to an internal procedure is a trampoline
# on the stack, and the linker then marks the program's stack executable
FFLAGS_REQUIRED := -fopenmp -ffp-contract=off -std=f2018 -ffree-line-length-none -cpp -Iinclude -Ifortran -Icuda/common \
                   -Werror=trampolines
FFLAGS_RELEASE  := -O2 -g -fno-backtrace -ffpe-summary=none
FFLAGS_DEBUG    := $(FFLAGS_RELEASE) -fno-fast-math -Wall -Wno-maybe-uninitialized -Wno-compare-reals \
                   -Wno-unused-dummy-argument -fcheck=bounds
# The host code that reads input and writes files (C) is built with stack
# canaries and glibc's checked string and memory calls; every executable is
# linked with a read-only relocation table bound at start (RELRO + BIND_NOW),
# as Debian builds its own packages. The -Wl flags are passed at link only.
HARDEN_LINK     := -Wl,-z,relro,-z,now
CFLAGS_REQUIRED := -std=c11 -ffp-contract=off -Iinclude -fstack-protector-strong $(HARDEN_LINK)
CFLAGS_DEFAULT  := -O2 -g -Wall -Wextra -D_FORTIFY_SOURCE=2
ifneq ($(origin FFLAGS),command line)
FFLAGS := $(if $(filter 1,$(DEBUG)),$(FFLAGS_DEBUG),$(FFLAGS_RELEASE))
endif
ifneq ($(origin CFLAGS),command line)
CFLAGS := $(CFLAGS_DEFAULT)
endif
# the flags every compile uses (a sub-make gets the command line's own
# FFLAGS/CFLAGS again, not these)
override FFLAGS := $(FFLAGS_REQUIRED) $(FFLAGS)
override CFLAGS := $(CFLAGS_REQUIRED) $(CFLAGS)
NVFLAGS := -O3 -std=c++17 -Iinclude -Icuda/common -gencode arch=$(CUDA_PTX),code=$(CUDA_ARCH) \
           -gencode arch=$(CUDA_PTX),code=$(CUDA_PTX) -Xcompiler -Wall
ifeq ($(STRICT),1)
NVFLAGS += --fmad=false -DADIFLOW_STRICT
endif
ifeq ($(BENCH_VARIANTS),1)
NVFLAGS += -DADIFLOW_BENCH_VARIANTS
endif

# The Fortran modules of the solver: every fortran/*.f90 but the programs and
# the MPI build's own files. A new module needs no line here, nor a
# dependency line: scripts/fortran_deps.sh reads the compile order from the
# sources' use statements (F_DEPS below).
# F_MPI use MPI: $(MPIFC) compiles them into $(OBJ)/mpi. They and the
# multi-GPU block bridge (F_BLOCK) go into build/adiflow_mpi only.
F_ALL     := $(basename $(notdir $(wildcard fortran/*.f90)))
F_PROGRAM := adiflow grid_check
F_MPI     := mpi_decomp mpi_settings mpi_input_errors level_blocks multigrid_gather multigrid_whole backend_mpi_block backend_mpi_gpu run_files_mpi block_ranks_mpi \
             run_files_blocks_mpi backend_blocks_ranks_gpu adiflow_mpi
F_BLOCK   := gpu_block_bridge
F_MODULES := $(filter-out $(F_PROGRAM) $(F_MPI) $(F_BLOCK),$(F_ALL))
f_obj = $(if $(filter $(1),$(F_MPI)),$(OBJ)/mpi/$(1).o,$(OBJ)/$(1).o)
F_OBJS := $(addprefix $(OBJ)/,$(addsuffix .o,$(F_MODULES)))
# the host library every program shares (modules/common/host/host.mk): input files opened
# safely, the file-kind words, the host memory
include modules/common/host/host.mk
HOST_LIB := $(OBJ)/libadihost.a
# the C side of the drivers: system services, the dump reader/writer, the
# safe commit of output files, the case file's text check; the host library
C_OBJS := $(OBJ)/sys_support.o $(OBJ)/run_folder.o $(OBJ)/history_file.o $(OBJ)/field_file.o $(OBJ)/crc64.o $(OBJ)/dump_job.o $(OBJ)/safe_file.o $(OBJ)/case_scan.o $(OBJ)/grid_layout_c.o \
          $(OBJ)/plot3d_file.o $(OBJ)/plot3d_write.o $(OBJ)/block_interfaces.o $(OBJ)/cgns_zone.o $(OBJ)/cgns_write.o \
          $(OBJ)/cgns_lib.o $(HOST_LIB)

# the GPU backend: the bridge API (cuda/api), the two kernel families
# (cuda/split, cuda/merged), what they share (cuda/common: the stage
# bodies, the runtime services, the shared kernels); the multi-GPU block
# mode (cuda/multi) goes into make mpi's build only
CU_SRCS := $(wildcard cuda/common/*.cu cuda/api/*.cu cuda/split/*.cu cuda/merged/*.cu)
GPU_HDRS := $(wildcard include/*.h include/*.def cuda/*/*.h cuda/*/*.cuh cuda/*/*.def)
# what the host tests compile of it: the stage bodies and the split family's stage list
STAGE_HDRS := $(wildcard include/*.h include/*.def cuda/common/*.h cuda/common/*.def cuda/split/*.h)
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
ifneq ($(filter-out clean hip hip-clean gpu-test gpu-vendor-check bench,$(or $(MAKECMDGOALS),all)),)
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
LINK_FLAGS := $(if $(LIBGOMP_A),$(filter-out -fopenmp,$(FFLAGS)),$(FFLAGS)) $(HARDEN_LINK) \
              $(if $(and $(LIBGFORTRAN_A),$(LIBQUADMATH_A)),-static-libgfortran)
LINK_LIBS  := $(if $(LIBSTDCXX_A),$(patsubst -lstdc++,$(LIBSTDCXX_A),$(GPU_LIBS)),$(GPU_LIBS)) \
              $(if $(LIBGOMP_A),$(LIBGOMP_A) -lpthread) \
              $(if $(and $(LIBGFORTRAN_A),$(LIBQUADMATH_A)),$(LIBGFORTRAN_A) $(LIBQUADMATH_A))

# The CUDA objects remember the mode they were built in (STRICT=1 or not,
# BENCH_VARIANTS=1 or not): switching it in the same build folder
# recompiles them; $(BUILD)/STRICT marks a strict build for
# validation/gpu_test.sh, $(BUILD)/BENCH_VARIANTS a bench build for bench/.
CUDA_MODE := $(if $(filter 1,$(STRICT)),strict,fast)$(if $(filter 1,$(BENCH_VARIANTS)),-bench)

TOOLS := $(BUILD)/compare_fields $(BUILD)/ghia_compare $(BUILD)/gridstudy $(BUILD)/cube_compare \
         $(BUILD)/make_grid $(BUILD)/grid_check $(BUILD)/open_flow_compare
TESTS := $(BUILD)/test_roe_flux $(BUILD)/test_conservation $(BUILD)/test_freestream \
         $(BUILD)/test_adi_sweep $(BUILD)/test_math_c_vs_fortran $(BUILD)/test_stages_c_vs_fortran \
         $(BUILD)/test_merged_c_vs_fortran $(BUILD)/test_block_sweep $(BUILD)/test_block_chunks $(BUILD)/test_mass_constraint \
         $(BUILD)/test_params_layout $(BUILD)/test_multigrid_c_vs_fortran $(BUILD)/test_implicit_precision \
         $(BUILD)/test_convergence_rate $(BUILD)/test_plot3d $(BUILD)/test_boundary_states \
         $(BUILD)/test_boundary_patches $(BUILD)/test_wall_loads $(BUILD)/test_patch_fill_c_vs_fortran \
         $(BUILD)/dump_fixtures $(BUILD)/test_block_interfaces $(BUILD)/cgns_fixture $(BUILD)/test_block_halos $(BUILD)/test_block_residual $(BUILD)/test_block_set \
         $(BUILD)/test_block_split $(BUILD)/test_safe_file $(BUILD)/test_crc64 \
         $(BUILD)/test_precond_c_vs_fortran
# device copy bandwidth (bench/copy_bw.cu), and two grids of different sizes
# in one process (tests/gpu/gpu_two_grids.c: run it on a GPU machine), with the
# CUDA backend only
# the merged family's tuning tables go beside the executable, where it looks
# for them (tune/sm_XY.txt; never in the source tree)
TUNE_TABLES := $(patsubst cuda/tune/%,$(BUILD)/tune/%,$(wildcard cuda/tune/*.txt))
ifneq ($(GPU_LIBS),)
TOOLS += $(BUILD)/copy_bw $(BUILD)/pipe_sweep $(BUILD)/gpu_two_grids $(TUNE_TABLES)
endif
$(BUILD)/tune/%.txt: cuda/tune/%.txt
	@mkdir -p $(dir $@)
	cp $< $@

.PHONY: all deps run test validate gpu-test clean hip bench
all: deps $(BUILD)/adiflow $(TOOLS) cases/grids/.made $(if $(filter hip,$(GPU_BACKEND)),hip)

# Packages: a target checks the commands (make test: and the Python modules)
# it needs, and runs scripts/install_deps.sh only when one is missing; make
# names what is missing, the installer what it installs. make and make run
# need no MPI; make mpi and make test (its MPI suite) check for OpenMPI.
DEPS_BASE := $(firstword $(FC)) $(firstword $(CC)) gnuplot
DEPS_MPI   = $(firstword $(MPIFC)) mpirun
missing_cmds = $(strip $(foreach c,$(1),$(if $(shell command -v $(c) 2>/dev/null),,$(c))))
missing_py_vtk = $(if $(shell for py in python3 /usr/bin/python3; do $$py -c 'import vtkmodules.vtkIOXML, numpy' 2>/dev/null && { echo ok; break; }; done),,python3-vtk9)
# $(call install_if_missing,SET,WHAT IS MISSING): the recipe line of a check
install_if_missing = $(if $(strip $(2)),@echo "make: $(strip $(2)) not found: running scripts/install_deps.sh $(1)"; bash scripts/install_deps.sh $(1),@:)
# libcgns-dev (CGNS grids) is optional: a build without it says so when asked for a CGNS file
missing_cgns = $(if $(wildcard /usr/include/cgnslib.h),,libcgns-dev)
deps:
	$(call install_if_missing,base,$(call missing_cmds,$(DEPS_BASE)) $(missing_cgns))

# every compile comes after the package check (also in a parallel make)
$(OBJ): | deps
	@mkdir -p $(OBJ)

# the Fortran compile order, generated from the sources (scripts/fortran_deps.sh);
# not for goals that compile no Fortran here
F_DEPS := $(OBJ)/fortran.d
$(F_DEPS): scripts/fortran_deps.sh $(wildcard fortran/*.f90) | $(OBJ)
	@bash scripts/fortran_deps.sh $(foreach f,$(F_ALL),$(call f_obj,$(f)) fortran/$(f).f90) > $@.tmp && mv $@.tmp $@
ifneq ($(filter-out %clean bench gpu-test gpu-vendor-check hip hip-build,$(or $(MAKECMDGOALS),all)),)
include $(F_DEPS)
endif

$(OBJ)/%.o: fortran/%.f90 | $(OBJ)
	$(FC) $(FFLAGS) -J$(OBJ) -c $< -o $@

$(OBJ)/%.o: fortran/%.c include/field_format.h fortran/safe_file.h $(HOST_HDRS) | $(OBJ)
	$(CC) $(CFLAGS) -Ifortran $(HOST_INC) -c $< -o $@

$(OBJ)/host/%.o: $(HOST_DIR)/%.c $(HOST_HDRS) | $(OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@
$(HOST_LIB): $(patsubst $(HOST_DIR)/%.c,$(OBJ)/host/%.o,$(HOST_SRCS))
	rm -f $@ && ar rcs $@ $^

$(OBJ)/bridge_stub.o: cuda/api/bridge_stub.c include/adiflow_bridge.h | $(OBJ)
	$(CC) $(CFLAGS) -c $< -o $@

$(OBJ)/.cuda-$(CUDA_MODE): | $(OBJ)
	@rm -f $(OBJ)/.cuda-strict* $(OBJ)/.cuda-fast*
	@if [ "$(STRICT)" = 1 ]; then echo "nvcc $(NVFLAGS)" > $(BUILD)/STRICT; else rm -f $(BUILD)/STRICT; fi
	@if [ "$(BENCH_VARIANTS)" = 1 ]; then echo "nvcc $(NVFLAGS)" > $(BUILD)/BENCH_VARIANTS; else rm -f $(BUILD)/BENCH_VARIANTS; fi
	@touch $@

# objects mirror the source tree (build/obj/cuda/split/adi_kernels.o, ...)
$(OBJ)/cuda/%.o: cuda/%.cu $(GPU_HDRS) $(OBJ)/.cuda-$(CUDA_MODE) | $(OBJ)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -c $< -o $@

$(OBJ)/plot3d_file.o: fortran/plot3d_file.h
$(OBJ)/plot3d_write.o: fortran/plot3d_write.h fortran/safe_file.h
$(OBJ)/block_interfaces.o: fortran/block_interfaces.h

# CGNS files (fortran/cgns_zone.c) through libcgns loaded at run time, not
# linked (fortran/cgns_lib.h says why): with cgnslib.h and libcgns.so here,
# the library's soname goes into the object; without them the same API says
# the build has no CGNS support. Found when the recipe runs (after deps may
# have installed libcgns-dev); a change recompiles (the .cgns-flags stamp).
CGNS_SO = $(realpath $(shell $(CC) -print-file-name=libcgns.so 2>/dev/null))
CGNS_FLAGS = $(if $(and $(CGNS_SO),$(shell echo '\#include <cgnslib.h>' | $(CC) -E -x c - >/dev/null 2>&1 && echo ok)),\
  -DADIFLOW_CGNS -DADIFLOW_CGNS_SONAME=\"$(or $(shell objdump -p $(CGNS_SO) 2>/dev/null | sed -n 's/^ *SONAME *//p'),libcgns.so)\")
.PHONY: FORCE
$(OBJ)/.cgns-flags: FORCE | $(OBJ)
	@f='$(CGNS_FLAGS)'; [ -f $@ ] && [ "$$(cat $@)" = "$$f" ] || echo "$$f" > $@
$(OBJ)/cgns_zone.o $(OBJ)/cgns_write.o $(OBJ)/cgns_lib.o: $(OBJ)/%.o: fortran/%.c fortran/cgns_zone.h fortran/cgns_write.h \
  fortran/cgns_lib.h fortran/safe_file.h $(HOST_HDRS) $(OBJ)/.cgns-flags | $(OBJ)
	$(CC) $(CFLAGS) $(CGNS_FLAGS) -Ifortran $(HOST_INC) -c $< -o $@

# the backend's stamp: switching GPU_BACKEND relinks even when the other
# backend's objects are older than the executable
$(OBJ)/.backend-$(if $(GPU_LIBS),gpu,none): | $(OBJ)
	@rm -f $(OBJ)/.backend-gpu $(OBJ)/.backend-none
	@touch $@
$(BUILD)/adiflow: $(OBJ)/adiflow.o $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(OBJ)/.backend-$(if $(GPU_LIBS),gpu,none)
	$(FC) $(LINK_FLAGS) $(filter-out $(OBJ)/.backend-%,$^) $(LINK_LIBS) -o $@

# MPI build over a j/k block decomposition (make mpi): build/adiflow_mpi,
# OpenMPI's mpif90 over the same objects. With a GPU backend it carries the
# multi-GPU block mode too (one rank per GPU; cuda/multi/block_driver.cu):
# halos over NCCL where make finds it (cuda/multi/transport_nccl.cu), and
# always over MPI through host memory (cuda/multi/transport_mpi.cu, the only
# one without NCCL; ADIFLOW_BLOCK_TRANSPORT=mpi picks it beside NCCL).
# Without a GPU backend, stubs say "no device" and the CPU backend runs.
# libgfortran stays shared here: OpenMPI's Fortran bindings link it shared
# anyway, and two copies of its runtime in one process would each keep
# their own I/O units.
MPIFC ?= mpif90
MPICC ?= mpicc
comma := ,
MPI_F_OBJS := $(F_OBJS) $(addprefix $(OBJ)/,$(addsuffix .o,$(F_BLOCK)))
ifneq ($(GPU_LIBS),)
ADI_NCCL_LIB ?= $(firstword $(foreach d,$(CUDA_HOME)/lib64 $(CUDA_HOME)/lib /usr/lib/x86_64-linux-gnu,$(if $(wildcard $(d)/libnccl.so),$(d))))
ADI_NCCL_INC ?= $(firstword $(foreach d,$(CUDA_HOME)/include /usr/include,$(if $(wildcard $(d)/nccl.h),$(d))))
endif
ADI_BLOCK_CCL := $(if $(and $(GPU_LIBS),$(ADI_NCCL_LIB),$(ADI_NCCL_INC)),1,0)
# mpi.h for the MPI transport, as mpicc (OpenMPI's --showme, MPICH's -show)
# reports it; expanded in the recipe, after mpi-deps may have installed MPI
ADI_MPI_INC = $(filter -I%,$(or $(shell $(MPICC) --showme:compile 2>/dev/null),$(shell $(MPICC) -show 2>/dev/null)))
# the block driver and its transports: what every GPU build has (make hip's
# too), and NCCL's where found
BLOCK_SRCS_BASE := cuda/multi/block_driver.cu cuda/multi/transport_mpi.cu cuda/multi/set_link.cu
BLOCK_SRCS := $(BLOCK_SRCS_BASE) $(if $(filter 1,$(ADI_BLOCK_CCL)),cuda/multi/transport_nccl.cu)
BLOCK_FLAGS = -DADIFLOW_BLOCK_CCL=$(ADI_BLOCK_CCL) $(if $(filter 1,$(ADI_BLOCK_CCL)),-I$(ADI_NCCL_INC)) $(ADI_MPI_INC)
ifneq ($(GPU_LIBS),)
MPI_GPU_OBJS := $(GPU_OBJS) $(patsubst cuda/%.cu,$(OBJ)/cuda/%.o,$(BLOCK_SRCS))
MPI_GPU_LIBS := $(if $(LIBSTDCXX_A),$(patsubst -lstdc++,$(LIBSTDCXX_A),$(GPU_LIBS)),$(GPU_LIBS)) \
                $(if $(filter 1,$(ADI_BLOCK_CCL)),-L$(ADI_NCCL_LIB) -Wl$(comma)-rpath$(comma)$(ADI_NCCL_LIB) -lnccl)
else
MPI_GPU_OBJS := $(GPU_OBJS) $(OBJ)/block_stub.o
MPI_GPU_LIBS := $(GPU_LIBS)
endif
MPI_LINK_FLAGS := $(if $(LIBGOMP_A),$(filter-out -fopenmp,$(FFLAGS)),$(FFLAGS)) $(HARDEN_LINK)
MPI_LINK_LIBS := $(MPI_GPU_LIBS) $(if $(LIBGOMP_A),$(LIBGOMP_A) -lpthread)
# NCCL found or not: the driver's list of transports differs, so a change recompiles it
$(OBJ)/.block-ccl-$(ADI_BLOCK_CCL): | $(OBJ)
	@rm -f $(OBJ)/.block-ccl-*
	@touch $@
$(OBJ)/cuda/multi/%.o: cuda/multi/%.cu $(GPU_HDRS) $(OBJ)/.cuda-$(CUDA_MODE) $(OBJ)/.block-ccl-$(ADI_BLOCK_CCL) | $(OBJ) mpi-deps
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) $(BLOCK_FLAGS) -c $< -o $@
# the MPI transport's own logic on 2 ranks without a GPU, over a host
# stand-in of the CUDA runtime (tests/unit/host_cuda/; run by
# tests/suites/run_block_transport.sh). C++: the transport is a .cu file.
MPICXX ?= mpicxx
$(BUILD)/block_transport_check: tests/unit/block_transport_check.cc cuda/multi/transport_mpi.cu \
  tests/unit/host_cuda/cuda_runtime.h $(GPU_HDRS) | $(OBJ) mpi-deps
	$(MPICXX) -std=c++17 -O1 -g -Wall -Wextra -Itests/unit/host_cuda -Iinclude -Icuda/common -Icuda/multi \
	  -x c++ cuda/multi/transport_mpi.cu tests/unit/block_transport_check.cc -o $@
$(OBJ)/block_stub.o: cuda/multi/block_stub.c include/adiflow_block.h | $(OBJ)
	$(CC) $(CFLAGS) -c $< -o $@
$(OBJ)/mpi/%.o: fortran/%.f90 | $(OBJ) mpi-deps
	@mkdir -p $(@D)
	$(MPIFC) $(FFLAGS) -I$(OBJ) -J$(OBJ)/mpi -c $< -o $@
$(BUILD)/adiflow_mpi: $(foreach f,$(F_MPI),$(call f_obj,$(f))) $(MPI_F_OBJS) $(C_OBJS) $(MPI_GPU_OBJS) | mpi-deps
	$(MPIFC) $(MPI_LINK_FLAGS) $^ $(MPI_LINK_LIBS) -o $@
# no sub-make: make -j2 all mpi builds each object once
.PHONY: mpi mpi-deps mpi-test
mpi-deps: deps
	$(call install_if_missing,mpi,$(call missing_cmds,$(DEPS_MPI)))
mpi: $(BUILD)/adiflow_mpi $(BUILD)/adiflow $(BUILD)/compare_fields
mpi-test: mpi
	@bash tests/suites/run_mpi_tests.sh

# tools (C)
$(BUILD)/compare_fields: validation/compare_fields.c fortran/field_file.c fortran/crc64.c fortran/safe_file.c \
  include/field_format.h fortran/safe_file.h $(HOST_LIB) | $(OBJ)
	$(CC) $(CFLAGS) -Ifortran $(HOST_INC) validation/compare_fields.c fortran/field_file.c fortran/crc64.c fortran/safe_file.c \
	  $(HOST_LIB) -lm -pthread -o $@
# fixtures of compare_fields' tolerance tests (tests/suites/run_tests.sh)
$(BUILD)/dump_fixtures: tests/suites/dump_fixtures.c fortran/field_file.c fortran/crc64.c fortran/safe_file.c \
  include/field_format.h fortran/safe_file.h $(HOST_LIB) | $(OBJ)
	$(CC) $(CFLAGS) -Ifortran $(HOST_INC) tests/suites/dump_fixtures.c fortran/field_file.c fortran/crc64.c \
	  fortran/safe_file.c $(HOST_LIB) -lm -pthread -o $@
# CGNS test files written through the library (tests/suites/cgns_tests.sh)
$(BUILD)/cgns_fixture: tests/unit/cgns_fixture.c $(OBJ)/cgns_lib.o fortran/cgns_lib.h $(OBJ)/.cgns-flags | $(OBJ)
	$(CC) $(CFLAGS) $(CGNS_FLAGS) -Ifortran $< $(OBJ)/cgns_lib.o -o $@
# Plot3D grids of the validation cases and the reader's test files
$(BUILD)/make_grid: validation/make_grid.c $(OBJ)/plot3d_write.o $(OBJ)/safe_file.o $(HOST_LIB) | $(OBJ)
	$(CC) $(CFLAGS) -Ifortran $(HOST_INC) validation/make_grid.c $(OBJ)/plot3d_write.o $(OBJ)/safe_file.o $(HOST_LIB) -lm -o $@
# a Plot3D grid read and checked as a run reads it (fortran/grid_file.f90)
$(BUILD)/grid_check: fortran/grid_check.f90 $(F_OBJS) $(C_OBJS) $(GPU_OBJS)
	@mkdir -p $(BUILD)/testmod/grid_check
	$(FC) $(FFLAGS) $(HARDEN_LINK) -J$(BUILD)/testmod/grid_check -I$(OBJ) $< $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(GPU_LIBS) -o $@
$(BUILD)/ghia_compare: validation/ghia_compare.c validation/profile_io.h $(HOST_LIB) | $(OBJ)
	$(CC) $(CFLAGS) $(HOST_INC) $< $(HOST_LIB) -lm -o $@
# the cube's centrelines and extrema against Albensoeder & Kuhlmann (2005)
# the open-boundary validation cases (channel, plate, cylinder) against their published solutions
$(BUILD)/open_flow_compare: validation/open_flow_compare.c fortran/plot3d_file.c fortran/plot3d_file.h fortran/field_file.c \
  fortran/crc64.c fortran/safe_file.c include/field_format.h $(HOST_LIB) | $(OBJ)
	$(CC) $(CFLAGS) -Ifortran $(HOST_INC) validation/open_flow_compare.c fortran/plot3d_file.c fortran/field_file.c \
	  fortran/crc64.c fortran/safe_file.c $(HOST_LIB) -lm -pthread -o $@
$(BUILD)/cube_compare: validation/cube_compare.c validation/profile_io.h $(HOST_LIB) | $(OBJ)
	$(CC) $(CFLAGS) $(HOST_INC) $< $(HOST_LIB) -lm -o $@
# grid-convergence analysis (observed order, Richardson, GCI) of centreline profiles
$(BUILD)/gridstudy: validation/gridstudy.c validation/profile_io.h $(HOST_LIB) | $(OBJ)
	$(CC) $(CFLAGS) $(HOST_INC) $< $(HOST_LIB) -lm -o $@

# unit tests (Fortran programs over the solver modules)
$(BUILD)/test_%: tests/unit/test_%.f90 $(F_OBJS) $(C_OBJS) $(GPU_OBJS) tests/unit/test_util.f90 tests/unit/case_setup.f90
	@mkdir -p $(BUILD)/testmod/$*
	$(FC) $(FFLAGS) -J$(BUILD)/testmod/$* -I$(OBJ) tests/unit/test_util.f90 tests/unit/case_setup.f90 $< $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(GPU_LIBS) -o $@
$(BUILD)/test_boundary_states: tests/c_vs_fortran/test_boundary_states.f90 tests/c_vs_fortran/boundary_states_shim.c \
  cuda/common/boundary_states.h cuda/common/portable_math.h cuda/common/adiflow_math.h $(F_OBJS) $(C_OBJS) tests/unit/test_util.f90
	@mkdir -p $(BUILD)/testmod/boundary_states
	$(CC) $(CFLAGS) -Icuda/common -c tests/c_vs_fortran/boundary_states_shim.c -o $(OBJ)/boundary_states_shim.o
	$(FC) $(FFLAGS) -J$(BUILD)/testmod/boundary_states -I$(OBJ) tests/unit/test_util.f90 $< $(OBJ)/boundary_states_shim.o $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(GPU_LIBS) -o $@
$(BUILD)/test_math_c_vs_fortran: tests/c_vs_fortran/test_math_c_vs_fortran.f90 tests/c_vs_fortran/math_c_shim.c cuda/common/adiflow_math.h $(F_OBJS) $(C_OBJS) tests/unit/test_util.f90
	$(CC) $(CFLAGS) -Icuda/common -c tests/c_vs_fortran/math_c_shim.c -o $(OBJ)/math_c_shim.o
	$(FC) $(FFLAGS) -J$(OBJ) -I$(OBJ) tests/unit/test_util.f90 $< $(OBJ)/math_c_shim.o $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(GPU_LIBS) -o $@
$(BUILD)/test_precond_c_vs_fortran: tests/c_vs_fortran/test_precond_c_vs_fortran.f90 tests/c_vs_fortran/precond_c_shim.c \
  cuda/common/low_mach_precond.h cuda/common/adiflow_math.h $(F_OBJS) $(C_OBJS) tests/unit/test_util.f90
	@mkdir -p $(BUILD)/testmod/precond
	$(CC) $(CFLAGS) -Icuda/common -c tests/c_vs_fortran/precond_c_shim.c -o $(OBJ)/precond_c_shim.o
	$(FC) $(FFLAGS) -J$(BUILD)/testmod/precond -I$(OBJ) tests/unit/test_util.f90 $< $(OBJ)/precond_c_shim.o $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(GPU_LIBS) -o $@
$(BUILD)/test_multigrid_c_vs_fortran: tests/c_vs_fortran/test_multigrid_c_vs_fortran.f90 tests/c_vs_fortran/multigrid_c_shim.c \
  $(STAGE_HDRS) $(F_OBJS) $(C_OBJS) tests/unit/test_util.f90
	@mkdir -p $(BUILD)/testmod/multigrid
	$(CC) $(CFLAGS) -Icuda/common -c tests/c_vs_fortran/multigrid_c_shim.c -o $(OBJ)/multigrid_c_shim.o
	$(FC) $(FFLAGS) -J$(BUILD)/testmod/multigrid -I$(OBJ) tests/unit/test_util.f90 $< $(OBJ)/multigrid_c_shim.o \
	  $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(GPU_LIBS) -o $@
# the bind(c) structs (parameters, &gpu settings, boundary patch): same size and offsets in Fortran and C
$(BUILD)/test_params_layout: tests/c_vs_fortran/test_params_layout.f90 tests/c_vs_fortran/params_layout_shim.c include/adiflow_params.h \
  include/adiflow_gpu_settings.h include/adiflow_patches.h include/adiflow_params.def include/adiflow_gpu_settings.def \
  $(OBJ)/solver_params.o $(OBJ)/gpu_settings.o $(OBJ)/boundary_patches.o $(OBJ)/text_util.o $(OBJ)/kinds.o \
  tests/unit/test_util.f90 | $(OBJ)
	@mkdir -p $(BUILD)/testmod/params_layout
	$(CC) $(CFLAGS) -c tests/c_vs_fortran/params_layout_shim.c -o $(OBJ)/params_layout_shim.o
	$(FC) $(FFLAGS) -J$(BUILD)/testmod/params_layout -I$(OBJ) tests/unit/test_util.f90 $< $(OBJ)/params_layout_shim.o \
	  $(OBJ)/solver_params.o $(OBJ)/gpu_settings.o $(OBJ)/boundary_patches.o $(OBJ)/text_util.o $(OBJ)/kinds.o -o $@
# multi-block grids: the reader and the interfaces found from the coordinates (C only)
$(BUILD)/test_block_interfaces: tests/unit/test_block_interfaces.c $(OBJ)/plot3d_file.o $(OBJ)/block_interfaces.o \
  $(OBJ)/plot3d_write.o $(OBJ)/safe_file.o $(HOST_LIB) | $(OBJ)
	$(CC) $(CFLAGS) -Ifortran $(HOST_INC) $< $(OBJ)/plot3d_write.o $(OBJ)/plot3d_file.o \
	  $(OBJ)/block_interfaces.o $(OBJ)/safe_file.o $(HOST_LIB) -lm -o $@
# an output's second name, its copy fallback and the write-back hint (C only)
$(BUILD)/test_safe_file: tests/unit/test_safe_file.c fortran/safe_file.c fortran/safe_file.h | $(OBJ)
	$(CC) $(CFLAGS) -Ifortran $< fortran/safe_file.c -o $@
# the dump format's CRC, summed on threads against serially (C only)
$(BUILD)/test_crc64: tests/unit/test_crc64.c fortran/crc64.c include/field_format.h | $(OBJ)
	$(CC) $(CFLAGS) $< fortran/crc64.c -pthread -o $@
# the multi-GPU exact mode's split sweeps against whole-line sweeps (C only)
$(BUILD)/test_block_sweep: tests/unit/test_block_sweep.c $(STAGE_HDRS) | $(OBJ)
	$(CC) $(CFLAGS) -Icuda/common $< -lm -o $@
# how exact mode's sweeps across GPU blocks are cut into chunks (C only)
$(BUILD)/test_block_chunks: tests/unit/test_block_chunks.c cuda/multi/block_chunks.h | $(OBJ)
	$(CC) $(CFLAGS) -Icuda/multi $< -o $@
# the GPU launch sequence over the shared stage bodies, emulated on the CPU
$(BUILD)/test_stages_c_vs_fortran: tests/c_vs_fortran/test_stages_c_vs_fortran.f90 tests/c_vs_fortran/stages_host_emul.c \
  $(STAGE_HDRS) $(F_OBJS) $(C_OBJS) $(GPU_OBJS) tests/unit/test_util.f90 tests/unit/case_setup.f90
	@mkdir -p $(BUILD)/testmod/stages_c_vs_fortran
	$(CC) $(CFLAGS) -Icuda/common -Icuda/split -c tests/c_vs_fortran/stages_host_emul.c -o $(OBJ)/stages_host_emul.o
	$(FC) $(FFLAGS) -J$(BUILD)/testmod/stages_c_vs_fortran -I$(OBJ) tests/unit/test_util.f90 tests/unit/case_setup.f90 $< \
	  $(OBJ)/stages_host_emul.o $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(GPU_LIBS) -o $@

# the merged kernel family's launch sequence, emulated on the CPU
$(BUILD)/test_merged_c_vs_fortran: tests/c_vs_fortran/test_merged_c_vs_fortran.f90 tests/c_vs_fortran/merged_host_emul.c \
  $(STAGE_HDRS) $(F_OBJS) $(C_OBJS) $(GPU_OBJS) \
  tests/unit/test_util.f90 tests/unit/case_setup.f90
	@mkdir -p $(BUILD)/testmod/merged_c_vs_fortran
	$(CC) $(CFLAGS) -Icuda/common -c tests/c_vs_fortran/merged_host_emul.c -o $(OBJ)/merged_host_emul.o
	$(FC) $(FFLAGS) -J$(BUILD)/testmod/merged_c_vs_fortran -I$(OBJ) tests/unit/test_util.f90 tests/unit/case_setup.f90 $< \
	  $(OBJ)/merged_host_emul.o $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(GPU_LIBS) -o $@
# the GPU's boundary-patch fill (per ghost) and both families' iterations
# with patches, emulated on the CPU (the emulations compiled apart, into
# $(OBJ)/patch_fill/, beside the other tests' copies)
$(BUILD)/test_patch_fill_c_vs_fortran: tests/c_vs_fortran/test_patch_fill_c_vs_fortran.f90 tests/c_vs_fortran/patch_fill_shim.c \
  tests/c_vs_fortran/stages_host_emul.c tests/c_vs_fortran/merged_host_emul.c $(STAGE_HDRS) $(F_OBJS) $(C_OBJS) $(GPU_OBJS) \
  tests/unit/test_util.f90 tests/unit/case_setup.f90
	@mkdir -p $(BUILD)/testmod/patch_fill $(OBJ)/patch_fill
	$(CC) $(CFLAGS) -Icuda/common -c tests/c_vs_fortran/patch_fill_shim.c -o $(OBJ)/patch_fill/patch_fill_shim.o
	$(CC) $(CFLAGS) -Icuda/common -Icuda/split -c tests/c_vs_fortran/stages_host_emul.c -o $(OBJ)/patch_fill/stages_host_emul.o
	$(CC) $(CFLAGS) -Icuda/common -c tests/c_vs_fortran/merged_host_emul.c -o $(OBJ)/patch_fill/merged_host_emul.o
	$(FC) $(FFLAGS) -J$(BUILD)/testmod/patch_fill -I$(OBJ) tests/unit/test_util.f90 tests/unit/case_setup.f90 $< \
	  $(OBJ)/patch_fill/patch_fill_shim.o $(OBJ)/patch_fill/stages_host_emul.o $(OBJ)/patch_fill/merged_host_emul.o \
	  $(F_OBJS) $(C_OBJS) $(GPU_OBJS) $(GPU_LIBS) -o $@

# device-to-device copy bandwidth, the reference of bench/device_merged.sh
$(BUILD)/copy_bw: bench/copy_bw.cu | $(OBJ)
	$(NVCC) $(NVFLAGS) $< -o $@
# exact mode's pipelined sweep kernels timed alone, by chunks (bench/device_mpi_mg.sh pipe)
$(BUILD)/pipe_sweep: bench/pipe_sweep.cu $(GPU_HDRS) | $(OBJ)
	$(NVCC) $(NVFLAGS) $< -o $@
# two grids in one process through the bridge's handles (C, over the CUDA objects)
$(BUILD)/gpu_two_grids: tests/gpu/gpu_two_grids.c include/adiflow_bridge.h include/adiflow_params.h $(GPU_OBJS) | $(OBJ)
	$(CC) $(CFLAGS) $< $(GPU_OBJS) $(if $(LIBSTDCXX_A),$(patsubst -lstdc++,$(LIBSTDCXX_A),$(GPU_LIBS)),$(GPU_LIBS)) -lm -o $@

# then its centrelines against Ghia's Re = 100 tables: the largest differences
# and runs/cavity_default/ghia_re100.png (a second at most)
run: all
	./$(BUILD)/adiflow cases/cavity_default.nml
	@BUILD=$(BUILD) bash validation/ghia_run.sh runs/cavity_default 100

test: all $(TESTS)
	$(call install_if_missing,test,$(call missing_cmds,$(DEPS_MPI) cgns_to_plot3d) $(missing_py_vtk))
	@bash tests/run_all.sh

validate: all
	@BUILD=$(BUILD) bash validation/run_ghia.sh

# the grids and patch files of the open-boundary decks (cases/channel_re20.nml,
# plate_re1e5.nml, cylinder_re40.nml; naca0012_re5000.nml, three blocks), made by
# validation/open_case.sh and validation/naca_case.sh; part of
# every build (a second), so that every shipped deck runs
.PHONY: grids validate-open
grids: cases/grids/.made
cases/grids/.made: $(BUILD)/make_grid validation/open_case.sh validation/naca_case.sh
	@for c in channel plate cylinder; do BUILD=$(BUILD) bash validation/open_case.sh grid $$c 2 cases/grids || exit 1; done
	@BUILD=$(BUILD) bash validation/naca_case.sh grid 1 cases/grids
	@touch $@
	@echo "grids: cases/grids/ holds the grids and patch files of the channel, plate, cylinder and NACA 0012 decks"

# the three open-boundary cases against their published solutions;
# OPEN_ARGS="--backend gpu", OPEN_LEVELS="1 2 3" (a grid study; default level 1, the CI size)
validate-open: all
	@for c in channel plate cylinder; do \
	  BUILD=$(BUILD) bash validation/open_case.sh study $$c "$(or $(OPEN_LEVELS),1)" runs/open $(OPEN_ARGS) || exit 1; done

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

# bench/ holds measurements, not checks: this target builds and runs nothing,
# it says what is there and how it runs
bench:
	@echo "bench/: measurement scripts (current figures in bench/RESULTS.md, the dated runs in bench/log/)."
	@echo "  device_*.sh      run on a GPU machine and build nothing: build here (make; make BUILD=build/strict"
	@echo "                   STRICT=1 for the bit-identity checks), carry build/ to the GPU machine, run"
	@echo "                   bash bench/device_NAME.sh there; each script's header gives its modes and inputs:"
	@echo "$(notdir $(wildcard bench/device_*.sh))" | fmt -w 80 | sed 's/^/                     /'
	@echo "  cpu_threads.sh   CPU timings here, after make: bash bench/cpu_threads.sh"
	@echo "  plot_roofline.sh, plot_kernels.gp  charts of device_kernels.sh's output"
	@echo "  cases/           the decks they run; modules/*/bench/ holds each module's own"

clean:
	rm -rf $(BUILD) cases/grids

# hip.mk first: the modules' HIP rules (modules/wave/wave.mk) name its folders
-include hip/hip.mk
-include modules/wave/wave.mk
-include modules/stencil3d/stencil3d.mk
-include modules/ooc/ooc.mk
-include modules/foam/foam.mk
