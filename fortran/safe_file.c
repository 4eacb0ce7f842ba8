/* See safe_file.h. */
#define _POSIX_C_SOURCE 200809L
#include "safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int adi_check_regular_file(const char *path, char *msg, size_t msglen)
{
  struct stat st;
  if (stat(path, &st) != 0) {
    int e = errno;
    snprintf(msg, msglen, "\"%s\" %s", path, e == ENOENT ? "does not exist" : strerror(e));
    return e;
  }
  if (S_ISREG(st.st_mode)) return 0;
  snprintf(msg, msglen, "\"%s\" is %s, not a regular file", path,
           S_ISDIR(st.st_mode)    ? "a directory"
           : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
           : S_ISCHR(st.st_mode)  ? "a character device"
           : S_ISBLK(st.st_mode)  ? "a block device"
           : S_ISSOCK(st.st_mode) ? "a socket"
                                  : "a special file");
  return EINVAL;
}

/* The folder part of path ("." when there is none), for its fsync. */
static void folder_of(const char *path, char *dir, size_t len)
{
  const char *slash = strrchr(path, '/');
  if (!slash) {
    snprintf(dir, len, ".");
  } else if (slash == path) {
    snprintf(dir, len, "/");
  } else {
    size_t n = (size_t)(slash - path);
    if (n >= len) n = len - 1;
    memcpy(dir, path, n);
    dir[n] = '\0';
  }
}

long long adi_file_size(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

void adi_remove_stale(const char *path)
{
  struct stat st;
  if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode)) unlink(path);
}

int adi_commit_file(const char *tmp, const char *final, long long expected, char *msg, size_t msglen)
{
  struct stat st;
  int fd = open(tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), e = 0;
  if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
    close(fd);
    snprintf(msg, msglen, "\"%s\" is not a regular file", tmp);
    return EINVAL;
  }
  if (fd >= 0 && expected >= 0 && (long long)st.st_size != expected) {
    close(fd);
    snprintf(msg, msglen, "writing \"%s\" failed: %lld of %lld bytes reached the disk (disk full or a file-size limit?)",
             tmp, (long long)st.st_size, expected);
    unlink(tmp);
    return ENOSPC;
  }
  if (fd < 0) {
    e = errno;
    snprintf(msg, msglen, "cannot reopen \"%s\": %s", tmp, strerror(e));
    unlink(tmp);
    return e;
  }
  /* some file systems (NFS, quotas) report a full disk only here */
  if (fsync(fd) != 0 && errno != EINVAL) e = errno;
  if (close(fd) != 0 && !e) e = errno;
  if (e) {
    snprintf(msg, msglen, "writing \"%s\" failed: %s", tmp, strerror(e));
    unlink(tmp);
    return e;
  }
  if (rename(tmp, final) != 0) {
    e = errno;
    snprintf(msg, msglen, "cannot rename \"%s\" to \"%s\": %s", tmp, final, strerror(e));
    unlink(tmp);
    return e;
  }
  /* make the rename itself durable: a crash now keeps the new file */
  {
    char *dir = malloc(strlen(final) + 2);
    if (dir) {
      folder_of(final, dir, strlen(final) + 2);
      fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
      }
      free(dir);
    }
  }
  return 0;
}
