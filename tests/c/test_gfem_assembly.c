/* graph_fem's assembly (src/solvers/graph_fem/assembly.c) against the element matrices:
 *   - the element pass keeps a model's or a damaged element's stiffness in fem/tet.h's upper form
 *     (the six blocks of corners 1-3) and the assembly makes the other blocks as it adds them; A must
 *     be, to the bit, the mass plus dt^2 times the scatter of the whole 12x12 matrices in element
 *     order (cl_gfem_element_matrix), on a damaged bar whose elements take all three forms (warped,
 *     the model's beyond warp_limit, degraded with a corner whose edges are all broken), with one
 *     thread and with two;
 *   - a damaged element's edge stiffness G made with one inverse of T (cl_fem_edge_stiffness_of) is
 *     to the bit the frame's and cl_fem_edge_stiffness's, and a flat tet is refused by both.
 *     (cl_fem_element_stiffness, expanded from the upper form, is checked
 *     against all 16 blocks made directly in test_fem_material.c.) */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleave/world.h"
#include "fem/edge_elastic.h"
#include "fem/material.h"
#include "fem/tet.h"
#include "geom/tet_grid.h"
#include "solvers/graph_fem/gfem.h"
#include "support/elastic_assembly.h"
#include "support/test_worlds.h"
#include "world/world.h"

/* A graph_fem bar 0.4 x 0.1 x 0.1 m (24 x 6 x 6 cells, 1,225 nodes: enough for the assembly to split
 * its rows between two threads), stable Neo-Hookean, tangent warped with a warp limit that sends the
 * strongly strained elements to the model's tangent. */
static cl_id add_bar(cl_world *w) {
  const double lo[3] = {0, 0, 0}, hi[3] = {0.4, 0.1, 0.1};
  cl_mesh *m = NULL;
  assert_int_equal(cl_tet_grid(24, 6, 6, lo, hi, &m), CL_OK);
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.solver = "graph_fem";
  bd.material.young = 1e5;
  bd.material.poisson = 0.45;
  bd.material.density = 1000.0;
  cl_param p[] = {{"tangent", 1, NULL}, {"warp_limit", 0.1, NULL}, {"linear_solver", 0, NULL}};
  bd.params = p;
  bd.param_count = 3;
  cl_id b = 0;
  if (cl_world_add_body(w, &bd, m, &b) < 0) fail_msg("graph_fem body: %s", cl_last_error());
  cl_mesh_destroy(m);
  return b;
}

/* A stretch growing along x (strain 3.6 x^2: the right part passes warp_limit) and a twist. */
static void deform(cl_body_state *st) {
  for (int32_t i = 0; i < st->n; ++i) {
    const double *X = st->X + 3 * i, s = 1.0 + X[0] * X[0] * 1.2, a = 0.3 * X[0];
    st->x[3 * i] = X[0] * s;
    st->x[3 * i + 1] = cos(a) * X[1] - sin(a) * X[2] + 0.01 * X[0] * X[2];
    st->x[3 * i + 2] = sin(a) * X[1] + cos(a) * X[2];
  }
}

