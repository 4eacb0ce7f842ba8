/* host_file.h - opening an input file safely, and the one wording of a
 * file's kind: the host library's file part, shared by the solver's C
 * services (fortran/), the module programs (modules/common) and the tools
 * (validation/). Each caller keeps its own message frame (the hostile-input
 * suites guard them); the steps and the kind words are the same for all. */
#ifndef ADIFLOW_HOST_FILE_H
#define ADIFLOW_HOST_FILE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "a directory", "a FIFO (named pipe)", "a character device", ... for an
 * st_mode: the one wording of every message about a file of the wrong kind. */
const char *adi_file_kind(unsigned mode);

/* The step at which adi_open_regular stopped. */
typedef enum {
  ADI_OPEN_OK = 0,
  ADI_OPEN_STAT,    /* stat(path) failed: errno in err (ENOENT: it does not exist) */
  ADI_OPEN_KIND,    /* not a regular file: its st_mode in mode (adi_file_kind) */
  ADI_OPEN_OPEN,    /* open(2) failed: errno in err */
  ADI_OPEN_CHANGED, /* opened, but no longer a regular file: replaced after the stat */
  ADI_OPEN_STREAM   /* fdopen failed (adi_fopen_regular): errno in err */
} adi_open_step;

typedef struct {
  adi_open_step step;
  int err;          /* errno of the failed call (STAT, OPEN, STREAM) */
  unsigned mode;    /* st_mode (KIND) */
  long long size;   /* the file's size in bytes (OK) */
} adi_open_status;

/* Opens path for reading only if it is a regular file, never blocking: stat
 * first (a FIFO or a device named as the input is refused, not opened for a
 * blocking read), then open with O_NONBLOCK (a FIFO swapped in after the stat
 * cannot hang the caller) and check the opened file again with fstat; the
 * descriptor returned is blocking again, close-on-exec. -1 on failure, the
 * step and its errno or st_mode in *st. */
int adi_open_regular(const char *path, adi_open_status *st);

/* The same, as a "rb" stream (NULL on failure). */
FILE *adi_fopen_regular(const char *path, adi_open_status *st);

/* The solver's wording of a failed step, with the path in double quotes:
 *   "PATH" does not exist | "PATH" <strerror> | "PATH" is <kind>, not a
 *   regular file | cannot open "PATH": <strerror> | "PATH" is not a regular file */
void adi_open_message(const char *path, const adi_open_status *st, char *msg, size_t msglen);

/* The errno-like code of a failed step: its errno, EINVAL for a file of the
 * wrong kind. */
int adi_open_errno(const adi_open_status *st);

/* 0 if path names a regular file (stat only, nothing is opened); otherwise
 * an errno-like code and adi_open_message's reason in msg. */
int adi_check_regular_file(const char *path, char *msg, size_t msglen);

#ifdef __cplusplus
}
#endif
#endif
