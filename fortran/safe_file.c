/* See safe_file.h. */
#if defined(__linux__)
#define _GNU_SOURCE   /* sync_file_range */
#else
#define _POSIX_C_SOURCE 200809L
#endif
#include "safe_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* "dst.tmp" (malloc'd; NULL when out of memory), a stale file or link of
 * that name removed, never followed: where a second name or a copy of an
 * output is made before its commit. */
static char *fresh_tmp_of(const char *dst)
{
  char *tmp = malloc(strlen(dst) + 5);
  if (tmp != NULL) {
    sprintf(tmp, "%s.tmp", dst);
    adi_remove_stale(tmp);
  }
  return tmp;
}

int adi_copy_file(const char *src, const char *dst, char *msg, size_t msglen)
{
  enum { CHUNK = 4 << 20 };
  struct stat st;
  char *tmp = NULL, *buf = NULL;
  int in, out = -1, e = 0;
  in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (in < 0 || fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
    e = in < 0 ? errno : EINVAL;
    snprintf(msg, msglen, "cannot copy \"%s\": %s", src, in < 0 ? strerror(e) : "not a regular file");
    if (in >= 0) close(in);
    return e;
  }
  tmp = fresh_tmp_of(dst);
  buf = malloc(CHUNK);
  if (tmp == NULL || buf == NULL) {
    snprintf(msg, msglen, "out of memory copying \"%s\" to \"%s\"", src, dst);
    e = ENOMEM;
    goto done;
  }
  out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (out < 0) {
    e = errno;
    snprintf(msg, msglen, "cannot write \"%s\": %s; the previous \"%s\" is kept", tmp, strerror(e), dst);
    goto done;
  }
  for (;;) {
    ssize_t got = read(in, buf, CHUNK), put = 0;
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) { e = errno; break; }
    if (got == 0) break;
    while (put < got) {
      ssize_t w = write(out, buf + put, (size_t)(got - put));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) { e = w < 0 ? errno : EIO; break; }
      put += w;
    }
    if (e) break;
  }
  if (!e) adi_start_writeback(tmp);
  if (close(out) != 0 && !e) e = errno;
  out = -1;
  if (e) {
    snprintf(msg, msglen, "copying \"%s\" to \"%s\" failed: %s; the previous \"%s\" is kept", src, tmp, strerror(e),
             dst);
    unlink(tmp);
    goto done;
  }
  e = adi_commit_file(tmp, dst, (long long)st.st_size, msg, msglen);
done:
  close(in);
  free(buf);
  free(tmp);
  return e;
}

void adi_start_writeback(const char *path)
{
#if defined(__linux__)
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    (void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    close(fd);
  }
#else
  (void)path;
#endif
}

int adi_link_or_copy_file(const char *src, const char *dst, char *msg, size_t msglen)
{
  struct stat st;
  char *tmp;
  int e;
  if (lstat(src, &st) != 0) {
    e = errno;
    snprintf(msg, msglen, "cannot copy \"%s\": %s", src, strerror(e));
    return e;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(msg, msglen, "cannot copy \"%s\": not a regular file", src);
    return EINVAL;
  }
  tmp = fresh_tmp_of(dst);
  if (tmp == NULL) {
    snprintf(msg, msglen, "out of memory copying \"%s\" to \"%s\"", src, dst);
    return ENOMEM;
  }
  /* src was synced by its own commit: the new name needs no data sync, only
   * the commit's (size check, rename, the folder's sync) */
  if (link(src, tmp) == 0) {
    e = adi_commit_file(tmp, dst, (long long)st.st_size, msg, msglen);
  } else {
    /* a file system without hard links (or a full link count): the bytes */
    e = adi_copy_file(src, dst, msg, msglen);
  }
  free(tmp);
  return e;
}

/* n decimal digits at s (1 <= n <= 18, so the value fits): the value, and
 * the first character after them in *end; -1 when s holds no digit. */
static long long digits_at(const char *s, const char **end, int *n)
{
  long long v = 0;
  *n = 0;
  while (*s >= '0' && *s <= '9' && *n < 19) {
    v = 10 * v + (*s - '0');
    s++;
    (*n)++;
  }
  *end = s;
  return (*n == 0 || *n > 18) ? -1 : v;
}

/* Is name a rank file of adiflow_mpi's restart sets, as rank_file in
 * fortran/adiflow_mpi.f90 names them: restart.rNNNNN.itM.bin (format 2; the
 * rank in at least 5 digits, M without leading zeros), restart.rNNNNN.bin
 * (format 1), either with .tmp after it? Then 1, with the rank, M (-1 for
 * format 1) and whether it is a temporary; anything else 0. */
static int restart_rank_name(const char *name, char kind, long long *rank, long long *iter, int *tmp)
{
  const char *p;
  int n;
  if (strncmp(name, "restart.", 8) != 0 || name[8] != kind) return 0;
  *rank = digits_at(name + 9, &p, &n);
  if (*rank < 0 || n < 5) return 0;
  *iter = -1;
  if (strncmp(p, ".it", 3) == 0) {
    *iter = digits_at(p + 3, &p, &n);
    if (*iter < 0 || (n > 1 && p[-n] == '0')) return 0;
  }
  if (strcmp(p, ".bin") == 0) {
    *tmp = 0;
    return 1;
  }
  if (strcmp(p, ".bin.tmp") == 0) {
    *tmp = 1;
    return 1;
  }
  return 0;
}

/* kind 'r': the rank files of adiflow_mpi, whose index restart.decomp
 * rank 0 writes; 'b': the block files of a multi-block run, one process. */
static int remove_old_sets(const char *dir, char kind, long long keep, int rank, int nranks, char *msg, size_t msglen)
{
  const char *index_tmp = kind == 'r' ? "restart.decomp.tmp" : "restart.blocks.tmp";
  int failed = 0;
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
  if (!d) {
    snprintf(msg, msglen, "cannot list \"%s\": %s", dir, strerror(errno));
    if (dfd >= 0) close(dfd);
    return 1;
  }
  for (;;) {
    struct dirent *e;
    struct stat st;
    long long r, it;
    int tmp, mine;
    errno = 0;
    e = readdir(d);
    if (!e) break;
    if (strcmp(e->d_name, index_tmp) == 0) {
      mine = rank == 0;   /* rank 0 writes the index */
    } else if (restart_rank_name(e->d_name, kind, &r, &it, &tmp)) {
      /* each rank the files of its rank numbers (those of a run on more
       * ranks included), so that none removes a file another is writing */
      mine = r % nranks == rank && (tmp || it != keep);
    } else {
      mine = 0;
    }
    if (!mine) continue;
    /* a link is removed itself, never followed; a folder or special file
     * of that name is not this program's: left alone */
    if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) continue;
    if (unlinkat(dfd, e->d_name, 0) != 0 && errno != ENOENT) {
      if (!failed) snprintf(msg, msglen, "cannot remove \"%s/%s\": %s", dir, e->d_name, strerror(errno));
      failed++;
    }
  }
  closedir(d);
  return failed;
}

int adi_remove_old_restart_sets(const char *dir, long long keep, int rank, int nranks, char *msg, size_t msglen)
{
  return remove_old_sets(dir, 'r', keep, rank, nranks, msg, msglen);
}

int adi_remove_old_block_restarts(const char *dir, long long keep, char *msg, size_t msglen)
{
  return remove_old_sets(dir, 'b', keep, 0, 1, msg, msglen);
}
