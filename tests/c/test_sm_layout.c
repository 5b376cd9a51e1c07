/* Memory layout of the shape-matching solver (sm_cluster.c, sm_props.c, sm_particles.c):
 *  - the clusters are numbered along the Z-order curve of their centres at bind (only the
 *    numbering: the cluster loops then find the members they share in the cache);
 *  - the rest offsets p = X_i - r_c are kept per membership in single precision. That is exact
 *    because bind puts the rest positions, and cl_sm_cluster_props the rest centres, on a grid of
 *    2^-23 of the body's extent: the rest positions move by at most half the grid, every offset is
 *    a float exactly, and F = A_xr A_rr^-1 (eq 3) from them is, to rounding, the F of eq 3 computed
 *    in double precision about the exact centre of mass, through a run that stretches the body. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/test_meshes.h"
#include "support/test_worlds.h"

#include "base/mat3.h"
#include "cleave/world.h"
#include "geom/mesh.h"
#include "geom/morton.h"
#include "solvers/shape_matching/shape_matching.h"
#include "solvers/shape_matching/sm_internal.h"
#include "world/world.h"

/* A bar along x (1500 particles, 40 clusters) pulled apart at its ends at `speed` each (m/s), no
 * fracture criterion. */
static cl_id pulled_bar(cl_world *w, double speed) {
  cl_mesh *m = cl_test_box(0.6, 0.15, 0.15);
  cl_param p[5] = {{"particles", 1500, NULL}, {"cluster_count", 40, NULL}, {"alpha", 0.8, NULL}, {"gamma", 0.3, NULL},
                   {"damping", 10, NULL}};
  cl_id b = cl_test_add_body(w, "shape_matching", m, p, 5, NULL, NULL, 0);
  cl_mesh_destroy(m);
  cl_test_x_slab(w, b, -1.0, -0.25, -speed);
  cl_test_x_slab(w, b, 0.25, 1.0, speed);
  return b;
}

static void test_clusters_follow_the_z_order_of_their_centres(void **state) {
  (void)state;
  cl_world *w = cl_test_world_seeded(1.0 / 60, 0.0, 1, 3);
  cl_id b = pulled_bar(w, 0.5);
  cl_sm *s = cl_test_body_solver(w, b);
  assert_int_equal(s->ncl, 40);
  int32_t *order = malloc(sizeof(int32_t) * (size_t)s->ncl);
  assert_int_equal(cl_morton_order(s->pcen, s->ncl, order), CL_OK);
  for (int32_t j = 0; j < s->ncl; ++j) assert_int_equal(order[j], j);
  /* and each cluster's members in particle order (the self-collision's member blocks rely on it) */
  for (int32_t c = 0; c < s->ncl; ++c)
    for (int64_t k = s->moff[c] + 1; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) assert_true(s->mp[k - 1] < s->mp[k]);
  free(order);
  cl_world_destroy(w);
}

static void test_rest_positions_on_the_grid(void **state) {
  (void)state;
  cl_world *w = cl_test_world_seeded(1.0 / 60, 0.0, 1, 3);
  /* a point set with coordinates that are not on any coarse binary grid */
  const int32_t n = 400;
  double *xyz = malloc(sizeof(double) * 3 * (size_t)n);
  for (int32_t i = 0; i < n; ++i) {
    xyz[3 * i] = 0.0137 * (i % 10) + 1.0 / 3.0, xyz[3 * i + 1] = 0.0139 * ((i / 10) % 10) - 0.1;
    xyz[3 * i + 2] = 0.0141 * (i / 100) + 0.01 * sin((double)i);
  }
  cl_mesh *pts;
  assert_int_equal(cl_mesh_from_arrays(CL_MESH_POINTS, xyz, n, NULL, 0, &pts), CL_OK);
  cl_param p[1] = {{"cluster_count", 8, NULL}};
  cl_id b = cl_test_add_body(w, "shape_matching", pts, p, 1, NULL, NULL, 0);
  cl_mesh_destroy(pts);
  cl_sm *s = cl_test_body_solver(w, b);
  cl_body_state *st = cl_world_body_state(w, b);
  const double G = s->rgrid;
  /* the power of two with 2^22 <= extent / G < 2^23 (the extent: 0.1251 m, along y) */
  int e;
  assert_true(frexp(G, &e) == 0.5);
  assert_true(0.1251 / G >= 0x1p22 && 0.1251 / G < 0x1p23);
  for (int32_t j = 0; j < 3 * n; ++j) {
    assert_true(st->X[j] == nearbyint(st->X[j] / G) * G);
    assert_true(fabs(st->X[j] - xyz[j]) <= 0.5 * G);
    assert_true(st->x[j] == st->X[j]);
  }
  free(xyz);
  cl_world_destroy(w);
}

