/* A check of the case file's text before Fortran's namelist read sees it.
 *
 * A namelist read reports a value of the wrong type as "no &adiflow group",
 * takes a repeated key or a second group silently, and cuts a text longer
 * than its variable without a word. This scanner reads the file itself and
 * names the problem instead: the group, the key, the line, the value and
 * what is allowed. It never blocks on a FIFO and refuses a file that is not
 * a regular one.
 *
 * spec lists the groups and their keys with their types:
 *   "adiflow:title=s80,ni=i,mach=r,restart=l;parallel:npj=i"
 * i integer (32-bit), r finite real, l logical, sN quoted text of at most N
 * characters. The first group is required; the others are optional.
 *
 * gfortran's namelist read looks for "&name" (or "$name") anywhere in the
 * file, also inside a line of notes, a quoted value or another group. So a
 * note "use &adiflow ni=32 /" above the real group would be the group it
 * reads, unchecked. Two defences: a "&name" or "$name" in text outside the
 * groups is refused here, and adi_case_group hands the namelist reader only
 * the text of one group as scanned (comments removed), never the file. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_file.h"

enum { MAX_CASE_BYTES = 1 << 20, MAX_KEYS = 128, MAX_NAME = 64 };

typedef struct scanner {
  const char *path, *text, *spec;
  size_t pos, len;
  int line;
  char *msg;
  size_t msglen;
  /* adi_case_group: the group asked for, and where its keys begin and end
   * (from just after "&name" to its closing '/' or "&end") */
  const char *want;
  int found;
  size_t body_from, body_to;
} scanner;

static int fail(scanner *s, const char *fmt, ...)
{
  va_list ap;
  int n = snprintf(s->msg, s->msglen, "case file \"%s\", line %d: ", s->path, s->line);
  va_start(ap, fmt);
  if (n >= 0 && (size_t)n < s->msglen) vsnprintf(s->msg + n, s->msglen - (size_t)n, fmt, ap);
  va_end(ap);
  return EINVAL;
}

/* Whitespace and '!' comments; counts lines. */
static void skip_blank(scanner *s)
{
  while (s->pos < s->len) {
    char c = s->text[s->pos];
    if (c == '!') {
      while (s->pos < s->len && s->text[s->pos] != '\n') s->pos++;
    } else if (c == '\n') {
      s->line++;
      s->pos++;
    } else if (isspace((unsigned char)c)) {
      s->pos++;
    } else {
      return;
    }
  }
}

static size_t read_name(scanner *s, char *name)
{
  size_t n = 0;
  while (s->pos < s->len && (isalnum((unsigned char)s->text[s->pos]) || s->text[s->pos] == '_')) {
    if (n + 1 < MAX_NAME) name[n++] = (char)tolower((unsigned char)s->text[s->pos]);
    s->pos++;
  }
  name[n] = '\0';
  return n;
}

/* The type code of key in group from the spec ("i", "r", "l", "s80"), or
 * NULL if the group has no such key; *group_known tells whether the group
 * itself is in the spec. */
static const char *key_type(const char *spec, const char *group, const char *key, int *group_known, char *type)
{
  size_t gl = strlen(group), kl = strlen(key);
  const char *g = spec;
  *group_known = 0;
  while (g && *g) {
    const char *end = strchr(g, ';');
    size_t glen = end ? (size_t)(end - g) : strlen(g);
    if (glen > gl && strncmp(g, group, gl) == 0 && g[gl] == ':') {
      const char *k = g + gl + 1;
      *group_known = 1;
      while (k < g + glen) {
        const char *ke = memchr(k, ',', (size_t)(g + glen - k));
        const char *eq = memchr(k, '=', (size_t)(g + glen - k));
        if (!ke) ke = g + glen;
        if (eq && eq < ke && (size_t)(eq - k) == kl && strncmp(k, key, kl) == 0) {
          size_t tl = (size_t)(ke - eq - 1);
          if (tl > 15) tl = 15;
          memcpy(type, eq + 1, tl);
          type[tl] = '\0';
          return type;
        }
        k = ke + 1;
      }
      return NULL;
    }
    g = end ? end + 1 : NULL;
  }
  return NULL;
}

/* The group names of the spec, for messages: "&adiflow, &parallel". */
static void group_list(const char *spec, char *out, size_t len)
{
  size_t n = 0;
  const char *g = spec;
  out[0] = '\0';
  while (g && *g && n + 4 < len) {
    const char *colon = strchr(g, ':'), *end = strchr(g, ';');
    if (!colon) break;
    n += (size_t)snprintf(out + n, len - n, "%s&%.*s", n ? ", " : "", (int)(colon - g), g);
    if (n >= len) break;
    g = end ? end + 1 : NULL;
  }
}

