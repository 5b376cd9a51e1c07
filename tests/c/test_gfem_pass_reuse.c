/* graph_fem runs one element pass per step (src/solvers/graph_fem/element.c): the step computes the
 * next step's pass at the positions it leaves, and the measure and the next step read it. These
 * tests hold the reuse to what a fresh pass computes:
 *   - after steps, after a node moved between steps (a script, a tool), after a fracture changed
 *     some elements' damage, after a parameter changed: the values read are bit for bit those of a
 *     pass from scratch at the same positions;
 *   - the measure's stress is the element's stress at the measured positions (intact: P F^T / J of
 *     the model; damaged: the degraded small-strain stress T^T G_d b u turned by the element's
 *     rotation), within 1e-12 of the largest, and a damaged body turned rigidly measures none;
 *   - passes run ahead that keep being wasted back off, and resume once they are used again. */
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
#include "support/test_worlds.h"
#include "world/world.h"

/* A world (gravity, dt 2 ms, one thread) with a 6 x 3 x 3 graph_fem bar of 0.3 x 0.1 x 0.1 m (324
 * tets, the default material, corotated) held at x = 0, tangent model (0) or warped (1); with
 * `measured`, edge_stress at a strength nothing reaches (so every step measures). */
static cl_body *open_bar(cl_world **w, int tangent, int measured) {
  const double lo[3] = {0, 0, 0}, hi[3] = {0.3, 0.1, 0.1};
  cl_mesh *m = NULL;
  assert_int_equal(cl_tet_grid(6, 3, 3, lo, hi, &m), CL_OK);
  *w = cl_test_world(2e-3, -9.81, 1);
  const cl_param p[2] = {{"model", CL_FEM_COROTATED, NULL}, {"tangent", tangent, NULL}};
  const cl_param cp[1] = {{"strength", 1e12, NULL}};
  const cl_id id = cl_test_add_body(*w, "graph_fem", m, p, 2, measured ? "edge_stress" : NULL, cp, 1);
  cl_mesh_destroy(m);
  cl_test_x_slab(*w, id, -1.0, 1e-6, 0.0);
  cl_body *b = NULL;
  assert_int_equal(cl_world_body(*w, id, &b), CL_OK);
  return b;
}

/* What the pass leaves per tet, in one buffer. */
static double *snapshot(const cl_gfem *s) {
  const size_t n = (size_t)s->ntets;
  double *o = malloc(sizeof(double) * n * (12 + CL_TET_UPPER + 12 + 1 + 9 + 9 + 2));
  double *p = o;
  memcpy(p, s->fe, sizeof(double) * 12 * n), p += 12 * n;
  memcpy(p, s->Ke, sizeof(double) * CL_TET_UPPER * n), p += CL_TET_UPPER * n;
  memcpy(p, s->h, sizeof(double) * 12 * n), p += 12 * n;
  memcpy(p, s->psi, sizeof(double) * n), p += n;
  memcpy(p, s->Fe, sizeof(double) * 9 * n), p += 9 * n;
  memcpy(p, s->sig, sizeof(double) * 9 * n), p += 9 * n;
  for (size_t e = 0; e < n; ++e) p[e] = s->hk[e];
  p += n;
  for (size_t e = 0; e < n; ++e) p[e] = s->kform[e];
  return o;
}

/* The pass as the solver reads it now against a pass from scratch at the same positions: equal bit
 * for bit (values of an intact element depend only on its positions; a damaged one's rotation is
 * fitted again from them). Also the measure: it reports the pass's stress and F, and each tet's
 * largest edge damage. */
