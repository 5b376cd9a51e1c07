/* The shared body state (contract/state.h): growth of the node and cell arrays. Growth is geometric
 * so that fracture, which appends a few nodes at a time, does not reallocate on every event. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "contract/state.h"

/* realloc that reports through cl_fail; *p is left untouched on failure. */
static cl_status grow(void **p, size_t bytes, const char *what) {
  void *q = realloc(*p, bytes ? bytes : 1);
  if (!q) return cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory growing %s to %zu bytes", what, bytes);
  *p = q;
  return CL_OK;
}

cl_status cl_body_state_reserve(cl_body_state *s, int32_t nodes) {
  if (!s || nodes < 0) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_body_state_reserve: bad arguments");
  if (nodes <= s->capacity) return CL_OK;
  int64_t cap = s->capacity ? s->capacity : 16;
  while (cap < nodes) cap += cap / 2 + 16;
  if (cap > INT32_MAX) cap = INT32_MAX;
  size_t c = (size_t)cap;
  CL_TRY(grow((void **)&s->x, sizeof(double) * 3 * c, "node positions"));
  CL_TRY(grow((void **)&s->v, sizeof(double) * 3 * c, "node velocities"));
  CL_TRY(grow((void **)&s->X, sizeof(double) * 3 * c, "rest positions"));
  CL_TRY(grow((void **)&s->m, sizeof(double) * c, "node masses"));
  CL_TRY(grow((void **)&s->origin, sizeof(int32_t) * c, "node origins"));
  s->capacity = (int32_t)cap;
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
  int64_t cap = s->cells_capacity ? s->cells_capacity : 16;
  while (cap < ncells) cap += cap / 2 + 16;
  if (cap > INT32_MAX / 8) cap = INT32_MAX / 8;
  CL_TRY(grow((void **)&s->cells, sizeof(int32_t) * (size_t)cell_size * (size_t)cap, "cells"));
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
