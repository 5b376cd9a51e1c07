/* Test-only linear tet elasticity assembly (see elastic_assembly.h). */
#include "support/elastic_assembly.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

double cl_test_rand01(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

double cl_test_tet_gradients(const double *x, double *g) {
  /* E = [x1-x0, x2-x0, x3-x0] as columns; barycentric gradients g_1..3 are the rows of E^-1 */
  double e[3][3];
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) e[r][c] = x[3 * (c + 1) + r] - x[r];
  double det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
               e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
  double inv[3][3];
  inv[0][0] = (e[1][1] * e[2][2] - e[1][2] * e[2][1]) / det;
  inv[0][1] = (e[0][2] * e[2][1] - e[0][1] * e[2][2]) / det;
  inv[0][2] = (e[0][1] * e[1][2] - e[0][2] * e[1][1]) / det;
  inv[1][0] = (e[1][2] * e[2][0] - e[1][0] * e[2][2]) / det;
  inv[1][1] = (e[0][0] * e[2][2] - e[0][2] * e[2][0]) / det;
  inv[1][2] = (e[0][2] * e[1][0] - e[0][0] * e[1][2]) / det;
  inv[2][0] = (e[1][0] * e[2][1] - e[1][1] * e[2][0]) / det;
  inv[2][1] = (e[0][1] * e[2][0] - e[0][0] * e[2][1]) / det;
  inv[2][2] = (e[0][0] * e[1][1] - e[0][1] * e[1][0]) / det;
  for (int i = 0; i < 3; ++i) {
    g[i] = -(inv[0][i] + inv[1][i] + inv[2][i]);
    for (int a = 1; a < 4; ++a) g[3 * a + i] = inv[a - 1][i];
  }
  return det / 6.0;
}

double cl_test_tet_stiffness(const double *x, double young, double poisson, double *Ke) {
  double gf[12];
  const double vol = cl_test_tet_gradients(x, gf);
  const double(*g)[3] = (const double(*)[3])gf;
  const double lambda = young * poisson / ((1 + poisson) * (1 - 2 * poisson));
  const double mu = young / (2 * (1 + poisson));
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      double gg = g[a][0] * g[b][0] + g[a][1] * g[b][1] + g[a][2] * g[b][2];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          Ke[(3 * a + i) * 12 + 3 * b + j] =
              fabs(vol) * (lambda * g[a][i] * g[b][j] + mu * (g[a][j] * g[b][i] + (i == j ? gg : 0.0)));
    }
  return vol;
}

cl_status cl_test_assemble_elastic(const cl_mesh *mesh, double young, double poisson, double mass_coeff,
                                   cl_bsr *A, const int64_t *slots) {
  if (!mesh || !A || !slots || mesh->kind != CL_MESH_TETS)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_test_assemble_elastic: bad argument");
  cl_bsr_zero(A);
  double Ke[144], x[12];
  for (int32_t t = 0; t < mesh->ncells; ++t) {
    const int32_t *v = mesh->cells + 4 * (int64_t)t;
    for (int a = 0; a < 4; ++a)
      for (int k = 0; k < 3; ++k) x[3 * a + k] = mesh->x[3 * (int64_t)v[a] + k];
    double vol = cl_test_tet_stiffness(x, young, poisson, Ke);
    const double m = mass_coeff * fabs(vol) / 4.0;
    for (int a = 0; a < 4; ++a)
      for (int k = 0; k < 3; ++k) Ke[(3 * a + k) * 12 + 3 * a + k] += m;
    cl_bsr_add_cell(A, slots + 16 * (int64_t)t, 4, Ke);
  }
  return CL_OK;
}

cl_status cl_test_elastic_system(const cl_mesh *mesh, double young, double poisson, double mass_coeff,
                                 cl_bsr **A, int64_t **slots) {
  *A = NULL;
  *slots = NULL;
  CL_TRY(cl_bsr_from_cells(mesh->npoints, mesh->cells, mesh->ncells, 4, A));
  *slots = cl_malloc(sizeof(int64_t) * 16 * ((size_t)mesh->ncells + 1), "test slots");
  cl_status s = *slots ? cl_bsr_cell_slots(*A, mesh->cells, mesh->ncells, 4, *slots) : CL_ERR_OUT_OF_MEMORY;
  if (s == CL_OK) s = cl_test_assemble_elastic(mesh, young, poisson, mass_coeff, *A, *slots);
  if (s != CL_OK) {
    cl_bsr_destroy(*A);
    free(*slots);
    *A = NULL;
    *slots = NULL;
  }
  return s;
}