static void expect_fresh(cl_body *b, const char *when) {
  cl_gfem *s = b->solver;
  cl_body_state *st = &b->state;
  assert_int_equal(cl_body_measure(b), CL_OK);
  double *reused = snapshot(s);
  const size_t n9 = 9 * (size_t)s->ntets;
  double *measured = malloc(sizeof(double) * 2 * n9);
  memcpy(measured, b->units.stress, sizeof(double) * n9);
  memcpy(measured + n9, b->units.F, sizeof(double) * n9);
  /* the measured damage of a tet (kept by the pass when its damage changed) is the largest of its
   * edges' damages now */
  for (int32_t e = 0; e < s->ntets; ++e) {
    double d[6], dmax = 0.0;
    cl_gfem_element_damage(s, e, d);
    for (int k = 0; k < 6; ++k) dmax = fmax(dmax, d[k]);
    assert_true(b->units.damage[e] == dmax);
  }
  assert_int_equal(cl_gfem_update_elements(s, st), CL_OK); /* the next step's read */
  double *again = snapshot(s);
  s->key_valid = 0;
  assert_int_equal(cl_gfem_update_elements(s, st), CL_OK);
  double *fresh = snapshot(s);
  const size_t bytes = sizeof(double) * (size_t)s->ntets * (12 + CL_TET_UPPER + 12 + 1 + 9 + 9 + 2);
  size_t diff = 0;
  for (size_t k = 0; k < bytes / sizeof(double); ++k) diff += reused[k] != fresh[k] || again[k] != fresh[k];
  print_message("%s: %zu of %zu values differ from a fresh pass\n", when, diff, bytes / sizeof(double));
  assert_true(diff == 0);
  assert_memory_equal(measured, s->sig, sizeof(double) * n9);
  assert_memory_equal(measured + n9, s->Fe, sizeof(double) * n9);
  free(reused);
  free(again);
  free(fresh);
  free(measured);
}

/* Damage edge (a, b) to d through the solver's topology operation, as the world does. */
static void damage_edge(cl_body *b, int32_t a, int32_t c, double d) {
  cl_fracture_event e = cl_event_damage_edge(a, c, 0, d, 1.0, 1.0);
  int32_t applied = 0;
  assert_int_equal(b->ops->fracture(b->solver, &b->state, &e, 1, &applied), CL_OK);
  b->state.topology_version += applied;
}

static void test_reused_pass_is_a_fresh_pass(void **state) {
  (void)state;
  for (int tangent = 0; tangent <= 1; ++tangent) {
    cl_world *w = NULL;
    cl_body *b = open_bar(&w, tangent, 1);
    cl_gfem *s = b->solver;
    assert_int_equal(cl_world_step(w, 5), CL_OK);
    assert_int_equal(s->prefetch_misses, 0); /* every pass run ahead was used */
    assert_false(s->prefetched);            /* the measure used the last one */
    expect_fresh(b, tangent ? "warped, after 5 steps" : "model, after 5 steps");

    /* a node moved between steps (a script, a brush): the pass is redone */
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    b->state.x[3 * (b->state.n - 1) + 1] += 2e-3;
    expect_fresh(b, "a node moved");

    /* fractures: partial damage on some edges, one broken: their elements alone are redone */
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    damage_edge(b, s->edge[2 * 10], s->edge[2 * 10 + 1], 0.4);
    damage_edge(b, s->edge[2 * 40], s->edge[2 * 40 + 1], 1.0);
    damage_edge(b, s->edge[2 * 41], s->edge[2 * 41 + 1], 0.7);
    expect_fresh(b, "after damage");
    assert_int_equal(cl_world_step(w, 2), CL_OK);
    damage_edge(b, s->edge[2 * 40], s->edge[2 * 40 + 1], 1.0 - 1e-9); /* lower: no change */
    damage_edge(b, s->edge[2 * 10], s->edge[2 * 10 + 1], 0.9);        /* a damaged element, more */
    expect_fresh(b, "more damage");

    /* a parameter changed between steps */
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    s->p[GF_WARP_LIMIT] = tangent ? 1e-4 : 0.5;
    expect_fresh(b, "warp_limit changed");
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    expect_fresh(b, "a step later");
    cl_world_destroy(w);
  }
}

