/* Field dump / restart file format, shared by the Fortran driver (through
 * fortran/sys_support.c) and the tools in validation/.
 *
 *   offset  size  content
 *        0     8  magic "ADIFDUMP"
 *        8     4  int32 version (ADI_DUMP_VERSION)
 *       12     4  int32 ni
 *       16     4  int32 nj
 *       20     4  int32 nk
 *       24     4  int32 nvar (5: rho, rho*u, rho*v, rho*w, E)
 *       28     4  int32 reserved (0)
 *       32     8  int64 iteration the state belongs to
  *       40    40  double[5] reference residual norms (largest seen so far)
 *       80     -  nvar blocks of ni*nj*nk doubles, interior cells, i fastest
 *    end-8     8  uint64 Fletcher-64 checksum of the data blocks
 * All values in the machine's byte order (little-endian on x86-64 and the
 * GPU hosts). Restart files are the same format.
 */
#ifndef ADIFLOW_FIELD_FORMAT_H
#define ADIFLOW_FIELD_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ADI_DUMP_MAGIC "ADIFDUMP"
#define ADI_DUMP_VERSION 1
#define ADI_DUMP_HEADER_BYTES 80

/* Fletcher-64 over 32-bit little-endian words; state carries (s1, s2) so
 * data can be fed in pieces. nbytes must be a multiple of 4. */
static inline void adi_fletcher64_update(uint64_t state[2], const void *data, size_t nbytes)
{
  const uint32_t mod = 0xffffffffu;
  const unsigned char *p = (const unsigned char *)data;
  uint64_t s1 = state[0], s2 = state[1];
  for (size_t i = 0; i + 4 <= nbytes; i += 4) {
    uint32_t w;
    memcpy(&w, p + i, 4);
    s1 = (s1 + w) % mod;
    s2 = (s2 + s1) % mod;
  }
  state[0] = s1;
  state[1] = s2;
}

static inline uint64_t adi_fletcher64_final(const uint64_t state[2])
{
  return (state[1] << 32) | state[0];
}

#endif
