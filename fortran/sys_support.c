/* System services the Fortran driver needs and standard Fortran lacks:
 * an interrupt flag set by SIGINT/SIGTERM, atomic rename, the checksum of
 * the dump format, and the memory a run may use. Called through
 * fortran/sys_interface.f90. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "field_format.h"

static volatile sig_atomic_t interrupt_flag = 0;

static void on_signal(int sig)
{
  interrupt_flag = sig;
}

/* Install handlers so Ctrl-C ends the run after the current iteration with a
 * restart written, instead of killing it mid-step. */
void adi_install_signal_handlers(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int adi_interrupt_requested(void)
{
  return (int)interrupt_flag;
}

/* rename(2) after flushing the temp file to disk: the old restart stays
 * intact until the new one is complete. Returns 0 or errno. */
int adi_atomic_rename(const char *tmp_path, const char *final_path)
{
  FILE *f = fopen(tmp_path, "rb+");
  if (f) {
    fflush(f);
    fsync(fileno(f));
    fclose(f);
  }
  if (rename(tmp_path, final_path) != 0)
    return errno ? errno : -1;
  return 0;
}

void adi_checksum_update(uint64_t state[2], const double *data, int64_t n)
{
  adi_fletcher64_update(state, data, (size_t)n * sizeof(double));
}

uint64_t adi_checksum_final(const uint64_t state[2])
{
  return adi_fletcher64_final(state);
}

/* MemAvailable from /proc/meminfo in bytes, or -1 when unknown. */
int64_t adi_host_memory_available(void)
{
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  long long kb = -1;
  if (!f)
    return -1;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
      break;
  }
  fclose(f);
  return kb < 0 ? -1 : (int64_t)kb * 1024;
}
