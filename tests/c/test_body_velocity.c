/* cl_body_set_rigid_velocity / cl_body_set_velocities: the rigid field has total momentum
 * M * linear and angular momentum I w about the centre of mass (checked against the body's lumped
 * masses and its inertia tensor computed here); per-node velocities are copied exactly; a wrong
 * count, a non-finite value or NULL is a clear error and leaves the state unchanged. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleave/cleave.h"
#include "geom/tet_grid.h"
#include "support/test_worlds.h"
#include "world/world.h"

static cl_id add_block(cl_world *w) {
  const double lo[3] = {0.1, -0.2, 0.3}, hi[3] = {0.5, -0.1, 0.4};
  cl_mesh *m = NULL;
  assert_int_equal(cl_tet_grid(8, 4, 3, lo, hi, &m), CL_OK);
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.name = "block";
  bd.solver = "corotational";
  cl_id id;
  assert_int_equal(cl_world_add_body(w, &bd, m, &id), CL_OK);
  cl_mesh_destroy(m);
  return id;
}

static void test_rigid_field_momenta(void **state) {
  (void)state;
  cl_world *w = cl_test_world(1e-3, 0.0, 1);
  cl_id id = add_block(w);
  const double lin[3] = {0.3, -1.0, 2.0}, ang[3] = {1.0, -2.0, 0.5};
  assert_int_equal(cl_body_set_rigid_velocity(w, id, lin, ang), CL_OK);
  cl_body *b;
  assert_int_equal(cl_world_body(w, id, &b), CL_OK);
  const cl_body_state *st = &b->state;
  double M = 0.0, c[3] = {0, 0, 0}, p[3] = {0, 0, 0};
  for (int32_t i = 0; i < st->n; ++i) {
    M += st->m[i];
    for (int k = 0; k < 3; ++k) {
      c[k] += st->m[i] * st->x[3 * i + k];
      p[k] += st->m[i] * st->v[3 * i + k];
    }
  }
  for (int k = 0; k < 3; ++k) c[k] /= M;
  for (int k = 0; k < 3; ++k) assert_true(fabs(p[k] - M * lin[k]) <= 1e-13 * M * 2.0);
  /* L = sum m r x v about c must equal I w with I = sum m (|r|^2 Id - r r^T) */
  double L[3] = {0, 0, 0}, I[9] = {0};
  for (int32_t i = 0; i < st->n; ++i) {
    const double r[3] = {st->x[3 * i] - c[0], st->x[3 * i + 1] - c[1], st->x[3 * i + 2] - c[2]};
    const double *v = st->v + 3 * i, m = st->m[i];
    L[0] += m * (r[1] * v[2] - r[2] * v[1]);
    L[1] += m * (r[2] * v[0] - r[0] * v[2]);
    L[2] += m * (r[0] * v[1] - r[1] * v[0]);
    const double rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    for (int a = 0; a < 3; ++a)
      for (int bb = 0; bb < 3; ++bb) I[3 * a + bb] += m * ((a == bb ? rr : 0.0) - r[a] * r[bb]);
  }
  for (int a = 0; a < 3; ++a) {
    const double Iw = I[3 * a] * ang[0] + I[3 * a + 1] * ang[1] + I[3 * a + 2] * ang[2];
    assert_true(fabs(L[a] - Iw) <= 1e-12 * (fabs(Iw) + 1e-9));
  }
  /* a translation only: angular may be NULL */
  assert_int_equal(cl_body_set_rigid_velocity(w, id, lin, NULL), CL_OK);
  for (int32_t i = 0; i < st->n; ++i)
    for (int k = 0; k < 3; ++k) assert_true(st->v[3 * i + k] == lin[k]);
  cl_world_destroy(w);
}

static void test_set_velocities_and_errors(void **state) {
  (void)state;
  cl_world *w = cl_test_world(1e-3, 0.0, 1);
  cl_id id = add_block(w);
  cl_body_info info;
  assert_int_equal(cl_body_get_info(w, id, &info), CL_OK);
  const int64_t n3 = 3 * (int64_t)info.nodes;
  double *v = malloc(sizeof(double) * (size_t)n3), *back = malloc(sizeof(double) * (size_t)n3);
  for (int64_t k = 0; k < n3; ++k) v[k] = 0.01 * (double)k - 1.0;
  assert_int_equal(cl_body_set_velocities(w, id, v, n3), CL_OK);
  assert_int_equal(cl_body_copy_velocities(w, id, back, n3), CL_OK);
  assert_memory_equal(v, back, sizeof(double) * (size_t)n3);

  assert_int_equal(cl_body_set_velocities(w, id, v, n3 - 1), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "body 'block'"));
  assert_non_null(strstr(cl_last_error(), "3 per node"));
  v[3 * 5 + 1] = NAN;
  assert_int_equal(cl_body_set_velocities(w, id, v, n3), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "node 5"));
  assert_int_equal(cl_body_copy_velocities(w, id, back, n3), CL_OK);
  assert_true(back[3 * 5 + 1] == 0.01 * 16.0 - 1.0); /* unchanged by the refused call */
  const double bad[3] = {0.0, INFINITY, 0.0}, ok[3] = {0, 0, 0};
  assert_int_equal(cl_body_set_rigid_velocity(w, id, bad, NULL), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "velocity[1] = inf m/s must be finite"));
  assert_int_equal(cl_body_set_rigid_velocity(w, id, ok, bad), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "angular_velocity[1] = inf rad/s must be finite"));
  assert_int_equal(cl_body_set_rigid_velocity(w, id, NULL, NULL), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_body_set_velocities(NULL, id, v, n3), CL_ERR_INVALID_ARGUMENT);
  free(v);
  free(back);
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rigid_field_momenta),
      cmocka_unit_test(test_set_velocities_and_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
