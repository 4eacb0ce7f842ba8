/* guard.h - defences against hostile input and failing output, shared by
 * wave2d, stencil3d and ooc2d: the host-memory pre-check, overflow-checked
 * sizes, regular-file checks for inputs, output files written safely
 * (temporary name, fsync, rename), mkdir -p without a shell, and the list of
 * the files a run wrote. The exit codes and the error exit are in fail.h. */
#ifndef GUARD_H
#define GUARD_H

#include <stddef.h>
#include <stdio.h>
#include "fail.h"     /* exit codes, mod_fail */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sizes and host memory ---- */
/* a*b into *r: 0, or -1 if it does not fit a size_t */
int guard_mul(size_t a, size_t b, size_t *r);
/* "48.0 GiB", "12.5 MiB", ... */
const char *guard_size_str(double bytes, char *buf, size_t n);
/* Host memory this process may still allocate: the least of MemAvailable
 * (/proc/meminfo) and the room under the RLIMIT_AS and RLIMIT_DATA soft limits;
 * -1 if none is known. `why` names the limit that decided. */
double guard_host_avail(char *why, size_t n);
/* 0 if `need` bytes fit, else -1 and "WHAT needs X GiB of host memory but only Y GiB are available (...)" */
int guard_host_check(double need, const char *what, char *err, size_t n);

/* ---- input files ---- */
/* Open a regular file for reading without ever blocking (a FIFO or device
 * given as the path is refused, not opened for a blocking read): NULL and
 * "cannot open WHAT 'PATH': ..." / "WHAT 'PATH' is not a regular file (it is
 * a directory)" in err. *size receives the file size. */
FILE *guard_open_regular(const char *path, const char *what, long long *size, char *err, size_t n);

/* ---- output ---- */
/* mkdir(2) for every component (like mkdir -p, no shell); an existing
 * component must be a directory. 0, or -1 with the path and strerror in err. */
int guard_mkdir_p(const char *path, char *err, size_t n);

#define GUARD_PATH 1024
/* An output file written as PATH.tmp-PID, then fflush + fsync + rename(2) over
 * PATH: a failure (full disk, ulimit -f, signal) leaves the previous PATH as it was. */
typedef struct GuardOut {
    FILE *f;
    int err;                       /* first errno of a failed write, sticky */
    char path[GUARD_PATH], tmp[GUARD_PATH + 32];
} GuardOut;
int  guard_out_open(GuardOut *o, const char *path, char *err, size_t n);
void guard_out_write(GuardOut *o, const void *p, size_t bytes);
void guard_out_printf(GuardOut *o, const char *fmt, ...) MOD_PRINTF(2, 3);
/* 0: PATH holds the new contents; -1: nothing changed, message in err */
int  guard_out_close(GuardOut *o, char *err, size_t n);
void guard_out_abort(GuardOut *o);
/* whole buffer to PATH through a GuardOut */
int  guard_write_file(const char *path, const void *data, size_t bytes, char *err, size_t n);

/* "outputs in 'DIR': a, b, c (3 files)" or "outputs: none (...)" on stdout;
 * the names are those guard_out_close completed in this process. */
void guard_print_outputs(const char *dir);

#ifdef __cplusplus
}
#endif
#endif
