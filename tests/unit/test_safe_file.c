/* fortran/safe_file.c's second name for an output (adi_link_or_copy_file),
 * its copy fallback (adi_copy_file) and the write-back hint: the bytes, the
 * inode shared or not, links never followed, the destination untouched on
 * a refusal, and a later file renamed over the source leaving the second
 * name as it was (what the final field.dump relies on). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safe_file.h"

static int failures = 0;

#define CHECK(cond, ...)                  \
  do {                                    \
    if (cond) {                           \
      printf("PASS ");                    \
    } else {                              \
      printf("FAIL %s:%d: ", __FILE__, __LINE__); \
      ++failures;                         \
    }                                     \
    printf(__VA_ARGS__);                  \
    printf("\n");                         \
  } while (0)

static char dir[256];

static const char *at(const char *name)
{
  static char buf[8][512];
  static int next = 0;
  char *p = buf[next];
  next = (next + 1) % 8;
  snprintf(p, 512, "%s/%s", dir, name);
  return p;
}

static void put(const char *path, const char *text)
{
  FILE *f = fopen(path, "wb");
  if (f == NULL) { perror(path); exit(2); }
  fputs(text, f);
  fclose(f);
}

/* the whole file as a string ("" when it cannot be read) */
static const char *get(const char *path)
{
  static char buf[4096];
  FILE *f = fopen(path, "rb");
  size_t n = 0;
  buf[0] = '\0';
  if (f != NULL) {
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
  }
  return buf;
}

static int same_file(const char *a, const char *b)
{
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int is_link(const char *path)
{
  struct stat st;
  return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

int main(void)
{
  char msg[512];
  int rc;
  snprintf(dir, sizeof dir, "/tmp/test_safe_file.XXXXXX");
  if (mkdtemp(dir) == NULL) { perror("mkdtemp"); return 2; }

  /* a second name: the same file, the same bytes, no temporary left */
  put(at("restart.bin"), "state of iteration 7");
  rc = adi_link_or_copy_file(at("restart.bin"), at("field.dump"), msg, sizeof msg);
  CHECK(rc == 0 && strcmp(get(at("field.dump")), "state of iteration 7") == 0,
        "adi_link_or_copy_file: field.dump holds the restart's bytes (rc %d)", rc);
  CHECK(same_file(at("restart.bin"), at("field.dump")), "adi_link_or_copy_file: one file under two names (hard link)");
  CHECK(access(at("field.dump.tmp"), F_OK) != 0, "adi_link_or_copy_file: no field.dump.tmp left");

  /* a later restart is a new file renamed over the old name: field.dump keeps its state */
  put(at("restart.bin.tmp"), "state of iteration 9");
  rc = adi_commit_file(at("restart.bin.tmp"), at("restart.bin"), -1, msg, sizeof msg);
  CHECK(rc == 0 && strcmp(get(at("restart.bin")), "state of iteration 9") == 0 &&
        strcmp(get(at("field.dump")), "state of iteration 7") == 0 && !same_file(at("restart.bin"), at("field.dump")),
        "a new restart renamed over restart.bin: field.dump keeps iteration 7");

  /* links planted at the destination and its temporary are replaced, never followed */
  put(at("victim"), "not to be touched");
  unlink(at("field.dump"));
  if (symlink(at("victim"), at("field.dump")) != 0 || symlink(at("victim"), at("field.dump.tmp")) != 0) {
    perror("symlink");
    return 2;
  }
  rc = adi_link_or_copy_file(at("restart.bin"), at("field.dump"), msg, sizeof msg);
  CHECK(rc == 0 && !is_link(at("field.dump")) && strcmp(get(at("field.dump")), "state of iteration 9") == 0 &&
        strcmp(get(at("victim")), "not to be touched") == 0,
        "links at field.dump and field.dump.tmp: replaced by the file, their target unchanged (rc %d)", rc);

  /* a link as the source is refused, the destination untouched */
  unlink(at("src_link"));
  if (symlink(at("victim"), at("src_link")) != 0) { perror("symlink"); return 2; }
  rc = adi_link_or_copy_file(at("src_link"), at("field.dump"), msg, sizeof msg);
  CHECK(rc == EINVAL && strstr(msg, "not a regular file") != NULL &&
        strcmp(get(at("field.dump")), "state of iteration 9") == 0,
        "a link as the source: refused (\"%s\"), field.dump unchanged", msg);
  rc = adi_link_or_copy_file(at("missing"), at("field.dump"), msg, sizeof msg);
  CHECK(rc == ENOENT && strstr(msg, "missing") != NULL && strcmp(get(at("field.dump")), "state of iteration 9") == 0,
        "a missing source: refused naming it (\"%s\"), field.dump unchanged", msg);

  /* the fallback of a file system without hard links: a separate file, the same bytes */
  rc = adi_copy_file(at("restart.bin"), at("copy.dump"), msg, sizeof msg);
  CHECK(rc == 0 && strcmp(get(at("copy.dump")), "state of iteration 9") == 0 &&
        !same_file(at("restart.bin"), at("copy.dump")) && access(at("copy.dump.tmp"), F_OK) != 0,
        "adi_copy_file: a separate file with the same bytes, no temporary left (rc %d)", rc);

  /* the write-back hint changes nothing that a reader sees, and a bad path is ignored */
  adi_start_writeback(at("restart.bin"));
  adi_start_writeback(at("missing"));
  adi_start_writeback(at("src_link"));
  CHECK(strcmp(get(at("restart.bin")), "state of iteration 9") == 0 &&
        strcmp(get(at("victim")), "not to be touched") == 0, "adi_start_writeback: the files as they were");

  const char *names[] = {"restart.bin", "field.dump", "victim", "src_link", "copy.dump"};
  for (size_t n = 0; n < sizeof names / sizeof names[0]; ++n) unlink(at(names[n]));
  rmdir(dir);
  printf("%s: %d failed\n", failures ? "FAILED" : "passed", failures);
  return failures ? 1 : 0;
}