static void test_assembly_is_the_scatter_of_the_elements(void **state) {
  (void)state;
  for (int threads = 1; threads <= 2; ++threads) {
    cl_world *w = cl_test_world(1e-2, -9.81, threads);
    const cl_id b = add_bar(w);
    cl_gfem *s = cl_test_body_solver(w, b);
    cl_body_state *st = cl_world_body_state(w, b);
    /* some edges half damaged, some broken, and every edge of one node broken */
    uint64_t rng = 5;
    for (int32_t k = 0; k < s->nedges; k += 11)
      cl_test_damage_edge(w, b, s->edge[2 * k], s->edge[2 * k + 1], cl_test_rand01(&rng) < 0.5 ? 0.5 : 1.0);
    const int32_t node = st->cells[4 * 17]; /* corner 0 of a tet */
    for (int32_t q = s->adj_ptr[node]; q < s->adj_ptr[node + 1]; ++q) cl_test_damage_edge(w, b, node, s->adj_nb[q], 1.0);
    deform(st);
    for (int32_t i = 0; i < st->n; ++i) st->v[3 * i + 1] = 0.1 * st->X[3 * i];
    s->threads = threads;
    assert_int_equal(cl_gfem_update_elements(s, st), CL_OK);
    int32_t forms[4] = {0, 0, 0, 0}; /* warped, model, damaged, damaged with corner 0 free */
    for (int32_t e = 0; e < s->ntets; ++e) {
      if (s->dmg[e]) forms[2 + ((s->kform[e] & CL_TET_FREE0) != 0)]++;
      else forms[s->hk[e] ? 0 : 1]++;
    }
    print_message("graph_fem assembly, %d thread(s): %d warped, %d model, %d damaged (%d with corner 0 free)\n", threads,
                  forms[0], forms[1], forms[2] + forms[3], forms[3]);
    for (int k = 0; k < 4; ++k) assert_true(forms[k] > 0);

    const double g[3] = {0.0, -9.81, 0.0}, dt = 1e-2;
    cl_step_input in;
    memset(&in, 0, sizeof in);
    in.dt = dt;
    in.gravity = g;
    in.threads = threads;
    cl_gfem_assemble(s, st, &in, 1);
    const cl_bsr *A = s->sys.A;
    const int64_t nb = A->row_ptr[A->n];
    /* the mass, then each element's blocks in element order (the order the assembly adds them in):
     * the whole matrices of the model's and the damaged elements, the warped ones made from h */
    double *order = calloc(9 * (size_t)nb, sizeof(double));
    for (int32_t i = 0; i < st->n; ++i)
      for (int c = 0; c < 3; ++c) order[9 * A->diag[i] + 4 * c] += st->m[i];
    for (int32_t e = 0; e < s->ntets; ++e) {
      const int warp = !s->dmg[e] && s->hk[e];
      double K[144];
      cl_gfem_element_matrix(s, e, K);
      const double *h = s->h + 12 * e, c = dt * dt * s->vol[e];
      for (int a = 0; a < 4; ++a) {
        const double la[3] = {c * s->lambda0 * h[3 * a], c * s->lambda0 * h[3 * a + 1], c * s->lambda0 * h[3 * a + 2]};
        const double ma[3] = {c * s->mu0 * h[3 * a], c * s->mu0 * h[3 * a + 1], c * s->mu0 * h[3 * a + 2]};
        for (int bb = 0; bb < 4; ++bb) {
          double *blk = order + 9 * s->slot[16 * e + 4 * a + bb];
          if (warp) {
            cl_fem_stiffness_block_add(la, ma, h + 3 * bb, blk);
            continue;
          }
          for (int r = 0; r < 3; ++r)
            for (int q = 0; q < 3; ++q) blk[3 * r + q] += dt * dt * K[12 * (3 * a + r) + 3 * bb + q];
        }
      }
    }
    size_t differ = 0;
    for (int64_t q = 0; q < 9 * nb; ++q) differ += order[q] != A->val[q];
    print_message("  %zu of %lld entries of A differ from the element-order scatter of the whole matrices\n", differ,
                  (long long)(9 * nb));
    assert_true(differ == 0);
    free(order);
    cl_world_destroy(w);
  }
}

static void test_edge_stiffness_in_one_inverse(void **state) {
  (void)state;
  cl_world *w = cl_test_world(1e-2, 0.0, 1);
  const cl_id b = add_bar(w);
  cl_body_state *st = cl_world_body_state(w, b);
  for (int32_t e = 0; e < st->ncells; ++e) {
    const int32_t *t = st->cells + 4 * e;
    double bb[72], T[36], G[36], T1[36], G1[36];
    assert_true(cl_fem_edge_frame(st->X, t, bb, T));
    assert_true(cl_fem_edge_stiffness(T, 1e5, 2e4, G));
    assert_true(cl_fem_edge_stiffness_of(st->X, t, 1e5, 2e4, T1, G1));
    assert_memory_equal(T, T1, sizeof T);
    assert_memory_equal(G, G1, sizeof G);
  }
  const double flat[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
  const int32_t t[4] = {0, 1, 2, 3};
  double bb[72], T[36], G[36];
  assert_false(cl_fem_edge_frame(flat, t, bb, T));
  assert_false(cl_fem_edge_stiffness_of(flat, t, 1e5, 2e4, T, G));
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_assembly_is_the_scatter_of_the_elements),
      cmocka_unit_test(test_edge_stiffness_in_one_inverse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
