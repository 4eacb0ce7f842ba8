/* A run's final state as a CGNS file (fortran/cgns_write.c, case key
 * write_cgns; fortran/cgns_output.f90 is its Fortran side): one base, a
 * structured zone of the grid's nodes ("flow"; a multi-block run one per
 * block, with their 1-to-1 interfaces), a cell-centred FlowSolution and the
 * run's boundary patches as BC_t over node ranges. Written into a
 * private temporary folder and committed over path as the other outputs are
 * (fortran/safe_file.h). Through the library loaded at run time
 * (fortran/cgns_lib.h); a build without libcgns-dev says it has none. */
#ifndef ADIFLOW_CGNS_WRITE_H
#define ADIFLOW_CGNS_WRITE_H

#include <stddef.h>
#include <stdint.h>

/* nzone structured zones named by znames (32 characters each, blank-padded),
 * zone z of n[3z..3z+2] cells; xyz: each zone's x, y, z of its nodes, each a
 * whole array, i fastest, the zones one after another; fields: each zone's
 * nfields arrays of its cell values, named by names (32 characters each,
 * blank-padded: the SIDS names); npatch[z] rows of 7 in patches for zone z
 * (face 0..5 = imin..kmax, kind ADI_BC_*, isothermal walls 1/0, cells lo1
 * hi1 lo2 hi2 of the face's two directions), the zones' rows one after
 * another; conn: nconn rows of 17 (zone, donor zone, both 1-based; the
 * range imin jmin kmin imax jmax kmax in the zone's nodes, the donor range,
 * the transform), each written as a 1-to-1 record of its zone. 0, else 2
 * (no CGNS support) or 5 (the write failed, the solver's exit code of a
 * failed output) with msg. */
int adi_cgns_write_solution(const char *path, const char *title, int32_t nzone, const char *znames, const int32_t *n,
                            const double *xyz, int32_t nfields, const char *names, const double *fields,
                            const int32_t *npatch, const int32_t *patches, int32_t nconn, const int32_t *conn,
                            char *msg, size_t msglen);

#endif
