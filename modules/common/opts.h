/* opts.h - table-driven "key = value" parameters: case files and --key=value
 * flags, one parser for the wave, stencil3d and ooc modules (each keeps its
 * own table of keys). Case file lines: "key = value"; '#' and '!' start
 * comments; a Fortran-namelist wrapper (&name ... /) and trailing commas are
 * accepted. Flags override the file; '-' in a flag name reads as '_'.
 *
 * Hostile input is refused with a message naming the key and the value:
 * every number is parsed in full (strtol/strtod: no trailing text, no
 * overflow, no nan/inf) and checked against the range of its table entry;
 * a text key with a list of choices takes one of them only; unknown keys, a
 * key given twice in one file (or twice as a flag), empty values,
 * unterminated quotes, lines longer than OPTS_LINE_MAX and NUL bytes are
 * errors. A case file must be a regular file (a directory, FIFO or device is
 * refused without blocking on it). */
#ifndef OPTS_H
#define OPTS_H

#include <math.h>
#include <stddef.h>

typedef enum { OPT_INT, OPT_LONG, OPT_DBL, OPT_STR, OPT_SIZE } OptType;

typedef struct {
    const char *key;
    OptType type;          /* OPT_SIZE: long, bytes; accepts 512M, 2G, 1.5G, 4096 */
    size_t off, sz;
    double lo, hi;         /* numbers: allowed lo .. hi (hi may be INFINITY) */
    int lo_open;           /* 1: lo itself is not allowed (value > lo) */
    int has_special;       /* 1: `special` is accepted too, outside lo .. hi */
    double special;        /* the one sentinel, e.g. -1 ... */
    const char *means;     /* ... and what it means, e.g. "centre" */
    const char *help;
    const char *choices;   /* OPT_STR: NULL = any text, else the allowed values, "a|b|c" */
} OptKey;

#define OPT_ENTRY_(S, name, t, lo, hi, open, hs, sp, means, help, choices) \
    { #name, t, offsetof(S, name), sizeof(((S *)0)->name), lo, hi, open, hs, sp, means, help, choices }
/* a number in lo .. hi */
#define OPT_NUM(S, name, t, lo, hi, help)      OPT_ENTRY_(S, name, t, lo, hi, 0, 0, 0, NULL, help, NULL)
/* a number with lo < value <= hi */
#define OPT_POS(S, name, t, lo, hi, help)      OPT_ENTRY_(S, name, t, lo, hi, 1, 0, 0, NULL, help, NULL)
/* a number in lo .. hi, or exactly the sentinel sp, which means `means` (the only special value) */
#define OPT_OR(S, name, t, lo, hi, sp, means, help) OPT_ENTRY_(S, name, t, lo, hi, 0, 1, sp, means, help, NULL)
/* text (length checked against the field) */
#define OPT_TEXT(S, name, help)                OPT_ENTRY_(S, name, OPT_STR, 0, 0, 0, 0, 0, NULL, help, NULL)
/* text that must be one of choices, "a|b|c"; a wrong value: "name = 'x': allowed a, b or c" */
#define OPT_CHOICE(S, name, choices, help)     OPT_ENTRY_(S, name, OPT_STR, 0, 0, 0, 0, 0, NULL, help, choices)

#define OPTS_LINE_MAX  4096          /* longest case-file line, newline included */
#define OPTS_FILE_MAX  (1L << 20)    /* largest case file, bytes */
#define OPTS_MAX_KEYS  128

/* Each returns 0, or -1 with a message in err that names the key, the value and what is allowed. */
int  opts_set(const OptKey *k, int nk, void *obj, const char *key, const char *val, char *err, size_t n);
int  opts_load(const OptKey *k, int nk, void *obj, const char *path, char *err, size_t n);
int  opts_args(const OptKey *k, int nk, void *obj, int argc, char **argv, char *err, size_t n);
/* every numeric field of obj against its range and every choice key against
 * its list (catches values set by code, not by the parser) */
int  opts_check(const OptKey *k, int nk, const void *obj, char *err, size_t n);
void opts_usage(const OptKey *k, int nk, const char *prog, const char *what);
/* "2G" -> 2147483648; K, M, G, T are powers of 1024; a plain number is bytes. */
int  opts_parse_size(const char *s, long *bytes);
/* 1 if argv holds -h or --help */
int  opts_want_help(int argc, char **argv);

#endif
