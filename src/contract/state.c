/* The shared body state (contract/state.h): growth of the node and cell arrays. Growth is geometric
 * so that fracture, which appends a few nodes at a time, does not reallocate on every event. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "contract/state.h"

cl_status cl_body_state_reserve(cl_body_state *s, int32_t nodes) {
  if (!s || nodes < 0) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_body_state_reserve: bad arguments");
  if (nodes <= s->capacity) return CL_OK;
  const size_t c = cl_grow_capacity((size_t)s->capacity, (size_t)nodes, INT32_MAX);
  CL_TRY(CL_RESIZE(s->x, 3 * c, "node positions"));
  CL_TRY(CL_RESIZE(s->v, 3 * c, "node velocities"));
  CL_TRY(CL_RESIZE(s->X, 3 * c, "rest positions"));
  CL_TRY(CL_RESIZE(s->m, c, "node masses"));
  CL_TRY(CL_RESIZE(s->origin, c, "node origins"));
  s->capacity = (int32_t)c;
  return CL_OK;
}

cl_status cl_body_state_resize(cl_body_state *s, int32_t nodes) {
  CL_TRY(cl_body_state_reserve(s, nodes));
  for (int32_t i = s->n; i < nodes; ++i) {
    for (int k = 0; k < 3; ++k) s->x[3 * i + k] = s->v[3 * i + k] = s->X[3 * i + k] = 0.0;
    s->m[i] = 0.0;
    s->origin[i] = i;
  }
  s->n = nodes;
  return CL_OK;
}

cl_status cl_body_state_reserve_cells(cl_body_state *s, int32_t cell_size, int32_t ncells) {
  if (!s || ncells < 0 || cell_size < 0 || cell_size > 8)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_body_state_reserve_cells: bad arguments");
  if (cell_size != s->cell_size) {
    s->cell_size = cell_size;
    s->ncells = 0;
    s->cells_capacity = 0; /* contents are meaningless under another cell size */
  }
  if (ncells <= s->cells_capacity || cell_size == 0) return CL_OK;
  const size_t cap = cl_grow_capacity((size_t)s->cells_capacity, (size_t)ncells, INT32_MAX / 8);
  CL_TRY(CL_RESIZE(s->cells, (size_t)cell_size * cap, "cells"));
  s->cells_capacity = (int32_t)cap;
  return CL_OK;
}

void cl_body_state_free(cl_body_state *s) {
  if (!s) return;
  free(s->x);
  free(s->v);
  free(s->X);
  free(s->m);
  free(s->origin);
  free(s->cells);
  memset(s, 0, sizeof *s);
}

double cl_body_state_mass(const cl_body_state *s) {
  double m = 0.0;
  for (int32_t i = 0; i < s->n; ++i) m += s->m[i];
  return m;
}

int cl_body_state_finite(const cl_body_state *s, int32_t *bad_node, const char **what) {
  /* One pass summing value * 0 is cheaper than testing every value: the product is 0 for a finite
   * value and NaN for a NaN or Inf, so the sum is 0 exactly when every value is finite (in any
   * order: independent sums, in pairs of lanes where the compiler has vector types, so the adds
   * do not wait for each other). */
  const double *x = s->x, *v = s->v;
  const int64_t len = 3 * (int64_t)s->n;
  int64_t j = 0;
  double tail = 0.0;
#if defined(__GNUC__)
  typedef double v2 __attribute__((vector_size(16)));
  v2 a0 = {0.0, 0.0}, a1 = a0, b0 = a0, b1 = a0;
  for (; j + 4 <= len; j += 4) {
    v2 x0, x1, v0, v1;
    memcpy(&x0, x + j, sizeof x0);
    memcpy(&x1, x + j + 2, sizeof x1);
    memcpy(&v0, v + j, sizeof v0);
    memcpy(&v1, v + j + 2, sizeof v1);
    a0 += x0 * 0.0, a1 += x1 * 0.0, b0 += v0 * 0.0, b1 += v1 * 0.0;
  }
  const v2 sum = (a0 + a1) + (b0 + b1);
  tail = sum[0] + sum[1];
#endif
  for (; j < len; ++j) tail += x[j] * 0.0 + v[j] * 0.0;
  if (tail == 0.0) return 1;
  for (int32_t i = 0; i < s->n; ++i)
    for (int k = 0; k < 3; ++k) {
      if (!isfinite(s->x[3 * i + k])) {
        if (bad_node) *bad_node = i;
        if (what) *what = "position";
        return 0;
      }
      if (!isfinite(s->v[3 * i + k])) {
        if (bad_node) *bad_node = i;
        if (what) *what = "velocity";
        return 0;
      }
    }
  return 1;
}
