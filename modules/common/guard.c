/* guard.c - see guard.h: host-memory pre-check, safe input and output files,
 * in the modules' words over the host library (modules/common/host/: the opening of an
 * input file, the file-kind words, the host memory). POSIX calls only;
 * nothing here runs a shell. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "guard.h"
#include "host_file.h"
#include "host_memory.h"

/* a path as it may appear in a message (hostile paths can be kilobytes long) */
static const char *shown(const char *p, char *buf, size_t n)
{
    size_t L = strlen(p);
    if (L < 200) return p;
    snprintf(buf, n, "%.100s...%s (%zu characters)", p, p + L - 60, L);
    return buf;
}

/* ---- sizes and host memory ---- */

int guard_mul(size_t a, size_t b, size_t *r)
{
    if (b && a > SIZE_MAX / b) return -1;
    *r = a * b;
    return 0;
}

const char *guard_size_str(double b, char *buf, size_t n)
{
    const double K = 1024.0;
    if (b >= K * K * K * K) snprintf(buf, n, "%.1f TiB", b / (K * K * K * K));
    else if (b >= K * K * K) snprintf(buf, n, "%.1f GiB", b / (K * K * K));
    else if (b >= K * K) snprintf(buf, n, "%.1f MiB", b / (K * K));
    else if (b >= K) snprintf(buf, n, "%.1f KiB", b / K);
    else snprintf(buf, n, "%.0f bytes", b);
    return buf;
}

double guard_host_avail(char *why, size_t n)
{
    adi_host_memory_room room = adi_host_memory();
    char b[32];
    switch (room.bound) {
    case ADI_MEM_UNKNOWN: break;
    case ADI_MEM_AVAILABLE: snprintf(why, n, "MemAvailable in /proc/meminfo"); break;
    case ADI_MEM_RLIMIT_AS:
        snprintf(why, n, "address-space limit RLIMIT_AS of %s, ulimit -v", guard_size_str((double)room.limit, b, sizeof b)); break;
    case ADI_MEM_RLIMIT_DATA:
        snprintf(why, n, "data-segment limit RLIMIT_DATA of %s, ulimit -d", guard_size_str((double)room.limit, b, sizeof b)); break;
    }
    return (double)room.bytes;
}

int guard_host_check(double need, const char *what, char *err, size_t n)
{
    char why[160] = "", b1[32], b2[32];
    if (!(need < (double)(SIZE_MAX / 4))) {
        snprintf(err, n, "%s needs %s of host memory: more than a process can address; use a smaller grid", what, guard_size_str(need, b1, sizeof b1));
        return -1;
    }
    double avail = guard_host_avail(why, sizeof why);
    if (avail >= 0 && need > avail) {
        snprintf(err, n, "%s needs %s of host memory but only %s are available (%s); use a smaller grid",
                 what, guard_size_str(need, b1, sizeof b1), guard_size_str(avail, b2, sizeof b2), why);
        return -1;
    }
    return 0;
}

/* ---- input files ---- */

FILE *guard_open_regular(const char *path, const char *what, long long *size, char *err, size_t n)
{
    char b[300]; const char *sp = shown(path, b, sizeof b);
    adi_open_status st;
    if (!*path) { snprintf(err, n, "%s name is empty", what); return NULL; }
    FILE *f = adi_fopen_regular(path, &st);
    switch (st.step) {
    case ADI_OPEN_OK: *size = st.size; break;
    case ADI_OPEN_KIND: snprintf(err, n, "%s '%s' is not a regular file (it is %s)", what, sp, adi_file_kind(st.mode)); break;
    case ADI_OPEN_CHANGED: snprintf(err, n, "%s '%s' is not a regular file (it changed while being opened)", what, sp); break;
    case ADI_OPEN_STAT: case ADI_OPEN_OPEN: case ADI_OPEN_STREAM:
        snprintf(err, n, "cannot open %s '%s': %s", what, sp, strerror(st.err)); break;
    }
    return f;
}

/* ---- output ---- */

static int is_dir(const char *p)
{
    struct stat st;
    return !stat(p, &st) && S_ISDIR(st.st_mode);
}

int guard_mkdir_p(const char *path, char *err, size_t n)
{
    char b[300], b2[300]; const char *sp = shown(path, b, sizeof b);
    size_t L = strlen(path);
    if (!L) { snprintf(err, n, "the output directory name is empty"); return -1; }
    if (L >= GUARD_PATH) {
        snprintf(err, n, "cannot create output directory '%s': %s (at most %d characters)", sp, strerror(ENAMETOOLONG), GUARD_PATH - 1);
        return -1;
    }
    char buf[GUARD_PATH];
    memcpy(buf, path, L + 1);
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p) continue;
        char c = *p; *p = 0;
        if (mkdir(buf, 0777) && !is_dir(buf)) {
            int e = errno;
            if (e == EEXIST) snprintf(err, n, "cannot create output directory '%s': '%s' exists and is not a directory", sp, shown(buf, b2, sizeof b2));
            else snprintf(err, n, "cannot create output directory '%s': mkdir '%s': %s", sp, shown(buf, b2, sizeof b2), strerror(e));
            return -1;
        }
        *p = c;
        if (!c) return 0;
    }
}