cl_status cl_test_jitter_interior(cl_mesh *mesh, double amount, uint64_t seed) {
  cl_mesh_info info;
  CL_TRY(cl_mesh_get_info(mesh, &info));
  uint64_t st = seed;
  for (int32_t i = 0; i < mesh->npoints; ++i) {
    double *p = mesh->x + 3 * (int64_t)i;
    int boundary = 0;
    for (int k = 0; k < 3; ++k) boundary |= p[k] == info.lo[k] || p[k] == info.hi[k];
    for (int k = 0; k < 3; ++k) {
      double d = amount * (2.0 * cl_test_rand01(&st) - 1.0);
      if (!boundary) p[k] += d;
    }
  }
  return cl_mesh_validate(mesh, "jittered mesh");
}

double *cl_test_bsr_to_dense(const cl_bsr *A) {
  const int64_t n = 3 * (int64_t)A->n;
  double *D = calloc((size_t)(n * n), sizeof *D);
  if (!D) return NULL;
  for (int32_t i = 0; i < A->n; ++i)
    for (int64_t s = A->row_ptr[i]; s < A->row_ptr[i + 1]; ++s)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) D[(3 * (int64_t)i + r) * n + 3 * (int64_t)A->col[s] + c] = A->val[9 * s + 3 * r + c];
  return D;
}

cl_status cl_test_assemble_laplace(const cl_mesh *mesh, cl_bsr *A, const int64_t *slots) {
  if (!mesh || !A || !slots || mesh->kind != CL_MESH_TETS)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_test_assemble_laplace: bad argument");
  cl_bsr_zero(A);
  double Ke[144], x[12], g[12];
  for (int32_t t = 0; t < mesh->ncells; ++t) {
    const int32_t *v = mesh->cells + 4 * (int64_t)t;
    for (int a = 0; a < 4; ++a)
      for (int k = 0; k < 3; ++k) x[3 * a + k] = mesh->x[3 * (int64_t)v[a] + k];
    double vol = fabs(cl_test_tet_gradients(x, g));
    memset(Ke, 0, sizeof Ke);
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        double k = vol * (g[3 * a] * g[3 * b] + g[3 * a + 1] * g[3 * b + 1] + g[3 * a + 2] * g[3 * b + 2]);
        for (int i = 0; i < 3; ++i) Ke[(3 * a + i) * 12 + 3 * b + i] = k;
      }
    cl_bsr_add_cell(A, slots + 16 * (int64_t)t, 4, Ke);
  }
  return CL_OK;
}

cl_mesh *cl_test_tetgen_box(double max_volume) {
  const double v[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  const int32_t t[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                            {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
  cl_mesh *surf = NULL, *tets = NULL;
  if (cl_mesh_from_arrays(CL_MESH_TRIANGLES, &v[0][0], 8, &t[0][0], 12, &surf) != CL_OK) return NULL;
  cl_tetgen_def def;
  cl_tetgen_def_default(&def);
  def.max_radius_edge = 1.5;
  def.max_volume = max_volume;
  cl_status st = cl_mesh_tetrahedralize(surf, &def, &tets);
  cl_mesh_destroy(surf);
  if (st != CL_OK) {
    printf("  TetGen mesh not available (%s: %s)\n", cl_status_name(st), cl_last_error());
    return NULL;
  }
  return tets;
}

double cl_test_true_residual(const cl_bsr *A, const double *b, const double *x, const uint8_t *fixed) {
  const int64_t n3 = 3 * (int64_t)A->n;
  double *r = malloc(sizeof(double) * (size_t)n3), *xc = calloc((size_t)n3, sizeof(double));
  if (!r || !xc) abort();
  const double rr = cl_bsr_residual(A, b, x, fixed, r);
  for (int64_t d = 0; d < n3; ++d)
    if (fixed && fixed[d]) xc[d] = x[d];
  const double ref = cl_bsr_residual(A, b, xc, fixed, r);
  free(r);
  free(xc);
  return sqrt(rr / ref);
}

cl_bsr *cl_test_two_node(double d, double o) {
  const int32_t cell[2] = {0, 1};
  cl_bsr *A = NULL;
  if (cl_bsr_from_cells(2, cell, 1, 2, &A) < 0) return NULL;
  for (int32_t i = 0; i < 2; ++i)
    for (int32_t j = 0; j < 2; ++j) {
      double *B = A->val + 9 * cl_bsr_find(A, i, j);
      for (int c = 0; c < 3; ++c) B[4 * c] = i == j ? d : o;
    }
  return A;
}
