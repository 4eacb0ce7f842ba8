/* opts.h - table-driven "key = value" parameters: case files and --key=value
 * flags, one parser for the wave, stencil3d and ooc modules. Case file lines: "key = value"; '#' and '!' start
 * comments; a Fortran-namelist wrapper (&name ... /) and trailing commas are
 * accepted. Flags override the file; '-' in a flag name reads as '_'. */
#ifndef OPTS_H
#define OPTS_H

#include <stddef.h>

typedef enum { OPT_INT, OPT_LONG, OPT_DBL, OPT_STR, OPT_SIZE } OptType;

typedef struct {
    const char *key;
    OptType type;          /* OPT_SIZE: long, bytes; accepts 512M, 2G, 1.5G, 4096 */
    size_t off, sz;
    const char *help;
} OptKey;

#define OPT(S, name, t, help) { #name, t, offsetof(S, name), sizeof(((S *)0)->name), help }

/* Each returns 0, or -1 with a message in err that names the value and what is allowed. */
int  opts_set(const OptKey *k, int nk, void *obj, const char *key, const char *val, char *err, size_t n);
int  opts_load(const OptKey *k, int nk, void *obj, const char *path, char *err, size_t n);
int  opts_args(const OptKey *k, int nk, void *obj, int argc, char **argv, char *err, size_t n);
void opts_usage(const OptKey *k, int nk, const char *prog, const char *what);
/* "2G" -> 2147483648; K, M, G, T are powers of 1024; a plain number is bytes. */
int  opts_parse_size(const char *s, long *bytes);
/* 1 if v is one of the NULL-terminated list */
int  opts_one_of(const char *v, const char *const *list);
/* 1 if argv holds -h or --help */
int  opts_want_help(int argc, char **argv);

#endif