static int is_integer(const char *v, long long *out)
{
  char *end;
  const char *p = v;
  if (*p == '+' || *p == '-') p++;
  if (!isdigit((unsigned char)*p)) return 0;
  for (; *p; ++p)
    if (!isdigit((unsigned char)*p)) return 0;
  errno = 0;
  *out = strtoll(v, &end, 10);
  return errno == 0 && *end == '\0';
}

/* A Fortran real literal: [sign] digits [. digits] [e|d [sign] digits]. */
static int is_real(const char *v, double *out)
{
  char buf[80], *end;
  const char *p = v;
  int digits = 0;
  size_t n = strlen(v);
  if (n >= sizeof buf) return 0;
  if (*p == '+' || *p == '-') p++;
  while (isdigit((unsigned char)*p)) p++, digits++;
  if (*p == '.') {
    p++;
    while (isdigit((unsigned char)*p)) p++, digits++;
  }
  if (!digits) return 0;
  if (*p == 'e' || *p == 'E' || *p == 'd' || *p == 'D') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!isdigit((unsigned char)*p)) return 0;
    while (isdigit((unsigned char)*p)) p++;
  }
  if (*p) return 0;
  memcpy(buf, v, n + 1);
  for (char *q = buf; *q; ++q)
    if (*q == 'd' || *q == 'D') *q = 'e';
  *out = strtod(buf, &end);
  return 1;
}

/* Fortran's logical forms: T, F, .true., .false., .t, tru... */
static int is_logical(const char *v)
{
  const char *p = v;
  if (*p == '.') p++;
  if (tolower((unsigned char)*p) != 't' && tolower((unsigned char)*p) != 'f') return 0;
  for (p++; *p; ++p)
    if (!isalpha((unsigned char)*p) && !(*p == '.' && p[1] == '\0')) return 0;
  return 1;
}

/* One value after "key =": a quoted text or a run up to a separator. */
static int scan_value(scanner *s, const char *group, const char *key, const char *type)
{
  char v[80];
  size_t n = 0;
  skip_blank(s);
  if (s->pos >= s->len || s->text[s->pos] == ',' || s->text[s->pos] == '/' || s->text[s->pos] == '&')
    return fail(s, "key %s in &%s has no value", key, group);
  if (s->text[s->pos] == '\'' || s->text[s->pos] == '"') {
    size_t from = s->pos;
    char q = s->text[s->pos++];
    size_t chars = 0;
    int start_line = s->line;
    for (;;) {
      if (s->pos >= s->len) {
        s->line = start_line;
        return fail(s, "the text value of %s in &%s has no closing %c", key, group, q);
      }
      char c = s->text[s->pos++];
      if (c == q) {
        if (s->pos < s->len && s->text[s->pos] == q) {
          s->pos++;
          chars++;
          continue;
        }
        break;
      }
      if (c == '\n') {
        /* a text that runs on over lines is a quote left open, and what
         * the namelist reader would make of the line end is not what a
         * reader of the file sees */
        s->line = start_line;
        return fail(s, "the text value of %s in &%s has no closing %c on its line (a text must end on the line where "
                       "it starts)", key, group, q);
      }
      chars++;
    }
    if (type[0] != 's') {
      int shown = (int)(s->pos - from) > 40 ? 40 : (int)(s->pos - from);
      return fail(s, "%s = %.*s in &%s: %s needs %s, not a text", key, shown, s->text + from, group, key,
                  type[0] == 'i' ? "an integer" : type[0] == 'r' ? "a number" : ".true. or .false.");
    }
    long max = strtol(type + 1, NULL, 10);
    if ((long)chars > max)
      return fail(s, "%s in &%s is %zu characters long; at most %ld are allowed", key, group, chars, max);
    return 0;
  }
  while (s->pos < s->len) {
    char c = s->text[s->pos];
    if (isspace((unsigned char)c) || c == ',' || c == '/' || c == '!' || c == '&') break;
    if (n + 1 < sizeof v) v[n] = c;
    n++;
    s->pos++;
  }
  if (n >= sizeof v) return fail(s, "the value of %s in &%s is too long (%zu characters)", key, group, n);
  v[n] = '\0';
  switch (type[0]) {
  case 'i': {
    long long x;
    if (!is_integer(v, &x)) return fail(s, "%s = %s in &%s is not an integer", key, v, group);
    if (x < INT_MIN || x > INT_MAX)
      return fail(s, "%s = %s in &%s is out of range for an integer (at most %d)", key, v, group, INT_MAX);
    return 0;
  }
  case 'r': {
    double x;
    if (!is_real(v, &x)) return fail(s, "%s = %s in &%s is not a number", key, v, group);
    if (!isfinite(x)) return fail(s, "%s = %s in &%s is not a finite number", key, v, group);
    return 0;
  }
  case 'l':
    if (!is_logical(v)) return fail(s, "%s = %s in &%s is not a logical (use .true. or .false.)", key, v, group);
    return 0;
  default:
    return fail(s, "%s = %s in &%s: text values need quotes, e.g. %s = '%s'", key, v, group, key, v);
  }
}

