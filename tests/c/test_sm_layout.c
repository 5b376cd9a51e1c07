/* Memory layout of the shape-matching solver (sm_cluster.c): the clusters are numbered along the
 * Z-order curve of their centres at bind, and each cluster's members are in particle order. Only the
 * numbering changes (the cluster loops of a step then find the members the last cluster shared in
 * the cache); the clusters themselves are those of the c-means: the same centres and member lists
 * in another order. */
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

#include "cleave/world.h"
#include "geom/mesh.h"
#include "geom/morton.h"
#include "solvers/shape_matching/shape_matching.h"
#include "solvers/shape_matching/sm_internal.h"
#include "world/world.h"

/* A box body of 1500 particles in 40 clusters. */
static cl_sm *box_body(cl_world *w) {
  cl_mesh *m = cl_test_box(0.6, 0.15, 0.15);
  cl_param p[2] = {{"particles", 1500, NULL}, {"cluster_count", 40, NULL}};
  cl_id b = cl_test_add_body(w, "shape_matching", m, p, 2, NULL, NULL, 0);
  cl_mesh_destroy(m);
  return cl_test_body_solver(w, b);
}

static void test_clusters_follow_the_z_order_of_their_centres(void **state) {
  (void)state;
  cl_world *w = cl_test_world_seeded(1.0 / 60, 0.0, 1, 3);
  cl_sm *s = box_body(w);
  assert_int_equal(s->ncl, 40);
  int32_t *order = malloc(sizeof(int32_t) * (size_t)s->ncl);
  assert_int_equal(cl_morton_order(s->pcen, s->ncl, order), CL_OK);
  for (int32_t j = 0; j < s->ncl; ++j) assert_int_equal(order[j], j);
  /* each cluster's members in particle order (the self-collision's member blocks rely on it), and
   * consecutive clusters close: every centre within 3 radii of the one before (a random order puts
   * the next centre anywhere in the 0.6 m bar) */
  for (int32_t c = 0; c < s->ncl; ++c) {
    for (int64_t k = s->moff[c] + 1; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) assert_true(s->mp[k - 1] < s->mp[k]);
    if (c > 0) {
      const double *a = s->pcen + 3 * (size_t)(c - 1), *b = s->pcen + 3 * (size_t)c;
      assert_true(hypot(hypot(a[0] - b[0], a[1] - b[1]), a[2] - b[2]) < 3.0 * s->radius[c]);
    }
  }
  free(order);
  cl_world_destroy(w);
}

/* cl_morton_order on a small set: the Z-order of the 2 x 2 x 2 corners of a cube is x fastest, then
 * y, then z; ties (a repeated point) keep index order; non-finite coordinates count as the low
 * corner. */
static void test_morton_order_of_cube_corners(void **state) {
  (void)state;
  /* corners listed in reverse Z-order, then a repeat of corner 0 and a NaN point */
  double p[10][3];
  for (int i = 0; i < 8; ++i) {
    const int z = 7 - i;
    p[i][0] = z & 1, p[i][1] = (z >> 1) & 1, p[i][2] = (z >> 2) & 1;
  }
  p[8][0] = p[8][1] = p[8][2] = 1.0;
  p[9][0] = NAN, p[9][1] = 0.0, p[9][2] = 0.0;
  int32_t order[10];
  assert_int_equal(cl_morton_order(&p[0][0], 10, order), CL_OK);
  const int32_t want[10] = {7, 9, 6, 5, 4, 3, 2, 1, 0, 8};
  for (int j = 0; j < 10; ++j) assert_int_equal(order[j], want[j]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clusters_follow_the_z_order_of_their_centres),
      cmocka_unit_test(test_morton_order_of_cube_corners),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
