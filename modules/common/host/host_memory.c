/* host_memory.c - see host_memory.h. Linux: /proc/meminfo and /proc/self/status. */
#define _POSIX_C_SOURCE 200809L
#include "host_memory.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* "KEY: N kB" from a /proc file in bytes, or -1. */
static long long proc_kb(const char *file, const char *key)
{
  FILE *f = fopen(file, "r");
  char line[256];
  long long kb = -1;
  size_t n = strlen(key);
  if (!f) return -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, key, n) == 0 && line[n] == ':' && sscanf(line + n + 1, "%lld", &kb) == 1) break;
  }
  fclose(f);
  return kb < 0 ? -1 : kb * 1024;
}

adi_host_memory_room adi_host_memory(void)
{
  /* the memory a limit leaves is the limit less what the process already
   * uses of it: its address space for RLIMIT_AS, its data for RLIMIT_DATA */
  static const struct {
    int res;
    const char *used;
    adi_memory_bound bound;
  } limits[2] = {{RLIMIT_AS, "VmSize", ADI_MEM_RLIMIT_AS}, {RLIMIT_DATA, "VmData", ADI_MEM_RLIMIT_DATA}};
  adi_host_memory_room room = {proc_kb("/proc/meminfo", "MemAvailable"), ADI_MEM_UNKNOWN, 0};
  if (room.bytes >= 0) room.bound = ADI_MEM_AVAILABLE;
  for (int i = 0; i < 2; ++i) {
    struct rlimit rl;
    if (getrlimit(limits[i].res, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
      long long used = proc_kb("/proc/self/status", limits[i].used);
      long long left = (long long)rl.rlim_cur - (used > 0 ? used : 0);
      if (left < 0) left = 0;
      if (room.bytes < 0 || left < room.bytes) {
        room.bytes = left;
        room.bound = limits[i].bound;
        room.limit = (long long)rl.rlim_cur;
      }
    }
  }
  return room;
}

int64_t adi_host_memory_available(void)
{
  return adi_host_memory().bytes;
}