/* The measured stress of every tet against the direct computation at the measured positions. */
static void test_measured_stress_is_the_element_stress(void **state) {
  (void)state;
  for (int tangent = 0; tangent <= 1; ++tangent) {
    cl_world *w = NULL;
    cl_body *b = open_bar(&w, tangent, 1);
    cl_gfem *s = b->solver;
    for (int32_t k = 0; k < s->nedges; k += 7) damage_edge(b, s->edge[2 * k], s->edge[2 * k + 1], k % 3 ? 0.5 : 1.0);
    assert_int_equal(cl_world_step(w, 20), CL_OK);
    const cl_body_state *st = &b->state;
    double worst = 0.0, smax = 0.0;
    int32_t damaged = 0;
    for (int32_t e = 0; e < s->ntets; ++e) {
      const int32_t *t = st->cells + 4 * e;
      const cl_mat3 F = cl_fem_deformation_gradient(st->x, t, s->Dminv + 9 * e);
      double ref[9];
      if (!s->dmg[e]) {
        cl_mat3 P;
        assert_int_equal(cl_fem_piola(&s->mat, &F, NULL, &P, NULL, 0), CL_OK);
        const double J = cl_mat3_det(&F);
        const cl_mat3 PFt = cl_mat3_mul_nt(&P, &F);
        for (int k = 0; k < 9; ++k) ref[k] = PFt.m[k] / J;
      } else {
        ++damaged;
        double bb[72], T[36], G[36], Gd[36], d[6], u[12], ed[6], ge[6], sv[6];
        assert_true(cl_fem_edge_frame(st->X, t, bb, T));
        assert_true(cl_fem_edge_stiffness(T, s->lambda0, s->mu0, G));
        cl_gfem_element_damage(s, e, d);
        cl_fem_edge_degrade(G, d, Gd);
        const double *R = s->Re + 9 * e;
        for (int a = 0; a < 4; ++a)
          for (int i = 0; i < 3; ++i)
            u[3 * a + i] = R[i] * st->x[3 * t[a]] + R[3 + i] * st->x[3 * t[a] + 1] + R[6 + i] * st->x[3 * t[a] + 2] -
                           st->X[3 * t[a] + i];
        for (int k = 0; k < 6; ++k) {
          ed[k] = 0.0;
          for (int q = 0; q < 12; ++q) ed[k] += bb[12 * k + q] * u[q];
        }
        for (int i = 0; i < 6; ++i) {
          ge[i] = 0.0;
          for (int k = 0; k < 6; ++k) ge[i] += Gd[6 * i + k] * ed[k];
        }
        for (int i = 0; i < 6; ++i) {
          sv[i] = 0.0;
          for (int k = 0; k < 6; ++k) sv[i] += T[6 * k + i] * ge[k];
        }
        const double Sr[9] = {sv[0], sv[3], sv[5], sv[3], sv[1], sv[4], sv[5], sv[4], sv[2]};
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) {
            double sum = 0.0;
            for (int p = 0; p < 3; ++p)
              for (int q = 0; q < 3; ++q) sum += R[3 * i + p] * Sr[3 * p + q] * R[3 * j + q];
            ref[3 * i + j] = sum;
          }
      }
      for (int k = 0; k < 9; ++k) {
        worst = fmax(worst, fabs(ref[k] - b->units.stress[9 * e + k]));
        smax = fmax(smax, fabs(ref[k]));
        assert_true(F.m[k] == b->units.F[9 * e + k]);
      }
    }
    print_message("tangent %s: %d of %d tets damaged; measured stress against the direct computation: %.2g of %.3g Pa\n",
                  tangent ? "warped" : "model", damaged, s->ntets, worst, smax);
    assert_true(damaged > 0 && damaged < s->ntets);
    assert_true(smax > 0.0);
    assert_true(worst <= 1e-12 * smax);
    cl_world_destroy(w);
  }
}

