#include "support/unit_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "geom/mesh.h"
#include "geom/tet_grid.h"

void cl_test_unit_fixture_init(cl_test_unit_fixture *f, const cl_test_grid *grids, int count) {
  memset(f, 0, sizeof *f);
  enum { MAX_GRIDS = 8 };
  assert_true(count >= 1 && count <= MAX_GRIDS);
  cl_mesh *m[MAX_GRIDS] = {0};
  int32_t np = 0, nc = 0;
  for (int g = 0; g < count; ++g) {
    const cl_test_grid *t = &grids[g];
    cl_status s = cl_tet_grid(t->n[0], t->n[1], t->n[2], t->lo, t->hi, &m[g]);
    if (s != CL_OK) fail_msg("cl_tet_grid %d: %s", g, cl_last_error());
    np += m[g]->npoints;
    nc += m[g]->ncells;
  }
  assert_int_equal(cl_body_state_resize(&f->st, np), CL_OK);
  assert_int_equal(cl_body_state_reserve_cells(&f->st, 4, nc), CL_OK);
  int32_t p0 = 0, c0 = 0;
  for (int g = 0; g < count; ++g) {
    memcpy(f->st.x + 3 * (size_t)p0, m[g]->x, sizeof(double) * 3 * (size_t)m[g]->npoints);
    for (int32_t j = 0; j < 4 * m[g]->ncells; ++j) f->st.cells[4 * (size_t)c0 + (size_t)j] = m[g]->cells[j] + p0;
    p0 += m[g]->npoints;
    c0 += m[g]->ncells;
    cl_mesh_destroy(m[g]);
  }
  memcpy(f->st.X, f->st.x, sizeof(double) * 3 * (size_t)np);
  for (int32_t i = 0; i < np; ++i) f->st.m[i] = 1.0;
  f->st.ncells = nc;
  f->st.topology_version = 1;
  f->u.count = nc;
  f->u.F = calloc(9 * (size_t)nc, sizeof(double));
  f->u.stress = calloc(9 * (size_t)nc, sizeof(double));
  f->u.plastic = calloc(9 * (size_t)nc, sizeof(double));
  f->u.center = calloc(3 * (size_t)nc, sizeof(double));
  f->u.volume = calloc((size_t)nc, sizeof(double));
  f->u.damage = calloc((size_t)nc, sizeof(double));
  assert_true(f->u.F && f->u.stress && f->u.plastic && f->u.center && f->u.volume && f->u.damage);
  for (int32_t e = 0; e < nc; ++e) f->u.F[9 * e] = f->u.F[9 * e + 4] = f->u.F[9 * e + 8] = 1.0;
}

void cl_test_unit_fixture_free(cl_test_unit_fixture *f) {
  cl_body_state_free(&f->st);
  free(f->u.F);
  free(f->u.stress);
  free(f->u.plastic);
  free(f->u.center);
  free(f->u.volume);
  free(f->u.damage);
  memset(f, 0, sizeof *f);
}

const cl_criterion_ops *cl_test_criterion(const char *name) {
  const cl_criterion_ops *ops = NULL;
  cl_status s = cl_criterion_find(name, &ops);
  if (s != CL_OK) fail_msg("criterion '%s': %s", name, cl_last_error());
  return ops;
}
