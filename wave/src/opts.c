/* opts.c - table-driven case-file and flag parsing (see opts.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
    if (e - s >= 2 && (*s == '"' || *s == '\'') && e[-1] == *s) { e[-1] = 0; s++; }
    return s;
}

int opts_parse_size(const char *s, long *bytes)
{
    char *end; errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0) return -1;
    double m = 1;
    switch (toupper((unsigned char)*end)) {
    case 0: break;
    case 'K': m = 1024.0; end++; break;
    case 'M': m = 1024.0 * 1024; end++; break;
    case 'G': m = 1024.0 * 1024 * 1024; end++; break;
    case 'T': m = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: return -1;
    }
    if (*end == 'B' || *end == 'b') end++;        /* "2GB" reads as 2G */
    if (*end || v * m > 9.0e18) return -1;
    *bytes = (long)(v * m);
    return 0;
}

int opts_set(const OptKey *keys, int nk, void *obj, const char *key, const char *val, char *err, size_t n)
{
    for (int i = 0; i < nk; i++) {
        if (strcmp(keys[i].key, key)) continue;
        char *p = (char *)obj + keys[i].off, *end = NULL;
        const char *want = "an integer";
        errno = 0;
        switch (keys[i].type) {
        case OPT_INT: {
            long v = strtol(val, &end, 10);
            if (end == val || *end || errno || v < -2147483647L || v > 2147483647L) goto bad;
            *(int *)p = (int)v; return 0; }
        case OPT_LONG: {
            long v = strtol(val, &end, 10);
            if (end == val || *end || errno) goto bad;
            *(long *)p = v; return 0; }
        case OPT_DBL: {
            want = "a finite number";
            double v = strtod(val, &end);
            if (end == val || *end || errno || !isfinite(v)) goto bad;
            *(double *)p = v; return 0; }
        case OPT_SIZE:
            want = "a size such as 512M or 2G (suffix K, M, G or T = powers of 1024; no suffix = bytes)";
            if (opts_parse_size(val, (long *)p)) goto bad;
            return 0;
        case OPT_STR:
            if (strlen(val) >= keys[i].sz) {
                snprintf(err, n, "value of '%s' is too long (at most %zu characters)", key, keys[i].sz - 1); return -1; }
            strcpy(p, val); return 0;
        }
    bad:
        snprintf(err, n, "'%s = %s': expected %s", key, val, want);
        return -1;
    }
    snprintf(err, n, "unknown parameter '%s' (run with --help for the list)", key);
    return -1;
}

int opts_load(const OptKey *keys, int nk, void *obj, const char *path, char *err, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f) { snprintf(err, n, "cannot open case file '%s': %s", path, strerror(errno)); return -1; }
    char line[2048]; int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        char *h = strchr(line, '#'); if (h) *h = 0;
        h = strchr(line, '!'); if (h) *h = 0;
        char *s = trim(line);
        if (!*s || *s == '&' || !strcmp(s, "/")) continue;
        size_t L = strlen(s);
        if (s[L - 1] == ',') s[L - 1] = 0;
        char *eq = strchr(s, '=');
        if (!eq) { snprintf(err, n, "%s:%d: expected 'key = value', got '%s'", path, ln, s); fclose(f); return -1; }
        *eq = 0;
        char *k = trim(s), *v = trim(eq + 1);
        for (char *q = k; *q; q++) *q = (char)tolower((unsigned char)*q);
        char e2[600];
        if (opts_set(keys, nk, obj, k, v, e2, sizeof e2)) { snprintf(err, n, "%s:%d: %s", path, ln, e2); fclose(f); return -1; }
    }
    fclose(f);
    return 0;
}

int opts_args(const OptKey *keys, int nk, void *obj, int argc, char **argv, char *err, size_t n)
{
    int nfiles = 0;   /* the case file first, so flags override it wherever they stand */
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] == '-') {
            if (!strchr(argv[i], '=') && i + 1 < argc) i++;
            continue;
        }
        if (argv[i][0] == '-') { snprintf(err, n, "unknown option '%s' (options are --key=value or --key value)", argv[i]); return -1; }
        if (nfiles++) { snprintf(err, n, "more than one case file given ('%s')", argv[i]); return -1; }
        if (opts_load(keys, nk, obj, argv[i], err, n)) return -1;
    }
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-' || argv[i][1] != '-') continue;
        char key[128]; const char *val;
        const char *a = argv[i] + 2, *eq = strchr(a, '=');
        if (eq) { snprintf(key, sizeof key, "%.*s", (int)(eq - a), a); val = eq + 1; }
        else {
            if (i + 1 >= argc) { snprintf(err, n, "option '--%s' needs a value", a); return -1; }
            snprintf(key, sizeof key, "%s", a); val = argv[++i];
        }
        for (char *q = key; *q; q++) if (*q == '-') *q = '_';
        if (opts_set(keys, nk, obj, key, val, err, n)) return -1;
    }
    return 0;
}

void opts_usage(const OptKey *keys, int nk, const char *prog, const char *what)
{
    printf("usage: %s [CASE_FILE] [--key=value | --key value ...]\n%s\n"
           "Flags override the case file. Parameters:\n", prog, what);
    for (int i = 0; i < nk; i++) printf("  %-14s %s\n", keys[i].key, keys[i].help);
}

int opts_one_of(const char *v, const char *const *list)
{
    for (; *list; list++) if (!strcmp(v, *list)) return 1;
    return 0;
}

int opts_want_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return 1;
    return 0;
}
