/* The run's history files (residual.dat, forces.dat), written through a
 * descriptor of our own instead of a Fortran unit, because:
 *  - it is opened without following a link (a Fortran OPEN with
 *    status='replace' or 'old' follows one planted in the run folder);
 *  - every line's write(2) is checked (gfortran's buffered writes lose ENOSPC);
 *  - after every line the file is checked to be still ours and as long as we
 *    wrote it, so that a file changed under the run is named as such;
 *  - a restarted run keeps the history up to its restart's iteration only,
 *    so that iterations redone after a kill are not listed twice, and only
 *    under the same header, so that no line stands under other columns.
 * Called through fortran/history_log.f90. */
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

/* Copy the lines of iterations <= keep_through from the old history (an fd
 * opened without following links) to the new one, whose header is written
 * already. The old lines are kept only under the same header (its leading
 * '#' lines), since under another one (a history of other columns: another
 * set of patches, another version) they would not match the new columns;
 * a history without any header line keeps its lines. *dropped: the old
 * lines were not kept for that reason. */
static int copy_kept_lines(FILE *in, int out, const char *header, long long keep_through, long long *bytes,
                           int *dropped)
{
  char *line = NULL;
  size_t cap = 0, seen = 0, hlen = strlen(header);
  ssize_t n;
  int e = 0, in_header = 1, same = 1;
  *dropped = 0;
  while ((n = getline(&line, &cap, in)) > 0) {
    if (in_header && line[0] == '#') {
      same = same && seen + (size_t)n <= hlen && memcmp(header + seen, line, (size_t)n) == 0;
      seen += (size_t)n;
      continue;
    }
    if (in_header) { /* the header has ended: it must have been the new one, or none */
      in_header = 0;
      if (seen > 0 && !(same && seen == hlen)) {
        *dropped = 1;
        break;
      }
    }
    long long it = line_iteration(line);
    if (!(it >= 0 && it <= keep_through)) continue;
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
  int out = -1, e = 0, in_fd, dropped = 0;
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
  e = write_all(out, header, strlen(header));
  if (!e) *bytes = (long long)strlen(header);
  /* a restart keeps the old history (a regular file, never a link's target) */
  in_fd = keep_through >= 0 ? open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
  if (!e && in_fd >= 0 && fstat(in_fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    FILE *in = fdopen(in_fd, "r");
    if (in) {
      e = copy_kept_lines(in, out, header, keep_through, bytes, &dropped);
      fclose(in);
    } else {
      close(in_fd);
    }
  } else if (in_fd >= 0) {
    close(in_fd);
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
  /* the lines of another header are gone: said, not an error */
  if (dropped)
    snprintf(msg, msglen, "\"%s\" had other columns (another header); its lines before the restart were not kept",
             path);
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
