# modules/foam/foam.mk - make fragment of the OpenFOAM solver plugin
# (adiflowPCG, an lduMatrix::solver), included by the top-level Makefile;
# paths relative to the repository root.
#   make foam        installs Debian's OpenFOAM v1912 and its headers when
#                    missing (scripts/install_deps.sh foam), then builds
#                    build/foam/lib/libadiflowFoam.so: the CPU path always,
#                    the GPU path too when nvcc is found (sm_90 + PTX, static
#                    cudart; MPI from OpenMPI's mpicc; NCCL opened at run time)
#   make foam-test   the CPU suite (icoFoam cavity against OpenFOAM's PCG),
#                    last line "N passed, M failed"
#   make foam-runtime  build/foam/runtime.tar.xz: the trimmed OpenFOAM runtime
#                    that modules/foam/bench/device_foam.sh and device_foam_cube.sh
#                    carry to a GPU machine
# The error reporting of the C/CUDA cores returns a "file:line: ..." message
# that the plugin raises as an OpenFOAM FatalError (a plugin must not exit).

FOAM_DIR    := modules/foam
FOAM_SRC    := $(FOAM_DIR)/src
FOAM_BUILD  := build/foam
FOAM_TREE   := $(FOAM_BUILD)/src/tree
FOAM_LNINC  := $(FOAM_BUILD)/lnInclude
FOAM_LIB    := $(FOAM_BUILD)/lib/libadiflowFoam.so
FOAM_CXX    ?= g++
FOAM_CC     ?= gcc
# OpenFOAM's own rules (wmake/rules/linux64Gcc, c++Opt) for a DP, 32-bit-label build
FOAM_DEFS   := -DOPENFOAM=1912 -DWM_DP -DWM_LABEL_SIZE=32 -DNoRepository
FOAM_CXXFLAGS ?= -std=c++11 -m64 -pthread -O3 -fPIC -ftemplate-depth-100 -ffp-contract=off \
                 -Wall -Wextra -Wno-unused-parameter -Wno-invalid-offsetof -Wno-attributes -Wno-unknown-pragmas
FOAM_CFLAGS ?= -std=c11 -D_GNU_SOURCE -O3 -fPIC -ffp-contract=off -Wall -Wextra
FOAM_INC    := -I$(FOAM_SRC) -I$(FOAM_LNINC)
FOAM_HDRS   := $(FOAM_SRC)/afp.h
FOAM_GPU_HDRS := $(FOAM_SRC)/afp_gpu.h $(FOAM_SRC)/afp_gpu_check.h $(FOAM_SRC)/afp_gpu_tree.cuh
FOAM_OBJ    := $(FOAM_BUILD)/obj
FOAM_OBJS   := $(FOAM_OBJ)/adiflowPCG.o $(FOAM_OBJ)/adiflowTimed.o $(FOAM_OBJ)/afp_cpu.o $(FOAM_OBJ)/afp_common.o

FOAM_NVCC   ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
ifeq ($(origin FOAM_CUDA_HOME),undefined)
FOAM_CUDA_HOME := $(if $(FOAM_NVCC),$(call cuda_home_of,$(FOAM_NVCC)))
endif
FOAM_NVFLAGS ?= -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
                --fmad=false -Xcompiler -fPIC -Xcompiler -Wall
ifneq ($(FOAM_NVCC),)
FOAM_MPI_INC  := $(shell mpicc --showme:incdirs 2>/dev/null | sed 's/^/-I/; s/ / -I/g')
FOAM_MPI_LIBS := $(shell mpicc --showme:link 2>/dev/null)
FOAM_OBJS   += $(patsubst %,$(FOAM_OBJ)/afp_gpu_%.o,device matrix exchange sums pcg)
FOAM_LIBS   := -L$(FOAM_CUDA_HOME)/lib64 -L$(FOAM_CUDA_HOME)/targets/x86_64-linux/lib -lcudart_static $(FOAM_MPI_LIBS) -ldl -lrt -lpthread
else
FOAM_OBJS   += $(FOAM_OBJ)/afp_gpu_stub.o
FOAM_LIBS   :=
endif

.PHONY: foam foam-lib foam-test foam-runtime foam-clean
foam:
	@bash scripts/install_deps.sh foam
	@$(MAKE) --no-print-directory foam-lib

foam-lib: $(FOAM_LIB)

# OpenFOAM's lnInclude: one folder of links to every header and template of
# src/OpenFOAM and src/OSspecific/POSIX (what wmakeLnInclude makes)
$(FOAM_LNINC)/.stamp: $(FOAM_BUILD)/src/VERSION
	@rm -rf $(FOAM_LNINC) && mkdir -p $(FOAM_LNINC)
	@find $(abspath $(FOAM_TREE))/src/OpenFOAM $(abspath $(FOAM_TREE))/src/OSspecific/POSIX \
	    -name '*.[CH]' -print0 | xargs -0 ln -sf -t $(FOAM_LNINC)
	@touch $@

$(FOAM_OBJ)/.dir:
	@mkdir -p $(FOAM_OBJ) $(FOAM_BUILD)/lib && touch $@

$(FOAM_OBJ)/adiflowPCG.o: $(FOAM_SRC)/adiflowPCG.C $(FOAM_SRC)/adiflowPCG.H $(FOAM_HDRS) $(FOAM_LNINC)/.stamp | $(FOAM_OBJ)/.dir
	$(FOAM_CXX) $(FOAM_CXXFLAGS) $(FOAM_DEFS) $(FOAM_INC) -c -o $@ $<
$(FOAM_OBJ)/adiflowTimed.o: $(FOAM_SRC)/adiflowTimed.C $(FOAM_HDRS) $(FOAM_LNINC)/.stamp | $(FOAM_OBJ)/.dir
	$(FOAM_CXX) $(FOAM_CXXFLAGS) $(FOAM_DEFS) $(FOAM_INC) -c -o $@ $<
$(FOAM_OBJ)/%.o: $(FOAM_SRC)/%.c $(FOAM_HDRS) | $(FOAM_OBJ)/.dir
	$(FOAM_CC) $(FOAM_CFLAGS) -I$(FOAM_SRC) -c -o $@ $<
# the GPU path, one file per job (src/afp_gpu.h lists them)
$(FOAM_OBJ)/afp_gpu_%.o: $(FOAM_SRC)/afp_gpu_%.cu $(FOAM_HDRS) $(FOAM_GPU_HDRS) | $(FOAM_OBJ)/.dir
	$(FOAM_NVCC) $(FOAM_NVFLAGS) -I$(FOAM_SRC) $(FOAM_MPI_INC) -c -o $@ $<

$(FOAM_LIB): $(FOAM_OBJS)
	$(FOAM_CXX) -shared -fPIC -o $@ $(FOAM_OBJS) -L/usr/lib -Wl,--no-as-needed -lOpenFOAM $(FOAM_LIBS)

foam-test: foam
	@bash $(FOAM_DIR)/tests/run_tests.sh

foam-runtime: foam
	@bash $(FOAM_DIR)/bench/make_runtime.sh

foam-clean:
	rm -rf $(FOAM_BUILD)/obj $(FOAM_BUILD)/lib $(FOAM_LNINC)