/* the files completed by guard_out_close, for guard_print_outputs */
#define NAMES_SHOWN 8
static char g_names[NAMES_SHOWN][128];
static int g_count;

static void note_output(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (g_count < NAMES_SHOWN) snprintf(g_names[g_count], sizeof g_names[0], "%.127s", base);
    g_count++;
}

int guard_out_open(GuardOut *o, const char *path, char *err, size_t n)
{
    char b[300];
    memset(o, 0, sizeof *o);
    if (strlen(path) >= GUARD_PATH) {
        snprintf(err, n, "cannot write '%s': %s (at most %d characters)", shown(path, b, sizeof b), strerror(ENAMETOOLONG), GUARD_PATH - 1);
        return -1;
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp-%ld", path, (long)getpid());
    /* registered before it exists, so that a signal at any moment removes it */
    mod_pending_file(o->tmp);
    /* O_NOFOLLOW: never write through a symbolic link planted at the temporary name */
    int fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) { snprintf(err, n, "cannot write '%s': %s", shown(o->tmp, b, sizeof b), strerror(errno)); mod_pending_file(NULL); return -1; }
    o->f = fdopen(fd, "wb");
    if (!o->f) { snprintf(err, n, "cannot write '%s': %s", shown(o->tmp, b, sizeof b), strerror(errno)); close(fd); guard_out_abort(o); return -1; }
    return 0;
}

void guard_out_write(GuardOut *o, const void *p, size_t bytes)
{
    if (o->err || !bytes) return;
    errno = 0;
    if (fwrite(p, 1, bytes, o->f) != bytes) o->err = errno ? errno : EIO;
}

void guard_out_printf(GuardOut *o, const char *fmt, ...)
{
    if (o->err) return;
    va_list ap; va_start(ap, fmt);
    errno = 0;
    if (vfprintf(o->f, fmt, ap) < 0) o->err = errno ? errno : EIO;
    va_end(ap);
}

void guard_out_abort(GuardOut *o)
{
    if (o->f) fclose(o->f);
    o->f = NULL;
    unlink(o->tmp);
    mod_pending_file(NULL);
}

/* make the rename durable; some file systems refuse fsync on a directory, which is harmless */
static void sync_parent(const char *path)
{
    char d[GUARD_PATH];
    snprintf(d, sizeof d, "%s", path);
    char *s = strrchr(d, '/');
    if (s == d) s[1] = 0; else if (s) *s = 0; else snprintf(d, sizeof d, ".");
    int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) { fsync(fd); close(fd); }
}

static const char *hint(int e)
{
    if (e == EFBIG) return " (file size limit, see ulimit -f)";
    if (e == ENOSPC) return " (disk full)";
    if (e == EDQUOT) return " (disk quota exceeded)";
    return "";
}

int guard_out_close(GuardOut *o, char *err, size_t n)
{
    int e = o->err;
    errno = 0;
    if (!e && fflush(o->f)) e = errno ? errno : EIO;
    if (!e && fsync(fileno(o->f))) e = errno;
    errno = 0;
    if (fclose(o->f) && !e) e = errno ? errno : EIO;
    o->f = NULL;
    if (!e && rename(o->tmp, o->path)) e = errno;
    if (e) {
        char b[300];
        unlink(o->tmp);
        mod_pending_file(NULL);
        snprintf(err, n, "cannot write '%s': %s%s; the previous file of that name, if any, is unchanged",
                 shown(o->path, b, sizeof b), strerror(e), hint(e));
        return -1;
    }
    mod_pending_file(NULL);
    sync_parent(o->path);
    note_output(o->path);
    return 0;
}

int guard_write_file(const char *path, const void *data, size_t bytes, char *err, size_t n)
{
    GuardOut o;
    if (guard_out_open(&o, path, err, n)) return -1;
    guard_out_write(&o, data, bytes);
    return guard_out_close(&o, err, n);
}

void guard_print_outputs(const char *dir)
{
    if (!dir || !*dir) { printf("outputs: none (out = '' writes no files)\n"); return; }
    char abs[PATH_MAX], b[300];
    const char *sp = shown(dir, b, sizeof b);
    int have_abs = realpath(dir, abs) != NULL && strcmp(abs, dir);
    if (!g_count) { printf("outputs: none written (output directory '%s')\n", sp); return; }
    printf("outputs in '%s'", sp);
    if (have_abs) printf(" (%s)", abs);
    printf(":");
    for (int i = 0; i < g_count && i < NAMES_SHOWN; i++) printf("%s %s", i ? "," : "", g_names[i]);
    if (g_count > NAMES_SHOWN) printf(", ... (%d files in all)\n", g_count);
    else printf(" (%d file%s)\n", g_count, g_count > 1 ? "s" : "");
}
