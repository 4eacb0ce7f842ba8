/* opts.c - table-driven case-file and flag parsing (see opts.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "guard.h"
#include "opts.h"

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
    return s;
}

/* a value as it may appear in a message: hostile values can be kilobytes long */
static const char *shown(const char *v, char *buf, size_t n)
{
    size_t L = strlen(v);
    if (L + 1 <= n) return v;
    snprintf(buf, n, "%.*s...(%zu characters)", (int)(n > 40 ? n - 40 : 1), v, L);
    return buf;
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

static int find_key(const OptKey *keys, int nk, const char *key)
{
    for (int i = 0; i < nk; i++) if (!strcmp(keys[i].key, key)) return i;
    return -1;
}

/* "17 .. 1000000", "h > 0", "0 < cfl_target <= 1", "0 or 1", plus ", or -1" for a sentinel */
static void range_text(const OptKey *k, char *buf, size_t n)
{
    int integer = k->type != OPT_DBL;
    if (integer && k->lo == 0 && k->hi == 1 && !k->has_special) { snprintf(buf, n, "0 or 1"); return; }
    if (isinf(k->hi)) snprintf(buf, n, "%s %s %.10g", k->key, k->lo_open ? ">" : ">=", k->lo);
    else if (k->lo_open) snprintf(buf, n, "%.10g < %s <= %.10g", k->lo, k->key, k->hi);
    else snprintf(buf, n, "%.10g .. %.10g", k->lo, k->hi);
    if (k->has_special) {
        size_t L = strlen(buf);
        snprintf(buf + L, n - L, ", or exactly %.10g = %s", k->special, k->means);
    }
}

static int in_range(const OptKey *k, double v)
{
    if (k->has_special && v == k->special) return 1;
    if (k->lo_open ? !(v > k->lo) : !(v >= k->lo)) return 0;
    return v <= k->hi;
}

static int range_error(const OptKey *k, const char *val, char *err, size_t n)
{
    char r[160], b[200];
    range_text(k, r, sizeof r);
    snprintf(err, n, "%s = %s: allowed %s", k->key, shown(val, b, sizeof b), r);
    return -1;
}

/* parse val in full as the number type of k; 0 and *out, or -1 with a message */
static int parse_number(const OptKey *k, const char *val, double *out, char *err, size_t n)
{
    char b[200], *end = NULL;
    const char *sv = shown(val, b, sizeof b);
    errno = 0;
    if (k->type == OPT_INT || k->type == OPT_LONG) {
        long v = strtol(val, &end, 10);
        if (end == val || *end) { snprintf(err, n, "'%s = %s': expected an integer", k->key, sv); return -1; }
        if (errno == ERANGE || (k->type == OPT_INT && (v < INT_MIN || v > INT_MAX))) return range_error(k, val, err, n);
        *out = (double)v;
        return 0;
    }
    if (k->type == OPT_SIZE) {
        long v;
        if (opts_parse_size(val, &v)) {
            snprintf(err, n, "'%s = %s': expected a size such as 512M or 2G (suffix K, M, G or T = powers of 1024; no suffix = bytes)", k->key, sv);
            return -1;
        }
        *out = (double)v;
        return 0;
    }
    double v = strtod(val, &end);
    if (end == val || *end || isnan(v) || (isinf(v) && errno != ERANGE)) {
        snprintf(err, n, "'%s = %s': expected a finite number", k->key, sv); return -1; }
    if (errno == ERANGE) {   /* 1e999 or 1e-999: not representable as a double */
        char r[160]; range_text(k, r, sizeof r);
        snprintf(err, n, "'%s = %s': the number is out of the range of a double; allowed %s", k->key, sv, r); return -1; }
    *out = v;
    return 0;
}

static void store_number(const OptKey *k, void *obj, double v)
{
    char *p = (char *)obj + k->off;
    switch (k->type) {
    case OPT_INT: *(int *)p = (int)v; break;
    case OPT_LONG: case OPT_SIZE: *(long *)p = (long)v; break;
    case OPT_DBL: *(double *)p = v; break;
    case OPT_STR: break;
    }
}

static double load_number(const OptKey *k, const void *obj)
{
    const char *p = (const char *)obj + k->off;
    switch (k->type) {
    case OPT_INT: return *(const int *)p;
    case OPT_LONG: case OPT_SIZE: return (double)*(const long *)p;
    case OPT_DBL: return *(const double *)p;
    case OPT_STR: break;
    }
    return 0;
}

/* 1 if v is one of the choices "a|b|c" of k (any text if k has none) */
static int is_choice(const OptKey *k, const char *v)
{
    if (!k->choices) return 1;
    size_t L = strlen(v);
    for (const char *p = k->choices;;) {
        size_t m = strcspn(p, "|");
        if (m == L && !strncmp(p, v, L)) return 1;
        if (!p[m]) return 0;
        p += m + 1;
    }
}

/* "a, b or c" from "a|b|c" */
static void choice_text(const OptKey *k, char *buf, size_t n)
{
    size_t L = 0, nc = 1;
    for (const char *p = k->choices; *p; p++) nc += *p == '|';
    buf[0] = 0;
    const char *p = k->choices;
    for (size_t i = 0; i < nc && L < n; i++) {
        size_t m = strcspn(p, "|");
        L += snprintf(buf + L, n - L, "%s%.*s", i == 0 ? "" : i + 1 == nc ? " or " : ", ", (int)m, p);
        p += m + (p[m] != 0);
    }
}

static int choice_error(const OptKey *k, const char *val, char *err, size_t n)
{
    char r[400], b[200];
    choice_text(k, r, sizeof r);
    snprintf(err, n, "%s = '%s': allowed %s", k->key, shown(val, b, sizeof b), r);
    return -1;
}

static int set_index(const OptKey *k, void *obj, const char *val, char *err, size_t n)
{
    if (k->type == OPT_STR) {
        if (strlen(val) >= k->sz) {
            snprintf(err, n, "value of '%s' is too long (%zu characters; at most %zu)", k->key, strlen(val), k->sz - 1); return -1; }
        if (!is_choice(k, val)) return choice_error(k, val, err, n);
        strcpy((char *)obj + k->off, val);
        return 0;
    }
    if (!*val) { snprintf(err, n, "'%s' has an empty value (expected a number)", k->key); return -1; }
    double v;
    if (parse_number(k, val, &v, err, n)) return -1;
    if (!in_range(k, v)) return range_error(k, val, err, n);
    store_number(k, obj, v);
    return 0;
}

int opts_set(const OptKey *keys, int nk, void *obj, const char *key, const char *val, char *err, size_t n)
{
    int i = find_key(keys, nk, key);
    if (i < 0) {
        char b[120];
        snprintf(err, n, "unknown parameter '%s' (run with --help for the list)", shown(key, b, sizeof b));
        return -1;
    }
    return set_index(&keys[i], obj, val, err, n);
}

int opts_check(const OptKey *keys, int nk, const void *obj, char *err, size_t n)
{
    for (int i = 0; i < nk; i++) {
        if (keys[i].type == OPT_STR) {
            const char *v = (const char *)obj + keys[i].off;
            if (!is_choice(&keys[i], v)) return choice_error(&keys[i], v, err, n);
            continue;
        }
        double v = load_number(&keys[i], obj);
        if (!in_range(&keys[i], v)) {
            char val[64]; snprintf(val, sizeof val, "%.10g", v);
            return range_error(&keys[i], val, err, n);
        }
    }
    return 0;
}

/* One line of at most OPTS_LINE_MAX - 1 characters into buf (newline dropped).
 * 1: a line, 0: end of file, -1: too long, -2: a NUL byte (binary file), -3: read error. */
static int read_line(FILE *f, char *buf, size_t cap)
{
    size_t L = 0; int ch;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (ch == 0) return -2;
        if (L + 1 >= cap) { buf[L] = 0; return -1; }
        buf[L++] = (char)ch;
    }
    buf[L] = 0;
    if (ferror(f)) return -3;
    return ch == EOF && L == 0 ? 0 : 1;
}

