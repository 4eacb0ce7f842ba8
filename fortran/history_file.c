/* residual.dat, the residual history, written through a descriptor of our
 * own instead of a Fortran unit, because:
 *  - it is opened without following a link (a Fortran OPEN with
 *    status='replace' or 'old' follows one planted in the run folder);
 *  - every line's write(2) is checked (gfortran's buffered writes lose ENOSPC);
 *  - after every line the file is checked to be still ours and as long as we
 *    wrote it, so that a file changed under the run is named as such;
 *  - a restarted run keeps the history up to its restart's iteration only,
 *    so that iterations redone after a kill are not listed twice.
 * Called through fortran/residual_monitor.f90. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safe_file.h"

/* Write all of buf, or return an errno. */
static int write_all(int fd, const char *buf, size_t n)
{
  while (n > 0) {
    ssize_t w = write(fd, buf, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (w == 0) return EIO;
    buf += w;
    n -= (size_t)w;
  }
  return 0;
}

/* The iteration a history line starts with; -1 for a comment or garbage. */
static long long line_iteration(const char *line)
{
  char *end;
  long long it;
  if (line[0] == '#') return -1;
  errno = 0;
  it = strtoll(line, &end, 10);
  if (errno || end == line) return -1;
  return it;
}

/* Copy the header lines and the lines of iterations <= keep_through from the
 * old history (an fd opened without following links) to the new one. */
static int copy_kept_lines(FILE *in, int out, const char *header, long long keep_through, long long *bytes)
{
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  int e = 0, first = 1;
  while ((n = getline(&line, &cap, in)) > 0) {
    long long it = line_iteration(line);
    int keep = first && line[0] == '#' ? 1 : (it >= 0 && it <= keep_through);
    if (first && line[0] != '#') { /* a history without its header line gets one */
      if ((e = write_all(out, header, strlen(header))) != 0) break;
      *bytes += (long long)strlen(header);
    }
    first = 0;
    if (!keep) continue;
    if (line[n - 1] != '\n') continue; /* a line cut by a crash */
    if ((e = write_all(out, line, (size_t)n)) != 0) break;
    *bytes += n;
  }
  free(line);
  return e;
}

int adi_history_open(const char *path, const char *header, long long keep_through, long long *bytes, char *msg,
                     size_t msglen)
{
  size_t n = strlen(path) + 5;
  char *tmp = malloc(n);
  int out = -1, e = 0, in_fd;
  struct stat st;
  *bytes = 0;
  if (!tmp) {
    snprintf(msg, msglen, "out of memory");
    return -1;
  }
  snprintf(tmp, n, "%s.tmp", path);
  adi_remove_stale(tmp);
  out = open(tmp, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (out < 0) {
    e = errno;
    snprintf(msg, msglen, "cannot write \"%s\": %s", tmp, strerror(e));
    free(tmp);
    return -1;
  }
  /* a restart keeps the old history (a regular file, never a link's target) */
  in_fd = keep_through >= 0 ? open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
  if (in_fd >= 0 && fstat(in_fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    FILE *in = fdopen(in_fd, "r");
    if (in) {
      e = copy_kept_lines(in, out, header, keep_through, bytes);
      fclose(in);
    } else {
      close(in_fd);
    }
  } else {
    if (in_fd >= 0) close(in_fd);
    e = write_all(out, header, strlen(header));
    if (!e) *bytes = (long long)strlen(header);
  }
  if (!e && rename(tmp, path) != 0) e = errno;
  if (e) {
    snprintf(msg, msglen, "writing \"%s\" failed: %s; the previous \"%s\" is kept", tmp, strerror(e), path);
    close(out);
    unlink(tmp);
    free(tmp);
    return -1;
  }
  free(tmp);
  return out;
}

int adi_history_append(int fd, const char *path, const char *line, long long *bytes, char *msg, size_t msglen)
{
  struct stat mine, named;
  size_t n = strlen(line);
  int e = write_all(fd, line, n);
  if (e) {
    snprintf(msg, msglen, "writing \"%s\" failed: %s (disk full or a file-size limit?); the last restart is kept",
             path, strerror(e));
    return e;
  }
  *bytes += (long long)n;
  if (fstat(fd, &mine) != 0 || lstat(path, &named) != 0 || mine.st_ino != named.st_ino ||
      mine.st_dev != named.st_dev || (long long)mine.st_size != *bytes) {
    snprintf(msg, msglen,
             "\"%s\" was changed by another program while this run was writing it (removed, replaced or written "
             "to; a second run in this folder whose lock was taken away?); the last restart is kept",
             path);
    return EBUSY;
  }
  return 0;
}

int adi_history_close(int fd, const char *path, char *msg, size_t msglen)
{
  if (fsync(fd) != 0 && errno != EINVAL) {
    snprintf(msg, msglen, "writing \"%s\" failed: %s; the last restart is kept", path, strerror(errno));
    close(fd);
    return -1;
  }
  if (close(fd) != 0) {
    snprintf(msg, msglen, "writing \"%s\" failed: %s; the last restart is kept", path, strerror(errno));
    return -1;
  }
  return 0;
}