/* A damaged body turned rigidly between steps (0.3 rad about (1, 2, 3)) is measured without stress:
 * each damaged tet's rotation is fitted at the measured positions. (The stress used to take the
 * rotation of the last pass, before the turn: a spurious compression of about E 0.3^2 / 2 on the
 * turned edges, which held back breaking wherever pieces spin fast.) */
static void test_turned_damaged_body_has_no_stress(void **state) {
  (void)state;
  cl_world *w = NULL;
  cl_body *b = open_bar(&w, 1, 1);
  cl_gfem *s = b->solver;
  for (int32_t k = 0; k < s->nedges; k += 5) damage_edge(b, s->edge[2 * k], s->edge[2 * k + 1], k % 2 ? 0.5 : 1.0);
  cl_body_state *st = &b->state;
  memcpy(st->x, st->X, sizeof(double) * 3 * (size_t)st->n);
  assert_int_equal(cl_body_measure(b), CL_OK); /* the last pass at rest */
  const double c = cos(0.3), sn = sin(0.3), n0 = 1 / sqrt(14.0), a[3] = {n0, 2 * n0, 3 * n0};
  for (int32_t i = 0; i < st->n; ++i) {
    const double *y = st->X + 3 * i, d = a[0] * y[0] + a[1] * y[1] + a[2] * y[2];
    const double cr[3] = {a[1] * y[2] - a[2] * y[1], a[2] * y[0] - a[0] * y[2], a[0] * y[1] - a[1] * y[0]};
    for (int k = 0; k < 3; ++k) st->x[3 * i + k] = y[k] * c + cr[k] * sn + a[k] * d * (1 - c) + 0.02;
  }
  assert_int_equal(cl_body_measure(b), CL_OK);
  double worst = 0.0;
  int32_t damaged = 0;
  for (int32_t e = 0; e < s->ntets; ++e) {
    damaged += s->dmg[e];
    for (int k = 0; k < 9; ++k) worst = fmax(worst, fabs(b->units.stress[9 * e + k]));
  }
  const double young = s->mu0 * 2.0 * (1.0 + s->lambda0 / (2.0 * (s->lambda0 + s->mu0)));
  print_message("turned by 0.3 rad: %d damaged tets, largest stress %.2g Pa (E = %.3g Pa, E 0.3^2 / 2 = %.3g Pa)\n",
                damaged, worst, young, 0.045 * young);
  assert_true(damaged > s->ntets / 2);
  assert_true(worst <= 1e-9 * young);
  cl_world_destroy(w);
}

/* Without a criterion (nothing measures) and nodes moved after every step, the passes run ahead are
 * wasted, so they back off; once nothing moves the nodes, one is used again and they resume every
 * step. (With a criterion the measure uses the pass at the step's positions, moved later or not.) */
static void test_wasted_passes_back_off(void **state) {
  (void)state;
  cl_world *w = NULL;
  cl_body *b = open_bar(&w, 1, 0);
  cl_gfem *s = b->solver;
  for (int k = 0; k < 10; ++k) {
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    b->state.x[3 * (b->state.n - 1)] += 1e-4;
  }
  print_message("moved after every step: %d misses in a row, next pass ahead in %d steps\n", s->prefetch_misses,
                s->prefetch_wait);
  assert_true(s->prefetch_misses >= 2);
  expect_fresh(b, "after the back-off");
  int32_t steps = 0;
  while (s->prefetch_misses > 0 && steps < 600) {
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    ++steps;
  }
  print_message("left alone: passes ahead resume after %d steps\n", steps);
  assert_int_equal(s->prefetch_misses, 0);
  expect_fresh(b, "resumed");
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reused_pass_is_a_fresh_pass),
      cmocka_unit_test(test_measured_stress_is_the_element_stress),
      cmocka_unit_test(test_turned_damaged_body_has_no_stress),
      cmocka_unit_test(test_wasted_passes_back_off),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
