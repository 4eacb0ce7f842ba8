/* fail.c - see fail.h: program name, error exit, signals. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include "fail.h"

static const char *g_prog = "adiflow";
static void (*g_exit)(int code);
/* the temporary output file being written, removed by a signal or an error exit */
static char g_tmp[2048];
static volatile sig_atomic_t g_tmp_on;

/* async-signal-safe: write(2) of a C string */
static void put_err(const char *s)
{
    size_t L = 0;
    while (s[L]) L++;
    while (L > 0) {
        ssize_t w = write(2, s, L);
        if (w <= 0) return;
        s += w; L -= (size_t)w;
    }
}

static void on_signal(int sig)
{
    if (g_tmp_on) unlink(g_tmp);
    put_err(g_prog);
    put_err(sig == SIGINT ? ": interrupted by SIGINT" : ": interrupted by SIGTERM");
    put_err("; stopped (no partial output file is left behind)\n");
    signal(sig, SIG_DFL);   /* die of the signal, so the parent sees 128 + sig */
    raise(sig);
}

void mod_init(const char *prog)
{
    g_prog = prog;
    /* without this, exceeding `ulimit -f` kills the process silently; ignored, write() fails with EFBIG */
    signal(SIGXFSZ, SIG_IGN);
    const int sigs[2] = { SIGINT, SIGTERM };
    for (int i = 0; i < 2; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) || old.sa_handler == SIG_IGN) continue;   /* nohup & co: stay ignored */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

const char *mod_prog(void) { return g_prog; }
void mod_set_exit(void (*fn)(int code)) { g_exit = fn; }

void mod_pending_file(const char *tmp)
{
    g_tmp_on = 0;   /* registered before the file exists, so that a signal at any moment removes it */
    if (!tmp) return;
    snprintf(g_tmp, sizeof g_tmp, "%s", tmp);
    g_tmp_on = 1;
}

void mod_vfail(int code, const char *fmt, va_list ap)
{
    fflush(stdout);
    fprintf(stderr, "%s: error: ", g_prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
    if (g_tmp_on) { unlink(g_tmp); g_tmp_on = 0; }
    if (g_exit) g_exit(code);
    exit(code);
}

void mod_fail(int code, const char *fmt, ...)
{
    va_list ap; va_start(ap, fmt);
    mod_vfail(code, fmt, ap);
}

void mod_finish_stdout(void)
{
    errno = 0;
    if (fflush(stdout) || ferror(stdout)) {
        int e = errno ? errno : EIO;
        fprintf(stderr, "%s: error: cannot write the standard output: %s\n", g_prog, strerror(e));
        exit(RC_OUTPUT);
    }
}
