/* The CGNS library loaded at run time: see fortran/cgns_lib.h. */
#define _POSIX_C_SOURCE 200809L
/* built only where make found libcgns-dev (ADIFLOW_CGNS): an empty unit else */
#ifdef ADIFLOW_CGNS
#include "cgns_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* the library's file name as the build found it (make passes its soname) */
#ifndef ADIFLOW_CGNS_SONAME
#define ADIFLOW_CGNS_SONAME "libcgns.so"
#endif

int adi_cgns_lib_load(adi_cgns_lib *lib, char *msg, size_t msglen)
{
  memset(lib, 0, sizeof *lib);
  lib->dl = dlopen(ADIFLOW_CGNS_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib->dl) {
    const char *e = dlerror();
    snprintf(msg, msglen, "this build reads CGNS files through %s, which cannot be loaded here (%s): install "
             "the CGNS library (Debian: libcgns-dev) or convert the file to Plot3D with cgns_to_plot3d",
             ADIFLOW_CGNS_SONAME, e ? e : "no reason given");
    return 2;
  }
  /* dlsym's object pointer into a function pointer: the POSIX way */
#define ADI_CGNS_FIND(name, ret, params) \
  *(void **)(&lib->name) = dlsym(lib->dl, #name); \
  if (!lib->name) { \
    snprintf(msg, msglen, "%s has no function %s: the CGNS library here is not the one this build was made with", \
             ADIFLOW_CGNS_SONAME, #name); \
    adi_cgns_lib_unload(lib); \
    return 2; \
  }
  ADI_CGNS_FUNCTIONS(ADI_CGNS_FIND)
#undef ADI_CGNS_FIND
  lib->bc_type_names = (const char *const *)dlsym(lib->dl, "BCTypeName");
  lib->grid_location_names = (const char *const *)dlsym(lib->dl, "GridLocationName");
  if (!lib->bc_type_names || !lib->grid_location_names) {
    snprintf(msg, msglen, "%s has no BCTypeName or GridLocationName: the CGNS library here is not the one this "
             "build was made with", ADIFLOW_CGNS_SONAME);
    adi_cgns_lib_unload(lib);
    return 2;
  }
  return 0;
}

void adi_cgns_lib_unload(adi_cgns_lib *lib)
{
  if (lib->dl) dlclose(lib->dl);
  memset(lib, 0, sizeof *lib);
}
#else
typedef int adi_cgns_lib_absent; /* ISO C wants a declaration in every unit */
#endif