/* the key of an over-long line, for the message */
static const char *key_of(char *line)
{
    char *eq = strchr(line, '=');
    if (eq) *eq = 0;
    char *k = trim(line);
    if (strlen(k) > 40) k[40] = 0;
    return k;
}

/* Strip matching quotes; "" and '' give an empty string on purpose. 1 if the value was
 * quoted, 0 if not, -1 for an unterminated quote. */
static int unquote(char **v)
{
    char *s = *v; size_t L = strlen(s);
    if (*s != '"' && *s != '\'') return 0;
    if (L < 2 || s[L - 1] != *s) return -1;
    s[L - 1] = 0; *v = s + 1;
    return 1;
}

typedef struct { const char *path; int ln; char *err; size_t n; } Where;
static int fail_at(const Where *w, const char *fmt, const char *a)
{
    char m[700];
    snprintf(m, sizeof m, fmt, a);
    snprintf(w->err, w->n, "%s:%d: %s", w->path, w->ln, m);
    return -1;
}

/* one "key = value" line (comments already stripped); first_line[] detects duplicates */
static int load_line(const OptKey *keys, int nk, void *obj, char *s, int *first_line, const Where *w)
{
    size_t L = strlen(s);
    if (s[L - 1] == ',') s[L - 1] = 0;
    char *eq = strchr(s, '=');
    if (!eq) return fail_at(w, "expected 'key = value', got '%s'", s);
    *eq = 0;
    char *k = trim(s), *v = trim(eq + 1);
    if (!*k) return fail_at(w, "missing key before '=' (value '%s')", v);
    for (char *q = k; *q; q++) *q = (char)tolower((unsigned char)*q);
    int q = unquote(&v);
    if (q < 0) return fail_at(w, "unterminated quote in the value of '%s'", k);
    int i = find_key(keys, nk, k);
    char e2[700];
    if (i < 0) { opts_set(keys, nk, obj, k, v, e2, sizeof e2); return fail_at(w, "%s", e2); }
    if (!q && !*v) {   /* "key =" is a slip; an empty text must be asked for as "" */
        if (keys[i].type == OPT_STR) return fail_at(w, "'%s' has an empty value (write \"\" for an empty text)", k);
        return fail_at(w, "'%s' has an empty value (expected a number)", k);
    }
    if (first_line[i]) {
        char m[200];
        snprintf(m, sizeof m, "duplicate key '%s' (first set on line %d)", k, first_line[i]);
        return fail_at(w, "%s", m);
    }
    first_line[i] = w->ln;
    if (set_index(&keys[i], obj, v, e2, sizeof e2)) return fail_at(w, "%s", e2);
    return 0;
}

