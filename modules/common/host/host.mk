# modules/common/host/host.mk - the host library: the C every program of the repository
# shares (make fragment; paths relative to the repository root). Included by
# the top-level Makefile and by modules/common/common.mk, whichever comes
# first; each consumer compiles the sources with its own flags:
#   the solver (fortran/ C services) and the tools (validation/):
#       $(OBJ)/host/*.o, rule in the top-level Makefile
#   the module programs: inside build/modules/libmodcommon.a (common.mk)
#   host_file.c    opening an input file without blocking, the file-kind words
#   host_memory.c  the host memory a process may still allocate
ifndef ADI_HOST_MK
ADI_HOST_MK := 1
HOST_DIR  := modules/common/host
HOST_SRCS := $(HOST_DIR)/host_file.c $(HOST_DIR)/host_memory.c
HOST_HDRS := $(HOST_SRCS:.c=.h)
HOST_INC  := -I$(HOST_DIR)
endif