/* The keys of one group, up to its closing '/'. */
static int scan_group(scanner *s, const char *group)
{
  char seen[MAX_KEYS][MAX_NAME];
  int seen_line[MAX_KEYS], nseen = 0, start_line = s->line;
  int wanted = s->want && strcmp(s->want, group) == 0;
  if (wanted) {
    s->found = 1;
    s->body_from = s->pos;
  }
  for (;;) {
    char key[MAX_NAME], type[16];
    int known;
    skip_blank(s);
    if (s->pos >= s->len) {
      s->line = start_line;
      return fail(s, "the &%s group is not closed (end it with a line holding /)", group);
    }
    if (wanted) s->body_to = s->pos;
    if (s->text[s->pos] == '/') {
      s->pos++;
      return 0;
    }
    if (s->text[s->pos] == '&') {
      char end[MAX_NAME];
      s->pos++;
      read_name(s, end);
      if (strcmp(end, "end") == 0) return 0;
      return fail(s, "&%s starts before the &%s group is closed with /", end, group);
    }
    if (s->text[s->pos] == ',') {
      s->pos++;
      continue;
    }
    if (!read_name(s, key)) return fail(s, "unexpected '%c' in the &%s group (expected key = value)", s->text[s->pos], group);
    if (!key_type(s->spec, group, key, &known, type))
      return fail(s, "unknown key \"%s\" in the &%s group (see README.md, \"Case file reference\")", key, group);
    for (int i = 0; i < nseen; ++i)
      if (strcmp(seen[i], key) == 0)
        return fail(s, "key %s is given twice in &%s (lines %d and %d); give each key once", key, group,
                    seen_line[i], s->line);
    if (nseen < MAX_KEYS) {
      memcpy(seen[nseen], key, MAX_NAME);
      seen_line[nseen++] = s->line;
    }
    skip_blank(s);
    if (s->pos >= s->len || s->text[s->pos] != '=')
      return fail(s, "key %s in &%s is not followed by = and a value", key, group);
    s->pos++;
    int e = scan_value(s, group, key, type);
    if (e) return e;
  }
}

/* A line of text outside the groups (a note; the namelist reader skips it)
 * from s->pos to its end. gfortran's reader would take a "&name" or "$name"
 * in it as the start of a group, so it is refused; after '!' the rest of
 * the line is a comment to the reader too, and anything goes. */
static int scan_note(scanner *s)
{
  for (; s->pos < s->len && s->text[s->pos] != '\n'; s->pos++) {
    char c = s->text[s->pos];
    if (c == '!') {
      while (s->pos < s->len && s->text[s->pos] != '\n') s->pos++;
      return 0;
    }
    if ((c == '&' || c == '$') && s->pos + 1 < s->len && isalpha((unsigned char)s->text[s->pos + 1])) {
      char name[MAX_NAME];
      s->pos++;
      read_name(s, name);
      return fail(s, "\"%c%s\" in a line of text outside the groups: the namelist reader would start a group there. "
                     "Begin each group with &name at the start of its own line, and keep '&' and '$' out of notes "
                     "(or write the note after '!')", c, name);
    }
  }
  return 0;
}

static int scan_text(scanner *s)
{
  char groups[256], first[MAX_NAME], seen[8][MAX_NAME];
  int nseen = 0, seen_line[8];
  const char *colon = strchr(s->spec, ':');
  size_t fl = colon ? (size_t)(colon - s->spec) : 0;
  if (fl >= MAX_NAME) fl = MAX_NAME - 1;
  memcpy(first, s->spec, fl);
  first[fl] = '\0';
  group_list(s->spec, groups, sizeof groups);
  for (;;) {
    char name[MAX_NAME], type[16];
    int known;
    skip_blank(s);
    if (s->pos >= s->len) break;
    if (s->text[s->pos] != '&') {
      int e = scan_note(s);
      if (e) return e;
      continue;
    }
    s->pos++;
    read_name(s, name);
    key_type(s->spec, name, "", &known, type);
    if (!known) return fail(s, "unknown namelist group &%s (this program reads %s)", name, groups);
    for (int i = 0; i < nseen; ++i)
      if (strcmp(seen[i], name) == 0)
        return fail(s, "a second &%s group (the first is at line %d); give each group once", name, seen_line[i]);
    if (nseen < 8) {
      memcpy(seen[nseen], name, MAX_NAME);
      seen_line[nseen++] = s->line;
    }
    int e = scan_group(s, name);
    if (e) return e;
  }
  for (int i = 0; i < nseen; ++i)
    if (strcmp(seen[i], first) == 0) return 0;
  snprintf(s->msg, s->msglen,
           "case file \"%s\" has no &%s namelist group (it must start with \"&%s\" and end with \"/\")", s->path,
           first, first);
  return EINVAL;
}