int opts_load(const OptKey *keys, int nk, void *obj, const char *path, char *err, size_t n)
{
    long long size;
    FILE *f = guard_open_regular(path, "case file", &size, err, n);
    if (!f) return -1;
    if (size > OPTS_FILE_MAX) {
        snprintf(err, n, "case file '%s' has %lld bytes: too large for a case file (at most %ld)", path, size, OPTS_FILE_MAX);
        fclose(f); return -1;
    }
    char line[OPTS_LINE_MAX];
    int first_line[OPTS_MAX_KEYS] = { 0 }, rc = 0;
    Where w = { path, 0, err, n };
    if (nk > OPTS_MAX_KEYS) { snprintf(err, n, "internal: more than %d keys", OPTS_MAX_KEYS); fclose(f); return -1; }
    for (;;) {
        /* the size was checked, but a file that keeps growing must not keep us reading */
        if (++w.ln > OPTS_FILE_MAX) { rc = fail_at(&w, "%s", "too many lines for a case file (it is growing?)"); break; }
        int r = read_line(f, line, sizeof line);
        if (r == 0) break;
        if (r == -1) { char m[160]; snprintf(m, sizeof m, "line longer than %d characters (key '%s')", OPTS_LINE_MAX - 1, key_of(line)); rc = fail_at(&w, "%s", m); break; }
        if (r == -2) { rc = fail_at(&w, "%s", "NUL byte: this is not a text case file"); break; }
        if (r == -3) { rc = fail_at(&w, "read error: %s", strerror(errno)); break; }
        char *h = strchr(line, '#'); if (h) *h = 0;
        h = strchr(line, '!'); if (h) *h = 0;
        char *s = trim(line);
        if (!*s || *s == '&' || !strcmp(s, "/")) continue;
        if ((rc = load_line(keys, nk, obj, s, first_line, &w))) break;
    }
    fclose(f);
    return rc;
}

int opts_args(const OptKey *keys, int nk, void *obj, int argc, char **argv, char *err, size_t n)
{
    int nfiles = 0;   /* the case file first, so flags override it wherever they stand */
    char b[200];
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] == '-') {
            if (!strchr(argv[i], '=') && i + 1 < argc) i++;
            continue;
        }
        if (argv[i][0] == '-') { snprintf(err, n, "unknown option '%s' (options are --key=value or --key value)", shown(argv[i], b, sizeof b)); return -1; }
        if (nfiles++) { snprintf(err, n, "more than one case file given ('%s')", shown(argv[i], b, sizeof b)); return -1; }
        if (opts_load(keys, nk, obj, argv[i], err, n)) return -1;
    }
    int seen[OPTS_MAX_KEYS] = { 0 };
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-' || argv[i][1] != '-') continue;
        char key[128]; const char *val;
        const char *a = argv[i] + 2, *eq = strchr(a, '=');
        size_t kl = eq ? (size_t)(eq - a) : strlen(a);
        if (kl == 0) { snprintf(err, n, "option '%s' has no name (options are --key=value or --key value)", shown(argv[i], b, sizeof b)); return -1; }
        if (kl >= sizeof key) { snprintf(err, n, "unknown option '%s': name too long", shown(argv[i], b, sizeof b)); return -1; }
        snprintf(key, sizeof key, "%.*s", (int)kl, a);
        if (eq) val = eq + 1;
        else {
            if (i + 1 >= argc) { snprintf(err, n, "option '--%s' needs a value", key); return -1; }
            val = argv[++i];
        }
        for (char *q = key; *q; q++) if (*q == '-') *q = '_';
        int k = find_key(keys, nk, key);
        if (k >= 0 && k < OPTS_MAX_KEYS && seen[k]++) { snprintf(err, n, "option '--%s' is given more than once", key); return -1; }
        if (opts_set(keys, nk, obj, key, val, err, n)) return -1;
    }
    return 0;
}

void opts_usage(const OptKey *keys, int nk, const char *prog, const char *what)
{
    printf("usage: %s [CASE_FILE] [--key=value | --key value ...]\n%s\n"
           "Flags override the case file; a key may appear once in the file and once as a flag.\n"
           "Parameters (allowed values in brackets):\n", prog, what);
    for (int i = 0; i < nk; i++) {
        char r[400] = "text";
        if (keys[i].choices) choice_text(&keys[i], r, sizeof r);
        else if (keys[i].type != OPT_STR) range_text(&keys[i], r, sizeof r);
        printf("  %-14s %s [%s]\n", keys[i].key, keys[i].help, r);
    }
}

int opts_want_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return 1;
    return 0;
}
