/* host_memory.h - the host memory a process may still allocate: the host
 * library's memory part, behind the solver's pre-check (fortran/adiflow.f90)
 * and the modules' (modules/common/guard.c), so that both count the same. */
#ifndef ADIFLOW_HOST_MEMORY_H
#define ADIFLOW_HOST_MEMORY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which bound decided adi_host_memory's figure. */
typedef enum {
  ADI_MEM_UNKNOWN = 0,  /* no bound known: bytes is -1 */
  ADI_MEM_AVAILABLE,    /* MemAvailable in /proc/meminfo */
  ADI_MEM_RLIMIT_AS,    /* the address-space soft limit (ulimit -v) */
  ADI_MEM_RLIMIT_DATA   /* the data-segment soft limit (ulimit -d) */
} adi_memory_bound;

typedef struct {
  long long bytes;        /* what may still be allocated; -1 when unknown */
  adi_memory_bound bound; /* the bound that decided */
  long long limit;        /* that rlimit's value in bytes (RLIMIT_AS, RLIMIT_DATA) */
} adi_host_memory_room;

/* The least of MemAvailable and the room under the RLIMIT_AS and RLIMIT_DATA
 * soft limits (the limit less what this process already uses). */
adi_host_memory_room adi_host_memory(void);

/* adi_host_memory().bytes, for the Fortran drivers (fortran/sys_interface.f90). */
int64_t adi_host_memory_available(void);

#ifdef __cplusplus
}
#endif
#endif
