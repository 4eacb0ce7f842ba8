/* check.h - the harness of the C unit tests of wave, stencil3d and ooc:
 * check() prints one "PASS name: ..." or "FAIL name: ..." line per check,
 * check_summary() the last line "N passed, M failed" (what run_tests.sh
 * parses) and gives the exit status. A test binary links the module's files
 * but no main.c; their error exit is mod_fail of the common library. */
#ifndef CHECK_H
#define CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int npass, nfail;

static inline void check(int ok, const char *name, const char *fmt, ...)
{
    va_list ap; va_start(ap, fmt);
    printf("%s %s: ", ok ? "PASS" : "FAIL", name);
    vprintf(fmt, ap); printf("\n"); fflush(stdout);
    va_end(ap);
    if (ok) npass++; else nfail++;
}

static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
}

#endif
