/* Test systems for the Galerkin multigrid tests (see mg_systems.h). */
#include "support/mg_systems.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "geom/tet_grid.h"
#include "support/elastic_assembly.h"

void cl_test_mg_bar(cl_test_mg_sys *s, int32_t nx, int32_t ny, int32_t nz, double len, double w, double young,
                    double poisson, double mass_coeff) {
  memset(s, 0, sizeof *s);
  const double lo[3] = {0, 0, 0}, hi[3] = {len, w, w};
  if (cl_tet_grid(nx, ny, nz, lo, hi, &s->mesh) < 0) abort();
  if (cl_test_jitter_interior(s->mesh, 0.15 * len / nx, 11) < 0) abort();
  if (cl_test_elastic_system(s->mesh, young, poisson, mass_coeff, &s->A, &s->slots) < 0) abort();
  s->n3 = 3 * (int64_t)s->mesh->npoints;
  s->b = malloc(sizeof(double) * (size_t)s->n3);
  s->x = calloc((size_t)s->n3, sizeof(double));
  s->xstar = malloc(sizeof(double) * (size_t)s->n3);
  uint64_t seed = 5;
  for (int64_t d = 0; d < s->n3; ++d) {
    const double *p = s->mesh->x + 3 * (d / 3);
    s->xstar[d] = sin(3.0 * p[0] / len + (double)(d % 3)) * cos(2.0 * p[1] / w) + 0.3 * (cl_test_rand01(&seed) - 0.5);
  }
  cl_bsr_spmv(s->A, s->xstar, s->b);
}

void cl_test_mg_free(cl_test_mg_sys *s) {
  free(s->b);
  free(s->x);
  free(s->xstar);
  free(s->slots);
  cl_bsr_destroy(s->A);
  cl_mesh_destroy(s->mesh);
  memset(s, 0, sizeof *s);
}

void cl_test_mg_def(const cl_test_mg_sys *s, const char *grid, cl_linear_solver_def *def) {
  cl_linear_solver_def_default(def);
  snprintf(def->mg_grid, sizeof def->mg_grid, "%s", grid);
  def->mg_positions = s->mesh->x;
  def->mg_position_count = s->mesh->npoints;
}

cl_linear_solver *cl_test_mg_solver(const cl_test_mg_sys *s, const char *grid, const cl_linear_solver_def *def) {
  cl_linear_solver_def d;
  if (def) d = *def;
  else cl_test_mg_def(s, grid, &d);
  cl_linear_solver *ls = NULL;
  if (cl_linear_solver_create("galerkin_mg", &d, &ls) < 0 || cl_linear_solver_analyse(ls, s->A) < 0) {
    fprintf(stderr, "galerkin_mg on the test system: %s\n", cl_last_error());
    abort();
  }
  return ls;
}

double cl_test_mg_error_a(const cl_test_mg_sys *s, const double *x) {
  double *e = malloc(sizeof(double) * (size_t)s->n3), *Ae = malloc(sizeof(double) * (size_t)s->n3);
  for (int64_t d = 0; d < s->n3; ++d) e[d] = x[d] - s->xstar[d];
  cl_bsr_spmv(s->A, e, Ae);
  double q = 0.0;
  for (int64_t d = 0; d < s->n3; ++d) q += e[d] * Ae[d];
  free(e);
  free(Ae);
  return sqrt(fabs(q));
}
