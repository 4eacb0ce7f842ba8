/* System services the Fortran drivers need and standard Fortran lacks: an
 * interrupt flag set by SIGINT/SIGTERM/SIGHUP (and SIGPIPE kept from ending
 * a run), OpenMP's wait policy, the run folder's creation (without a shell;
 * fortran/run_folder.c checks and locks it), the residual plot (gnuplot run
 * without a shell, the case's text passed as data), and the snapshots an
 * earlier run left in the run folder (for the .pvd collection of a restarted
 * run). Called through fortran/sys_interface.f90; the memory a run may use
 * is the host library's (modules/common/host/host_memory.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


static volatile sig_atomic_t interrupt_flag = 0;

/* OpenMP threads that wait for work sleep instead of spinning, unless the
 * user chose a policy (OMP_WAIT_POLICY or GOMP_SPINCOUNT). A spinning thread
 * takes a core from whatever else the machine runs: on a 2-core machine
 * under load, two spinning threads made a run 15-25 times slower than one.
 * libgomp reads its environment in a constructor of its own, before main; a
 * constructor of higher priority runs before it when libgomp is linked
 * statically into the executable, as the Makefile links it (a shared libgomp
 * has read it already, and then the user's setting or libgomp's default
 * stands). */
__attribute__((constructor(101))) static void default_passive_omp_wait(void)
{
  if (!getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT")) setenv("OMP_WAIT_POLICY", "passive", 0);
}

/* Point fd at /dev/null (async-signal-safe calls only). */
static void silence_fd(int fd)
{
  int nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (nul >= 0) {
    dup2(nul, fd);
    close(nul);
  }
}

/* SIGINT, SIGTERM, SIGHUP: stop after the current iteration. A hang-up means
 * the terminal is gone: later lines would fail on it, so a terminal's output
 * goes to /dev/null from here on (residual.dat still records the history). */
static void on_signal(int sig)
{
  int saved = errno;
  interrupt_flag = sig;
  if (sig == SIGHUP) {
    for (int fd = 1; fd <= 2; ++fd)
      if (isatty(fd)) silence_fd(fd);
  }
  errno = saved;
}

/* SIGPIPE: the reader of our output went away (`adiflow case.nml | head`).
 * That stops the printing, not the run: the broken descriptor is pointed at
 * /dev/null and the solve goes on to its restart and outputs. */
static void on_broken_pipe(int sig)
{
  int saved = errno;
  (void)sig;
  for (int fd = 1; fd <= 2; ++fd) {
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    if (poll(&p, 1, 0) == 1 && (p.revents & POLLERR)) silence_fd(fd);
  }
  errno = saved;
}

/* Install handlers so Ctrl-C, a kill or a closed terminal end the run after
 * the current iteration with a restart written, instead of killing it
 * mid-step (SIGPIPE: adi_guard_output_signals). */
void adi_install_signal_handlers(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

/* Signals that concern the outputs, set at the very start: a file-size limit
 * (ulimit -f) must turn into a failed write that the writer reports, not a
 * SIGXFSZ that kills the run without a word; and a closed pipe on the
 * terminal output (SIGPIPE, `adiflow case.nml | head -1`) must not end the
 * run, whenever it comes. */
void adi_guard_output_signals(void)
{
  struct sigaction sa;
  signal(SIGXFSZ, SIG_IGN);
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_broken_pipe;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPIPE, &sa, NULL);
}

/* The name of a handled signal, for the closing line. */
void adi_signal_name(int sig, char *buf, size_t len)
{
  const char *name = sig == SIGINT    ? "SIGINT (Ctrl-C)"
                     : sig == SIGTERM ? "SIGTERM"
                     : sig == SIGHUP  ? "SIGHUP (terminal closed)"
                                      : "a signal";
  snprintf(buf, len, "%s", name);
}

int adi_interrupt_requested(void)
{
  return (int)interrupt_flag;
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
    /* the run folder itself not writable by group or others whatever the
     * umask: fortran/run_folder.c refuses such a folder (the folders above
     * it are the user's business) */
    if (mkdir(p, c == '\0' ? 0755 : 0777) != 0 && errno != EEXIST) {
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

/* path as gnuplot must get it: gnuplot reads a file name that starts with
 * '<' as a command to read from and one that starts with '|' as a command to
 * write to, so a relative path gets "./" in front (an absolute one starts
 * with '/'). A new buffer, or NULL when out of memory. */
static char *as_file_name(const char *path)
{
  size_t n = strlen(path) + 3;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s%s", path[0] == '/' ? "" : "./", path);
  return p;
}

/* gnuplot -c SCRIPT TITLE DATA PNG, without a shell: the case's title and the
 * paths reach the script as the strings ARG1..ARG3, never as gnuplot code.
 * Returns 0 drawn, 1 gnuplot not installed, 2 gnuplot failed (msg says how). */
int adi_run_gnuplot(const char *script, const char *title, const char *data, const char *png, char *msg,
                    size_t msglen)
{
  extern char **environ;
  char *s = as_file_name(script), *d = as_file_name(data), *p = as_file_name(png);
  char *argv[] = {"gnuplot", "-c", s, (char *)title, d, p, NULL};
  posix_spawn_file_actions_t fa;
  pid_t pid;
  int st, e;
  if (!s || !d || !p) {
    free(s);
    free(d);
    free(p);
    snprintf(msg, msglen, "out of memory");
    return 2;
  }
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  e = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  free(s);
  free(d);
  free(p);
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

static int compare_ll(const void *a, const void *b)
{
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* The iterations N (0 < N <= upto, multiples of every) of the regular files
 * DIR/<prefix><N in exactly width digits><ext>: the snapshots an earlier run
 * of a restarted series left. Read from the folder's listing, so that a
 * restart at iteration 10^7 does not probe 10^7 names, and never opening an
 * entry (a FIFO among them cannot block). The first cap of them go to iters,
 * ascending when all fit; returns how many there are (cap 0: count only),
 * -1 if DIR cannot be read. */
long long adi_find_snapshots(const char *dir, const char *prefix, const char *ext, int width, long long every,
                             long long upto, long long *iters, long long cap)
{
  size_t lp = strlen(prefix), le = strlen(ext);
  long long n = 0;
  struct dirent *e;
  DIR *d;
  if (width < 1 || width > 18 || every < 1) return 0; /* 18 digits cannot overflow a long long */
  d = opendir(dir);
  if (!d) return -1;
  while ((e = readdir(d)) != NULL) {
    const char *nm = e->d_name;
    long long it = 0;
    int i;
    struct stat st;
    if (strlen(nm) != lp + (size_t)width + le || strncmp(nm, prefix, lp) != 0 || strcmp(nm + lp + width, ext) != 0)
      continue;
    for (i = 0; i < width && nm[lp + i] >= '0' && nm[lp + i] <= '9'; i++) it = 10 * it + (nm[lp + i] - '0');
    if (i < width || it <= 0 || it > upto || it % every != 0) continue;
    if (fstatat(dirfd(d), nm, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    if (n < cap) iters[n] = it;
    n++;
  }
  closedir(d);
  if (n <= cap) qsort(iters, (size_t)n, sizeof *iters, compare_ll);
  return n;
}

/* Transparent huge pages for the whole 2 MiB pages inside [p, p + bytes),
 * asked before the range is first written: a large field then takes one
 * page fault per 2 MiB instead of one per 4 KiB, which is most of a large
 * grid's set-up where the kernel gives huge pages on request only (THP
 * "madvise", the common default; bench/log has the measurement). A hint:
 * nothing on other systems, for ranges under 2 MiB, or when it fails. */
void adi_advise_huge_pages(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20;
  uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = ((uintptr_t)p + bytes) & ~(huge - 1);
  if (p != NULL && b > a) (void)madvise((void *)a, (size_t)(b - a), MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}
