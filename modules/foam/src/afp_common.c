/* afp_common.c - the error message of the last failure, the clock and the
 * hash shared by the CPU and GPU paths (see afp.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "afp.h"

static _Thread_local char g_err[2048];

const char *afp_error(void) { return g_err; }

int afp_set_error(const char *file, int line, const char *fmt, ...)
{
    const char *base = strrchr(file, '/');
    int k = snprintf(g_err, sizeof g_err, "%s:%d: ", base ? base + 1 : file, line);
    if (k < 0 || (size_t)k >= sizeof g_err) k = 0;
    va_list ap; va_start(ap, fmt);
    vsnprintf(g_err + k, sizeof g_err - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

double afp_wtime(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

uint64_t afp_hash(uint64_t h, const void *p, size_t n)
{
    /* FNV-1a over 8-byte words (a byte-wise tail), enough to notice a change */
    const unsigned char *b = (const unsigned char *)p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w; memcpy(&w, b + i, 8);
        h ^= w; h *= 1099511628211ULL;
    }
    for (; i < n; i++) { h ^= b[i]; h *= 1099511628211ULL; }
    return h;
}
