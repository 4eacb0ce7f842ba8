/* The dump format's CRC-64/XZ (fortran/crc64.c): the published check value,
 * and a long buffer summed on threads (pieces joined through the zero-byte
 * operator) against the same bytes fed in small serial pieces, from the
 * initial register and from another one, at lengths that are not multiples
 * of 8 or of the piece count. OMP_NUM_THREADS = 13 before the first call:
 * the 45 MB buffer goes in 11 pieces of about 4 MB on any machine. The
 * same bytes written to a file and summed as read by threads
 * (adi_crc64_file), whole and from an offset; a range past the file's end
 * is a read error. */
#define _POSIX_C_SOURCE 200809L   /* setenv */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "field_format.h"

static int failures;

static void check(int ok, const char *what)
{
  printf("%s %s\n", ok ? "PASS" : "FAIL", what);
  if (!ok) ++failures;
}

/* the same bytes in pieces of 1 to 4093 bytes: every call far below the
 * threaded path's piece size */
static uint64_t crc_small_pieces(uint64_t crc, const unsigned char *p, size_t n)
{
  size_t step = 1;
  while (n > 0) {
    size_t k = step < n ? step : n;
    crc = adi_crc64_update(crc, p, k);
    p += k;
    n -= k;
    step = step * 7 % 4093 + 1;
  }
  return crc;
}

int main(void)
{
  const char *nine = "123456789";
  const size_t big = ((size_t)45 << 20) + 13;   /* 45 MB and 13 bytes: threaded pieces of unequal length */
  unsigned char *buf = malloc(big);
  uint64_t x = 0x9E3779B97F4A7C15ull, a, b;
  setenv("OMP_NUM_THREADS", "13", 1);
  if (!buf) {
    printf("FAIL out of memory for the test buffer\n");
    return 1;
  }
  check(adi_crc64_final(adi_crc64_update(ADI_CRC64_INIT, nine, 9)) == 0x995DC9BBDF1939FAull,
        "CRC-64/XZ of \"123456789\" is the published check value 0x995DC9BBDF1939FA");
  for (size_t i = 0; i < big; ++i) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    buf[i] = (unsigned char)(x >> 24);
  }
  a = adi_crc64_update(ADI_CRC64_INIT, buf, big);
  b = crc_small_pieces(ADI_CRC64_INIT, buf, big);
  check(a == b, "45 MB + 13 bytes in one call (summed on threads) == the same bytes in small serial pieces");
  a = adi_crc64_update(0x0123456789ABCDEFull, buf + 5, big - 5);
  b = crc_small_pieces(0x0123456789ABCDEFull, buf + 5, big - 5);
  check(a == b, "the same from another register, 5 bytes in");
  a = adi_crc64_update(adi_crc64_update(ADI_CRC64_INIT, buf, (size_t)9 << 20), buf + ((size_t)9 << 20),
                       big - ((size_t)9 << 20));
  b = adi_crc64_update(ADI_CRC64_INIT, buf, big);
  check(a == b, "two long calls (9 MB, then the rest) == one call");
  {
    char path[] = "/tmp/adiflow_test_crc64_XXXXXX";
    int fd = mkstemp(path);
    uint64_t c = ADI_CRC64_INIT;
    if (fd < 0 || write(fd, buf, big) != (ssize_t)big) {
      check(0, "writing the test buffer to a temporary file");
    } else {
      check(adi_crc64_file(fd, 0, big, &c) == 0 && c == b,
            "the file of the 45 MB + 13 bytes, read and summed by threads (adi_crc64_file) == one call on the buffer");
      c = 0x0123456789ABCDEFull;
      check(adi_crc64_file(fd, 5, big - 5, &c) == 0 && c == adi_crc64_update(0x0123456789ABCDEFull, buf + 5, big - 5),
            "the same from another register, 5 bytes in");
      c = ADI_CRC64_INIT;
      check(adi_crc64_file(fd, 0, big + 8, &c) == EIO && c == ADI_CRC64_INIT,
            "8 bytes more than the file holds: EIO, the register untouched");
    }
    if (fd >= 0) close(fd);
    unlink(path);
  }
  buf[big / 2] ^= 1u;
  check(adi_crc64_update(ADI_CRC64_INIT, buf, big) != b, "one flipped bit in the middle changes the CRC");
  free(buf);
  printf("%d failed\n", failures);
  return failures != 0;
}
