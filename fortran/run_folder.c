/* The run folder's safety, before a run writes anything into it: who owns it
 * and who else may write in it, the lock that keeps a second run out, and a
 * check that every output name can be replaced at the end. Called through
 * fortran/sys_interface.f90.
 *
 * Why the folder's owner and mode matter: every output is written as
 * NAME.tmp (created with O_EXCL, so a planted link is never followed) and
 * renamed over NAME. In a folder that another user may write in without the
 * sticky bit, that user could swap NAME.tmp between our write and our rename,
 * or replace a finished file; in a folder another user owns, the owner can do
 * anything. So the run refuses both, unless the folder is ours and sticky
 * (then others cannot remove or rename our files, as in /tmp). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_file.h"
#include "safe_file.h"

static const char LOCK_NAME[] = ".adiflow.lock";

/* DIR/NAME in a new buffer (NULL when out of memory). */
static char *join(const char *dir, const char *name)
{
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", dir, name);
  return p;
}

/* 0 if the folder (open as dfd) may hold this run's outputs: owned by us,
 * and writable by nobody else unless it is sticky. */
static int check_owner_and_mode(int dfd, const char *dir, char *msg, size_t msglen)
{
  struct stat st;
  if (fstat(dfd, &st) != 0) {
    snprintf(msg, msglen, "cannot inspect the run folder \"%s\": %s", dir, strerror(errno));
    return errno;
  }
  if (st.st_uid != geteuid()) {
    snprintf(msg, msglen,
             "the run folder \"%s\" belongs to another user (uid %ld, this run is uid %ld): its owner could "
             "replace this run's files; choose a folder of your own with --run-dir",
             dir, (long)st.st_uid, (long)geteuid());
    return EPERM;
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
    snprintf(msg, msglen,
             "the run folder \"%s\" is writable by %s (mode %04o) without the sticky bit: another user could "
             "replace this run's files; run \"chmod go-w\" (or \"chmod +t\") on it, or choose another --run-dir",
             dir, (st.st_mode & S_IWOTH) ? "every user" : "its group", (unsigned)(st.st_mode & 07777));
    return EPERM;
  }
  return 0;
}

/* The pid of the run that holds the folder, from its lock file (never
 * following a link), or "unknown". */
static void read_holder(int dfd, char *buf, size_t len)
{
  int fd = openat(dfd, LOCK_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  ssize_t got = -1;
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) got = pread(fd, buf, len - 1, 0);
  if (fd >= 0) close(fd);
  buf[got > 0 ? got : 0] = '\0';
  buf[strcspn(buf, "\n")] = '\0';
  if (!buf[0]) snprintf(buf, len, "unknown");
}

/* Write DIR/.adiflow.lock (our pid, for the message a second run prints) as
 * a new file renamed into place: this also proves, at the start, that the
 * folder takes new files and renames, which every output needs at the end. */
static int write_pid_file(const char *dir, char *msg, size_t msglen)
{
  char *tmp = join(dir, ".adiflow.lock.tmp"), *final = join(dir, LOCK_NAME), pid[32];
  int fd, e = 0;
  struct stat st;
  if (!tmp || !final) {
    free(tmp);
    free(final);
    snprintf(msg, msglen, "out of memory");
    return ENOMEM;
  }
  if (lstat(final, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(msg, msglen, "\"%s\" is a folder, where adiflow keeps its lock file: remove it", final);
    e = EISDIR;
    goto done;
  }
  adi_remove_stale(tmp);
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    e = errno;
    snprintf(msg, msglen, "cannot write in the run folder \"%s\": %s", dir, strerror(e));
    goto done;
  }
  snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
  errno = 0;
  if (write(fd, pid, strlen(pid)) != (ssize_t)strlen(pid)) e = errno ? errno : ENOSPC;
  if (close(fd) != 0 && !e) e = errno;
  if (!e && rename(tmp, final) != 0) e = errno;
  if (e) unlink(tmp);
  /* A full disk or quota is not the folder's fault: the pid is only for a
   * second run's message, and the outputs report their own failed writes
   * (exit 5, the previous files kept). */
  if (e == ENOSPC || e == EDQUOT || e == EFBIG) e = 0;
  if (e) snprintf(msg, msglen, "cannot write in the run folder \"%s\": %s", dir, strerror(e));
done:
  free(tmp);
  free(final);
  return e;
}

int adi_lock_run_dir(const char *dir, char *msg, size_t msglen)
{
  char holder[32];
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e;
  if (dfd < 0) {
    snprintf(msg, msglen, "cannot open the run folder \"%s\": %s", dir, strerror(errno));
    return -1;
  }
  if (check_owner_and_mode(dfd, dir, msg, msglen) != 0) {
    close(dfd);
    return -1;
  }
  /* The lock is on the folder itself, which cannot be unlinked while it holds
   * files: deleting the lock file no longer lets a second run in. The kernel
   * drops it when the process ends, also after kill -9. */
  if (flock(dfd, LOCK_EX | LOCK_NB) != 0) {
    e = errno;
    if (e == EWOULDBLOCK) {
      read_holder(dfd, holder, sizeof holder);
      snprintf(msg, msglen,
               "another run (pid %s) is using the run folder \"%s\"; wait for it to end or choose another --run-dir",
               holder, dir);
    } else {
      snprintf(msg, msglen, "cannot lock the run folder \"%s\": %s", dir, strerror(e));
    }
    close(dfd);
    return -1;
  }
  if (write_pid_file(dir, msg, msglen) != 0) {
    close(dfd);
    return -1;
  }
  return dfd;
}

int adi_check_output_slot(const char *path, char *msg, size_t msglen)
{
  struct stat st;
  if (lstat(path, &st) != 0) return 0; /* absent: created at the end */
  if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) return 0; /* replaced by rename, a link never followed */
  snprintf(msg, msglen, "\"%s\" is %s: this run could not replace it with its output at the end; remove it first",
           path, adi_file_kind(st.st_mode));
  return EEXIST;
}