/* F of cluster c from the exact rest offsets about the centre of mass, in double precision (eq 3
 * with A_rr^-1; the bar's clusters are well conditioned, so the pseudo-inverse is the inverse). */
static cl_mat3 exact_F(const cl_sm *s, const cl_body_state *st, int32_t c) {
  const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
  double M = 0.0;
  cl_vec3 xc = cl_vec3_zero(), rc = cl_vec3_zero();
  for (int64_t k = k0; k < k1; ++k) {
    M += s->mwm[k];
    xc = cl_vec3_madd(xc, s->mwm[k], cl_vec3_load(st->x, s->mp[k]));
    rc = cl_vec3_madd(rc, s->mwm[k], cl_vec3_load(st->X, s->mp[k]));
  }
  xc = cl_vec3_scale(xc, 1.0 / M), rc = cl_vec3_scale(rc, 1.0 / M);
  cl_mat3 Axr = cl_mat3_zero(), Arr = cl_mat3_zero(), Ai;
  for (int64_t k = k0; k < k1; ++k) {
    const cl_vec3 p = cl_vec3_sub(cl_vec3_load(st->X, s->mp[k]), rc), q = cl_vec3_sub(cl_vec3_load(st->x, s->mp[k]), xc);
    cl_mat3_add_outer(&Axr, s->mwm[k], q, p);
    cl_mat3_add_outer(&Arr, s->mwm[k], p, p);
  }
  assert_int_equal(cl_mat3_inverse(&Arr, &Ai), CL_OK);
  return cl_mat3_mul(&Axr, &Ai);
}

static void test_single_offsets_are_exact(void **state) {
  (void)state;
  cl_world *w = cl_test_world_seeded(1.0 / 60, 0.0, 1, 3);
  cl_id b = pulled_bar(w, 0.08);
  cl_sm *s = cl_test_body_solver(w, b);
  cl_body_state *st = cl_world_body_state(w, b);
  assert_true(s->rgrid > 0.0);
  /* every kept offset is the double offset exactly, and the rest centre is within half a grid step
   * of the centre of mass (pbar) */
  for (int32_t c = 0; c < s->ncl; ++c) {
    for (int a = 0; a < 3; ++a) assert_true(fabs(s->pbar[3 * (size_t)c + a]) <= 0.5 * s->rgrid);
    for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k)
      for (int a = 0; a < 3; ++a)
        assert_true((double)s->mr[3 * k + a] == st->X[3 * (size_t)s->mp[k] + a] - s->rcom[3 * (size_t)c + a]);
  }
  /* F from them, through 120 steps of stretching (strain limiting clamps: gamma 0.3), against the
   * exact F: the same to rounding (seen: 1.3e-15 of |F|) */
  double worst = 0.0, seen = 0.0;
  for (int step = 1; step <= 120; ++step) {
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    if (step % 20) continue;
    for (int32_t c = 0; c < s->ncl; ++c) {
      if (!s->alive[c]) continue;
      double com[3];
      cl_mat3 F;
      cl_sm_cluster_F(s, st, c, com, &F);
      const cl_mat3 Fx = exact_F(s, st, c);
      const cl_mat3 D = cl_mat3_sub(&F, &Fx);
      worst = fmax(worst, cl_mat3_frobenius(&D) / cl_mat3_frobenius(&Fx));
      seen = fmax(seen, cl_mat3_frobenius(&Fx));
    }
  }
  printf("single-precision offsets: largest |F - F_exact| / |F| = %.3g (|F| up to %.3f)\n", worst, seen);
  assert_true(seen > 1.75); /* the bar did stretch (|I| = 1.73) */
  assert_true(worst < 1e-13);
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clusters_follow_the_z_order_of_their_centres),
      cmocka_unit_test(test_rest_positions_on_the_grid),
      cmocka_unit_test(test_single_offsets_are_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
