/* The constants every stage needs, in one struct that Fortran sees
 * unchanged (the bind(c) type solver_params_t of fortran/solver_params.f90).
 * Both are made from the rows of adiflow_params.def: its members, in order,
 * and the codes of its int members (ADI_BC_WALL, ADI_LIM_VENKAT, ...). */
#ifndef ADIFLOW_PARAMS_H
#define ADIFLOW_PARAMS_H

#define ADI_PARAM_CODE(name, value) enum { ADI_##name = value };
#define ADI_PARAM_REAL(name, init)
#define ADI_PARAM_INT(name, init)
#define ADI_PARAM_INTS(name, count, init)
#include "adiflow_params.def"
#undef ADI_PARAM_CODE
#undef ADI_PARAM_REAL
#undef ADI_PARAM_INT
#undef ADI_PARAM_INTS

typedef struct adi_solver_params {
#define ADI_PARAM_CODE(name, value)
#define ADI_PARAM_REAL(name, init) double name;
#define ADI_PARAM_INT(name, init) int name;
#define ADI_PARAM_INTS(name, count, init) int name[count];
#include "adiflow_params.def"
#undef ADI_PARAM_CODE
#undef ADI_PARAM_REAL
#undef ADI_PARAM_INT
#undef ADI_PARAM_INTS
} adi_solver_params;

#endif
