/* The CGNS mid-level library, loaded at run time (fortran/cgns_lib.c).
 *
 * Why not linked: build/adiflow is carried to GPU machines that have no
 * libcgns; a binary linked to libcgns.so would not even start there. Loaded
 * with dlopen when a CGNS file is asked for, it costs such a machine nothing
 * until then, and there the message says the library is missing.
 *
 * The table lives in the caller's handle (no global state): dlopen counts
 * its references, so each handle loads and unloads it cheaply. Only built
 * where cgnslib.h was found (ADIFLOW_CGNS). */
#ifndef ADIFLOW_CGNS_LIB_H
#define ADIFLOW_CGNS_LIB_H

#include <stddef.h>
#include <cgnslib.h>

/* X(name, return type, parameters): every function of the library used */
#define ADI_CGNS_FUNCTIONS(X) \
  X(cg_is_cgns, int, (const char *, int *)) \
  X(cg_open, int, (const char *, int, int *)) \
  X(cg_close, int, (int)) \
  X(cg_get_error, const char *, (void)) \
  X(cg_nbases, int, (int, int *)) \
  X(cg_base_read, int, (int, int, char *, int *, int *)) \
  X(cg_nzones, int, (int, int, int *)) \
  X(cg_zone_type, int, (int, int, int, CGNS_ENUMT(ZoneType_t) *)) \
  X(cg_zone_read, int, (int, int, int, char *, cgsize_t *)) \
  X(cg_index_dim, int, (int, int, int, int *)) \
  X(cg_ncoords, int, (int, int, int, int *)) \
  X(cg_coord_info, int, (int, int, int, int, CGNS_ENUMT(DataType_t) *, char *)) \
  X(cg_coord_read, int, (int, int, int, const char *, CGNS_ENUMT(DataType_t), const cgsize_t *, const cgsize_t *, void *)) \
  X(cg_nbocos, int, (int, int, int, int *)) \
  X(cg_boco_info, int, (int, int, int, int, char *, CGNS_ENUMT(BCType_t) *, CGNS_ENUMT(PointSetType_t) *, \
                        cgsize_t *, int *, cgsize_t *, CGNS_ENUMT(DataType_t) *, int *)) \
  X(cg_boco_read, int, (int, int, int, int, cgsize_t *, void *)) \
  X(cg_boco_gridlocation_read, int, (int, int, int, int, CGNS_ENUMT(GridLocation_t) *)) \
  X(cg_n1to1, int, (int, int, int, int *)) \
  X(cg_1to1_read, int, (int, int, int, int, char *, char *, cgsize_t *, cgsize_t *, int *)) \
  X(cg_base_write, int, (int, const char *, int, int, int *)) \
  X(cg_zone_write, int, (int, int, const char *, const cgsize_t *, CGNS_ENUMT(ZoneType_t), int *)) \
  X(cg_coord_write, int, (int, int, int, CGNS_ENUMT(DataType_t), const char *, const void *, int *)) \
  X(cg_sol_write, int, (int, int, int, const char *, CGNS_ENUMT(GridLocation_t), int *)) \
  X(cg_field_write, int, (int, int, int, int, CGNS_ENUMT(DataType_t), const char *, const void *, int *)) \
  X(cg_boco_write, int, (int, int, int, const char *, CGNS_ENUMT(BCType_t), CGNS_ENUMT(PointSetType_t), \
                         cgsize_t, const cgsize_t *, int *)) \
  X(cg_goto, int, (int, int, ...)) \
  X(cg_dataclass_write, int, (CGNS_ENUMT(DataClass_t))) \
  X(cg_descriptor_write, int, (const char *, const char *)) \
  X(cg_1to1_write, int, (int, int, int, const char *, const char *, const cgsize_t *, const cgsize_t *, const int *, int *))

#define ADI_CGNS_MEMBER(name, ret, params) ret (*name) params;
typedef struct adi_cgns_lib {
  void *dl;
  ADI_CGNS_FUNCTIONS(ADI_CGNS_MEMBER)
  /* the library's names of its enumerations (BCTypeName, GridLocationName) */
  const char *const *bc_type_names;
  const char *const *grid_location_names;
} adi_cgns_lib;
#undef ADI_CGNS_MEMBER

/* Loads the library into lib: 0, or 2 with a sentence in msg (the library
 * the build found is missing here, or lacks a function). */
int adi_cgns_lib_load(adi_cgns_lib *lib, char *msg, size_t msglen);
void adi_cgns_lib_unload(adi_cgns_lib *lib);

#endif
