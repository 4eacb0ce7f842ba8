/* File-system steps that must not lose data: a regular-file check that never
 * blocks on a FIFO, and the commit of a finished temporary file over its final
 * name (fortran/safe_file.c). */
#ifndef ADIFLOW_SAFE_FILE_H
#define ADIFLOW_SAFE_FILE_H

#include <stddef.h>

/* 0 if path names a regular file; otherwise an errno-like code and a reason
 * in msg ("does not exist", "is a directory", "is a FIFO", ...). */
int adi_check_regular_file(const char *path, char *msg, size_t msglen);

/* fsync tmp, rename it over final, fsync the folder. 0 or errno, with the
 * reason in msg; on failure tmp is removed and final is untouched. */
int adi_commit_file(const char *tmp, const char *final, char *msg, size_t msglen);

#endif
