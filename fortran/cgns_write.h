/* A run's final state as a CGNS file (fortran/cgns_write.c, case key
 * write_cgns; fortran/cgns_output.f90 is its Fortran side): one base, one
 * structured zone "flow" of the grid's nodes, a cell-centred FlowSolution
 * and the run's boundary patches as BC_t over node ranges. Written into a
 * private temporary folder and committed over path as the other outputs are
 * (fortran/safe_file.h). Through the library loaded at run time
 * (fortran/cgns_lib.h); a build without libcgns-dev says it has none. */
#ifndef ADIFLOW_CGNS_WRITE_H
#define ADIFLOW_CGNS_WRITE_H

#include <stddef.h>
#include <stdint.h>

/* n: cells per direction; xyz: x, y, z of the (n0+1)(n1+1)(n2+1) nodes, each
 * a whole array, i fastest; fields: nfields arrays of n0*n1*n2 cell values,
 * named by names (32 characters each, blank-padded: the SIDS names);
 * patches: npatch rows of 7 (face 0..5 = imin..kmax, kind ADI_BC_*,
 * isothermal walls 1/0, cells lo1 hi1 lo2 hi2 of the face's two
 * directions). 0, else 2 (no CGNS support) or 5 (the write failed, the
 * solver's exit code of a failed output) with msg. */
int adi_cgns_write_solution(const char *path, const char *title, const int32_t n[3], const double *xyz,
                            int32_t nfields, const char *names, const double *fields, int32_t npatch,
                            const int32_t *patches, char *msg, size_t msglen);

#endif
