/* System services the Fortran drivers need and standard Fortran lacks: an
 * interrupt flag set by SIGINT/SIGTERM, the memory a run may use, the run folder (created without a
 * shell, locked against a second run) and the residual plot (gnuplot run
 * without a shell, the case's text passed as data). Called through
 * fortran/sys_interface.f90. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


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

/* A file-size limit (ulimit -f) must turn into a failed write that the
 * writer reports, not a SIGXFSZ that kills the run without a word. */
void adi_ignore_file_size_signal(void)
{
  signal(SIGXFSZ, SIG_IGN);
}

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

/* The bytes this process may still allocate: MemAvailable, lowered by an
 * address-space or data-size limit (ulimit -v / -d) less what the process
 * already uses; -1 when unknown. */
int64_t adi_host_memory_available(void)
{
  long long avail = proc_kb("/proc/meminfo", "MemAvailable");
  static const struct { int res; const char *used; } limits[2] = {{RLIMIT_AS, "VmSize"}, {RLIMIT_DATA, "VmData"}};
  for (int i = 0; i < 2; ++i) {
    struct rlimit rl;
    if (getrlimit(limits[i].res, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
      long long used = proc_kb("/proc/self/status", limits[i].used);
      long long left = (long long)rl.rlim_cur - (used > 0 ? used : 0);
      if (left < 0) left = 0;
      if (avail < 0 || left < avail) avail = left;
    }
  }
  return avail;
}

/* mkdir -p without a shell: each component of path in turn. 0 or errno,
 * with the reason in msg. */
int adi_make_dirs(const char *path, char *msg, size_t msglen)
{
  size_t n = strlen(path);
  char *p;
  struct stat st;
  if (n == 0) {
    snprintf(msg, msglen, "the run folder name is empty");
    return EINVAL;
  }
  p = malloc(n + 1);
  if (!p) {
    snprintf(msg, msglen, "out of memory");
    return ENOMEM;
  }
  memcpy(p, path, n + 1);
  for (size_t i = 1; i <= n; ++i) {
    if (p[i] != '/' && p[i] != '\0') continue;
    char c = p[i];
    p[i] = '\0';
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
      int e = errno;
      snprintf(msg, msglen, "cannot create folder \"%s\": %s", p, strerror(e));
      free(p);
      return e;
    }
    p[i] = c;
  }
  free(p);
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
    snprintf(msg, msglen, "\"%s\" exists and is not a folder", path);
    return ENOTDIR;
  }
  return 0;
}

/* An exclusive lock on DIR/.adiflow.lock, held until the process ends (the
 * kernel drops it then, also after kill -9). Returns the descriptor, or -1
 * with the reason in msg: another run holds it (its pid named), or the
 * folder is not writable. */
int adi_lock_run_dir(const char *dir, char *msg, size_t msglen)
{
  size_t n = strlen(dir) + sizeof "/.adiflow.lock";
  char *path = malloc(n), buf[32];
  int fd;
  if (!path) {
    snprintf(msg, msglen, "out of memory");
    return -1;
  }
  snprintf(path, n, "%s/.adiflow.lock", dir);
  fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    snprintf(msg, msglen, "cannot write in the run folder \"%s\": %s", dir, strerror(errno));
    free(path);
    return -1;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ssize_t got = pread(fd, buf, sizeof buf - 1, 0);
    buf[got > 0 ? got : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    snprintf(msg, msglen,
             "another run (pid %s) is using the run folder \"%s\"; wait for it to end or choose another --run-dir",
             buf[0] ? buf : "unknown", dir);
    close(fd);
    free(path);
    return -1;
  }
  free(path);
  snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
  if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, buf, strlen(buf), 0);
  return fd;
}

/* gnuplot -c SCRIPT TITLE DATA PNG, without a shell: the case's title and the
 * paths reach the script as the strings ARG1..ARG3, never as gnuplot code.
 * Returns 0 drawn, 1 gnuplot not installed, 2 gnuplot failed (msg says how). */
int adi_run_gnuplot(const char *script, const char *title, const char *data, const char *png, char *msg,
                    size_t msglen)
{
  extern char **environ;
  char *argv[] = {"gnuplot", "-c", (char *)script, (char *)title, (char *)data, (char *)png, NULL};
  posix_spawn_file_actions_t fa;
  pid_t pid;
  int st, e;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  e = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (e == ENOENT) return 1;
  if (e != 0) {
    snprintf(msg, msglen, "cannot start gnuplot: %s", strerror(e));
    return 2;
  }
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) {
      snprintf(msg, msglen, "lost gnuplot: %s", strerror(errno));
      return 2;
    }
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
  if (WIFEXITED(st)) snprintf(msg, msglen, "gnuplot exited with status %d", WEXITSTATUS(st));
  else snprintf(msg, msglen, "gnuplot was killed by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  return 2;
}
