/* File-system steps that must not lose data: a regular-file check that never
 * blocks on a FIFO, and the commit of a finished temporary file over its final
 * name (fortran/safe_file.c). */
#ifndef ADIFLOW_SAFE_FILE_H
#define ADIFLOW_SAFE_FILE_H

#include <stddef.h>

/* "a directory", "a FIFO (named pipe)", "a character device", ... for an
 * st_mode: the one wording of every message about a file of the wrong kind. */
const char *adi_file_kind(unsigned mode);

/* 0 if path names a regular file; otherwise an errno-like code and a reason
 * in msg ("does not exist", "is a directory", "is a FIFO", ...). */
int adi_check_regular_file(const char *path, char *msg, size_t msglen);

/* Check that tmp is a regular file of exactly expected bytes (expected < 0:
 * any size), fsync it, rename it over final, fsync the folder. 0 or errno,
 * with the reason in msg; on failure tmp is removed and final is untouched.
 * The size check is what catches a full disk behind a writer that does not
 * report it (gfortran's buffered writes lose ENOSPC). */
int adi_commit_file(const char *tmp, const char *final, long long expected, char *msg, size_t msglen);

/* The size of path in bytes, or -1. */
long long adi_file_size(const char *path);

/* Remove a stale path (a file or a link left by an earlier crash) before a
 * writer creates it afresh, so that a link is never followed. */
void adi_remove_stale(const char *path);

/* adiflow_mpi's restart sets in dir, once the index names the set of
 * iteration keep: removes the rank files of every other set
 * (restart.rNNNNN.itM.bin with M != keep, and format 1's restart.rNNNNN.bin)
 * and every restart.rNNNNN...bin.tmp and restart.decomp.tmp left by a crash,
 * those of the rank numbers r with r % nranks == rank (rank 0 also the
 * index's). Only names of that pattern, only regular files and links (a
 * link itself, never what it points to). The number of files it could not
 * remove, the first one's reason in msg. */
int adi_remove_old_restart_sets(const char *dir, long long keep, int rank, int nranks, char *msg, size_t msglen);

#endif
