/* File-system steps of the solver's outputs that must not lose data: the
 * commit of a finished temporary file over its final name, stale links and
 * old restart sets removed (fortran/safe_file.c). Opening an input file and
 * the file-kind words are the host library's (modules/common/host/host_file.h). */
#ifndef ADIFLOW_SAFE_FILE_H
#define ADIFLOW_SAFE_FILE_H

#include <stddef.h>

/* Check that tmp is a regular file of exactly expected bytes (expected < 0:
 * any size), fsync it, rename it over final, fsync the folder. 0 or errno,
 * with the reason in msg; on failure tmp is removed and final is untouched.
 * The size check is what catches a full disk behind a writer that does not
 * report it (gfortran's buffered writes lose ENOSPC). */
int adi_commit_file(const char *tmp, const char *final, long long expected, char *msg, size_t msglen);

/* A byte-for-byte copy of the regular file src at dst, written as
 * dst.tmp (a stale file or link there removed first, never followed) and
 * committed by adi_commit_file with src's size. 0 or errno, with the reason
 * in msg; on failure dst is untouched. For an output that equals a file
 * just written and checked (the final field.dump and restart.bin). */
int adi_copy_file(const char *src, const char *dst, char *msg, size_t msglen);

/* dst with the bytes of the regular file src (never a link) at no cost in
 * bytes: a second name of src's file (a hard link made as dst.tmp and
 * committed by adi_commit_file), or, where the file system has no hard
 * links, adi_copy_file's copy. For an output that equals a file just written
 * and checked (the final field.dump and restart.bin): a later restart is a
 * new file renamed over src, so the two names part then. 0 or errno, the
 * reason in msg; on failure dst is untouched. */
int adi_link_or_copy_file(const char *src, const char *dst, char *msg, size_t msglen);

/* Ask the kernel to start writing path's cached pages to the disk, without
 * waiting (Linux's sync_file_range): a writer calls it on a finished part
 * of a large file and goes on, so that the commit's fsync waits for less.
 * A hint only: nothing happens on other systems or when it fails. */
void adi_start_writeback(const char *path);

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
/* The same for build/adiflow's restart sets of a multi-block grid
 * (fortran/run_files_blocks.f90): restart.bNNNNN.itM.bin, one file per
 * block, and the index restart.blocks; one process removes them all. */
int adi_remove_old_block_restarts(const char *dir, long long keep, char *msg, size_t msglen);

#endif
