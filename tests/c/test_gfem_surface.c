/* graph_fem's visual surface (solvers/graph_fem/edges.c): the boundary of the tets no crack runs
 * through, with the groups of such tets that touch the rest along an edge only left out, so every
 * edge of the surface is in exactly two triangles (closed, edge-manifold: a watertight OBJ). Random
 * damage patterns on a tet grid give the naive boundary (of those tets, all of them) edges in four
 * triangles; the visual surface never has one (nor an edge in one triangle), and without damage it
 * is the box's surface. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleave/world.h"
#include "geom/boundary.h"
#include "geom/mesh.h"
#include "geom/tet_edges.h"
#include "geom/tet_grid.h"
#include "solvers/graph_fem/gfem.h"
#include "support/cl_asserts.h"
#include "support/test_worlds.h"
#include "world/world.h"

/* Largest number of triangles that share an edge of the surface (tris over the solver's edges), and
 * the smallest. */
static void edge_use(const cl_gfem *g, const int32_t *tris, int32_t ntris, int32_t *most, int32_t *least) {
  int32_t *count = calloc((size_t)g->nedges, sizeof *count);
  assert_non_null(count);
  for (int32_t f = 0; f < ntris; ++f)
    for (int c = 0; c < 3; ++c) {
      const int32_t k = cl_gfem_edge(g, tris[3 * f + c], tris[3 * f + (c + 1) % 3]);
      assert_true(k >= 0);
      count[k]++;
    }
  *most = 0;
  *least = 1 << 30;
  for (int32_t k = 0; k < g->nedges; ++k) {
    if (count[k] > *most) *most = count[k];
    if (count[k] > 0 && count[k] < *least) *least = count[k];
  }
  free(count);
}

/* 1 if tet t's corners stay connected over its unbroken edges (no crack runs through it). */
static int whole(const cl_gfem *g, int32_t t) {
  int comp[4] = {0, 1, 2, 3};
  for (int pass = 0; pass < 3; ++pass) /* min-label propagation: three passes join any 4 corners */
    for (int q = 0; q < 6; ++q) {
      if (g->damage[g->tet_edge[6 * t + q]] >= 1.0) continue;
      const int a = cl_tet_edge_corners[q][0], b = cl_tet_edge_corners[q][1];
      const int m = comp[a] < comp[b] ? comp[a] : comp[b];
      comp[a] = comp[b] = m;
    }
  return comp[1] == 0 && comp[2] == 0 && comp[3] == 0;
}

static void test_visual_surface_is_edge_manifold(void **state) {
  (void)state;
  const double lo[3] = {0, 0, 0}, hi[3] = {0.4, 0.1, 0.1};
  cl_mesh *m = NULL;
  assert_ok(cl_tet_grid(16, 4, 4, lo, hi, &m));
  cl_world *w = cl_test_world(0.01, 0.0, 1);
  const cl_id b = cl_test_add_body(w, "graph_fem", m, NULL, 0, NULL, NULL, 0);
  cl_mesh_destroy(m);
  cl_gfem *g = cl_test_body_solver(w, b);
  cl_body_state *st = cl_world_body_state(w, b);
  int32_t most, least;
  assert_ok(cl_gfem_visual_surface(g, st));
  edge_use(g, g->tris, g->ntris, &most, &least);
  assert_int_equal(most, 2);
  assert_int_equal(least, 2);
  assert_int_equal(g->ntris, 2 * (16 * 4 * 2 + 16 * 4 * 2 + 4 * 4 * 2)); /* the box's faces, 2 per square */

  int32_t *keep = malloc(sizeof(int32_t) * 4 * (size_t)g->ntets);
  assert_non_null(keep);
  int naive_nonmanifold = 0;
  uint64_t seed = 12345;
  for (int pattern = 0; pattern < 20; ++pattern) {
    /* break about 15 % of the edges, by a fixed linear congruential sequence (a crack runs through a
     * tet when three or more of its edges break) */
    for (int32_t k = 0; k < g->nedges; ++k) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      g->damage[k] = (seed >> 33) % 100 < 15 ? 1.0 : 0.0;
    }
    g->damage_version++;
    /* the naive boundary of the whole tets */
    int32_t nk = 0;
    for (int32_t t = 0; t < g->ntets; ++t)
      if (whole(g, t)) memcpy(keep + 4 * nk++, st->cells + 4 * t, 4 * sizeof(int32_t));
    int32_t *naive = NULL, nnaive = 0;
    assert_ok(cl_boundary_faces(nk, keep, &naive, &nnaive));
    edge_use(g, naive, nnaive, &most, &least);
    naive_nonmanifold += most > 2;
    free(naive);
    assert_ok(cl_gfem_visual_surface(g, st));
    edge_use(g, g->tris, g->ntris, &most, &least);
    if (g->ntris > 0) {
      assert_int_equal(most, 2);
      assert_int_equal(least, 2);
    }
  }
  print_message("%d of 20 naive boundaries are not edge-manifold\n", naive_nonmanifold);
  assert_true(naive_nonmanifold >= 10); /* the patterns do exercise the repair */
  free(keep);
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_visual_surface_is_edge_manifold),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
