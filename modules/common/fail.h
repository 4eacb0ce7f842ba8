/* fail.h - error reporting of the module programs (wave2d, stencil3d, ooc2d):
 * the documented exit codes, the program name set once by each main, the one
 * error exit mod_fail that every file of a module calls (no module file calls
 * back into its own main.c), signals, and the final check of stdout. */
#ifndef MOD_FAIL_H
#define MOD_FAIL_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes of the module programs (each module README documents them).
 * A run stopped by SIGINT / SIGTERM dies of that signal (shell status 130 / 143). */
enum {
    RC_OK = 0,        /* success */
    RC_MISMATCH = 1,  /* the run finished but a result check failed (verify, bit-identity) */
    RC_INPUT = 2,     /* bad case file, flag or value; nothing was computed */
    RC_MEMORY = 3,    /* not enough host memory for the requested sizes */
    RC_DEVICE = 4,    /* GPU, MPI or (emulated) device error, or an internal error */
    RC_OUTPUT = 5     /* an output directory or file could not be written */
};

#ifdef __GNUC__
#define MOD_NORETURN __attribute__((noreturn))
#define MOD_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define MOD_NORETURN
#define MOD_PRINTF(a, b)
#endif

/* At the start of main: the program name for messages; SIGXFSZ ignored (so an
 * exceeded `ulimit -f` is a write error, EFBIG, that is reported); SIGINT and
 * SIGTERM remove a half-written temporary output file before the process dies. */
void mod_init(const char *prog);
const char *mod_prog(void);
/* called instead of exit(code) by mod_fail, e.g. MPI_Abort under MPI */
void mod_set_exit(void (*fn)(int code));
/* flush stdout, print "PROG: error: MESSAGE" on stderr, remove a pending temporary file, exit code */
void mod_vfail(int code, const char *fmt, va_list ap) MOD_NORETURN;
void mod_fail(int code, const char *fmt, ...) MOD_NORETURN MOD_PRINTF(2, 3);
/* at the end of main: stdout must have reached its destination (e.g. not
 * /dev/full); else a message and exit RC_OUTPUT. */
void mod_finish_stdout(void);

/* The temporary output file being written (guard.c), removed by a signal or
 * by mod_fail; NULL: none. */
void mod_pending_file(const char *tmp);

#ifdef __cplusplus
}
#endif
#endif
