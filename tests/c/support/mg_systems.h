/* Test systems for the Galerkin multigrid tests (tests/c/test_multigrid*.c): elastic bars and boxes
 * assembled with elastic_assembly.c, and the table's definition for "galerkin_mg" on them. */
#ifndef CL_TEST_MG_SYSTEMS_H
#define CL_TEST_MG_SYSTEMS_H

#include <stdint.h>

#include "geom/mesh.h"
#include "linalg/bsr.h"
#include "linalg/linear_solver.h"

typedef struct cl_test_mg_sys {
  cl_mesh *mesh;
  cl_bsr *A;
  int64_t *slots;
  int64_t n3;
  double *b, *x, *xstar; /* 3n each: right-hand side A xstar, iterate, the exact solution */
} cl_test_mg_sys;

/* A = K + mass_coeff M on a jittered nx x ny x nz tet grid of the box [0, len] x [0, w] x [0, w] (E
 * 1e5 Pa, nu 0.3 unless changed by the call), xstar smooth plus noise, b = A xstar, x = 0. */
void cl_test_mg_bar(cl_test_mg_sys *s, int32_t nx, int32_t ny, int32_t nz, double len, double w, double young,
                    double poisson, double mass_coeff);
void cl_test_mg_free(cl_test_mg_sys *s);

/* The default definition with the mesh's positions and the given grid spec. */
void cl_test_mg_def(const cl_test_mg_sys *s, const char *grid, cl_linear_solver_def *def);

/* A "galerkin_mg" instance with def (made by cl_test_mg_def if def is NULL, with the grid spec) and
 * analysed for s->A; aborts on failure (the caller's assertions are about what follows). */
cl_linear_solver *cl_test_mg_solver(const cl_test_mg_sys *s, const char *grid, const cl_linear_solver_def *def);

/* ||x - xstar||_A over the free dofs (fixed dofs of x are taken as exact). */
double cl_test_mg_error_a(const cl_test_mg_sys *s, const double *x);

#endif
