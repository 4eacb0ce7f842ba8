/* host_file.c - see host_file.h. POSIX calls only. */
#define _POSIX_C_SOURCE 200809L
#include "host_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *adi_file_kind(unsigned mode)
{
  return S_ISREG(mode)    ? "a regular file"
         : S_ISDIR(mode)  ? "a directory"
         : S_ISFIFO(mode) ? "a FIFO (named pipe)"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
         : S_ISLNK(mode)  ? "a symbolic link"
                          : "a special file";
}

static int failed(adi_open_status *st, adi_open_step step, int err, unsigned mode)
{
  st->step = step;
  st->err = err;
  st->mode = mode;
  return -1;
}

int adi_open_regular(const char *path, adi_open_status *st)
{
  struct stat sb;
  int fd, fl;
  memset(st, 0, sizeof *st);
  /* stat first: opening a FIFO for reading would block until a writer appears */
  if (stat(path, &sb) != 0) return failed(st, ADI_OPEN_STAT, errno, 0);
  if (!S_ISREG(sb.st_mode)) return failed(st, ADI_OPEN_KIND, 0, (unsigned)sb.st_mode);
  /* O_NONBLOCK: the path may have been replaced by a FIFO since the stat */
  fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return failed(st, ADI_OPEN_OPEN, errno, 0);
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    return failed(st, ADI_OPEN_CHANGED, 0, 0);
  }
  fl = fcntl(fd, F_GETFL);
  if (fl != -1) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  st->size = (long long)sb.st_size;
  return fd;
}

FILE *adi_fopen_regular(const char *path, adi_open_status *st)
{
  FILE *f;
  int fd = adi_open_regular(path, st);
  if (fd < 0) return NULL;
  f = fdopen(fd, "rb");
  if (!f) {
    failed(st, ADI_OPEN_STREAM, errno, 0);
    close(fd);
  }
  return f;
}

void adi_open_message(const char *path, const adi_open_status *st, char *msg, size_t msglen)
{
  switch (st->step) {
  case ADI_OPEN_OK: snprintf(msg, msglen, "\"%s\" is a regular file", path); break;
  case ADI_OPEN_STAT:
    snprintf(msg, msglen, "\"%s\" %s", path, st->err == ENOENT ? "does not exist" : strerror(st->err));
    break;
  case ADI_OPEN_KIND: snprintf(msg, msglen, "\"%s\" is %s, not a regular file", path, adi_file_kind(st->mode)); break;
  case ADI_OPEN_CHANGED: snprintf(msg, msglen, "\"%s\" is not a regular file", path); break;
  case ADI_OPEN_OPEN:
  case ADI_OPEN_STREAM: snprintf(msg, msglen, "cannot open \"%s\": %s", path, strerror(st->err)); break;
  }
}

int adi_open_errno(const adi_open_status *st)
{
  return st->step == ADI_OPEN_KIND || st->step == ADI_OPEN_CHANGED ? EINVAL : st->err;
}

int adi_check_regular_file(const char *path, char *msg, size_t msglen)
{
  struct stat sb;
  adi_open_status st;
  memset(&st, 0, sizeof st);
  if (stat(path, &sb) != 0) {
    failed(&st, ADI_OPEN_STAT, errno, 0);
  } else if (!S_ISREG(sb.st_mode)) {
    failed(&st, ADI_OPEN_KIND, 0, (unsigned)sb.st_mode);
  } else {
    return 0;
  }
  adi_open_message(path, &st, msg, msglen);
  return adi_open_errno(&st);
}