/* Reads the file at path into s->text (the caller frees it) and scans it. */
static int load_and_scan(scanner *s)
{
  adi_open_status os;
  const char *path = s->path;
  char *msg = s->msg, *text;
  size_t msglen = s->msglen;
  ssize_t got;
  int fd, e;
  fd = adi_open_regular(path, &os);
  if (os.step == ADI_OPEN_STAT || os.step == ADI_OPEN_KIND) {
    char why[600];
    e = adi_open_errno(&os);
    adi_open_message(path, &os, why, sizeof why);
    snprintf(msg, msglen, "case file %s%s", why,
             e == ENOENT ? " (give the path of a namelist file, e.g. cases/cavity_default.nml)" : "");
    return e;
  }
  if (os.step == ADI_OPEN_OPEN) {
    snprintf(msg, msglen, "cannot open case file \"%s\": %s", path, strerror(os.err));
    return os.err;
  }
  if (fd < 0 || os.size > MAX_CASE_BYTES) {
    if (fd >= 0) close(fd);
    snprintf(msg, msglen, "case file \"%s\" is not a regular file of at most %d bytes", path, MAX_CASE_BYTES);
    return EINVAL;
  }
  text = malloc((size_t)os.size + 1);
  if (!text) {
    close(fd);
    snprintf(msg, msglen, "out of memory reading \"%s\"", path);
    return ENOMEM;
  }
  got = read(fd, text, (size_t)os.size);
  close(fd);
  if (got < 0) {
    e = errno;
    free(text);
    snprintf(msg, msglen, "cannot read case file \"%s\": %s", path, strerror(e));
    return e;
  }
  if (memchr(text, '\0', (size_t)got)) {
    free(text);
    snprintf(msg, msglen, "case file \"%s\" is not a text file (it holds NUL bytes)", path);
    return EINVAL;
  }
  text[got] = '\0';
  s->text = text;
  s->len = (size_t)got;
  /* a UTF-8 byte order mark, as some editors write, is not text: skip it */
  if (s->len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) s->pos = 3;
  return scan_text(s);
}

int adi_case_scan(const char *path, const char *spec, char *msg, size_t msglen)
{
  scanner s = {path, NULL, spec, 0, 0, 1, msg, msglen, NULL, 0, 0, 0};
  int e = load_and_scan(&s);
  free((char *)s.text);
  return e;
}

/* The namelist text of one group of the case file, as the scan of this very
 * read saw it: "&group key = value, ... /" on one line, the comments and
 * line ends gone (a text value never spans lines), so that the reader sees
 * nothing the scan did not check, whatever the file holds elsewhere or
 * becomes after an earlier scan. *used = 0 when the file has no such group
 * (it is optional). Errors as adi_case_scan's. */
int adi_case_group(const char *path, const char *spec, const char *group, char *out, size_t outlen, size_t *used,
                   char *msg, size_t msglen)
{
  scanner s = {path, NULL, spec, 0, 0, 1, msg, msglen, group, 0, 0, 0};
  int e = load_and_scan(&s);
  size_t n = 0;
  *used = 0;
  if (e == 0 && s.found) {
    size_t need = strlen(group) + 4 + (s.body_to - s.body_from);
    char quote = 0;
    if (need > outlen) {
      snprintf(msg, msglen, "the &%s group of case file \"%s\" is longer than %zu characters", group, path, outlen);
      e = EINVAL;
    } else {
      n = (size_t)snprintf(out, outlen, "&%s ", group);
      for (size_t i = s.body_from; i < s.body_to; ++i) {
        char c = s.text[i];
        if (quote) {
          if (c == quote) quote = 0; /* a doubled quote closes and reopens: the same text */
          out[n++] = c;
        } else if (c == '\'' || c == '"') {
          quote = c;
          out[n++] = c;
        } else if (c == '!') {
          while (i + 1 < s.body_to && s.text[i + 1] != '\n') i++;
        } else {
          out[n++] = isspace((unsigned char)c) ? ' ' : c;
        }
      }
      out[n++] = ' ';
      out[n++] = '/';
      *used = n;
    }
  }
  free((char *)s.text);
  return e;
}
