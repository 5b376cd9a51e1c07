/* The shortcuts of the shape-matching step against the plain algorithm:
 *  - the goal pass takes a cluster's member sums and SVD from the world's measure of the step
 *    before when nothing changed since; a fracture clears only the clusters it touches, so the
 *    trajectory through fractures must be bitwise that of recomputing every cluster;
 *  - strain limiting skips the sweep over a cluster's members when a bound shows that none can be
 *    clamped, and keeps the member sums up to date from the members that moved: the trajectory must
 *    match the plain algorithm (fresh sums, every member swept) to rounding, and sweeps must have
 *    been skipped;
 *  - the member sums, computed with two components per vector register, are bitwise those of the
 *    plain scalar loop;
 *  - step 2 stores the end-of-step velocities and step 4 redoes only the particles strain limiting
 *    moved or that lie in the colliders' box: positions and velocities must be bitwise those of
 *    recomputing every particle's velocity after strain limiting;
 *  - on one thread the goal pass sums each particle's velocity change itself, and strain limiting
 *    each particle's correction while it lists the clamping clusters' particles (the scatters): the
 *    trajectory through fractures must be bitwise that of the per-particle gathers. */
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
#include "solvers/shape_matching/shape_matching.h"
#include "solvers/shape_matching/sm_internal.h"
#include "world/world.h"

static cl_world *world(int threads) { return cl_test_world_seeded(1.0 / 60, 0.0, threads, 3); }

static cl_sm *solver_of(cl_world *w, cl_id b) { return cl_test_body_solver(w, b); }

/* A bar along x pulled apart at its ends at `speed` each (m/s); toughness < 0: no criterion. */
static cl_id pulled_bar(cl_world *w, double toughness, double gamma, double speed) {
  cl_mesh *m = cl_test_box(0.6, 0.15, 0.15);
  cl_param p[6] = {{"particles", 1500, NULL}, {"cluster_count", 40, NULL}, {"alpha", 0.8, NULL}, {"gamma", gamma, NULL},
                   {"damping", 10, NULL},     {"iterations", 6, NULL}};
  cl_param cp[1] = {{"toughness", toughness, NULL}};
  cl_id b = cl_test_add_body(w, "shape_matching", m, p, 6, toughness >= 0.0 ? "cluster_stretch" : NULL, cp, 1);
  cl_mesh_destroy(m);
  cl_test_x_slab(w, b, -1.0, -0.25, -speed);
  cl_test_x_slab(w, b, 0.25, 1.0, speed);
  return b;
}

typedef struct run_out {
  double *x;
  int32_t n;
  int64_t fractures, reused, sweeps, skips, scattered, sl_scattered;
} run_out;

static void run(double toughness, double gamma, double speed, int steps, int no_shortcuts, run_out *o) {
  cl_world *w = world(1);
  cl_id b = pulled_bar(w, toughness, gamma, speed);
  cl_sm *s = solver_of(w, b);
  s->no_shortcuts = no_shortcuts;
  assert_int_equal(cl_world_step(w, steps), CL_OK);
  o->x = cl_test_positions(w, b, &o->n);
  o->fractures = s->stats.fractures;
  o->reused = s->reused;
  o->sweeps = s->sl_sweeps;
  o->skips = s->sl_skips;
  o->scattered = s->scattered;
  o->sl_scattered = s->sl_scattered;
  cl_world_destroy(w);
}

/* The same fractures and bitwise the same positions; frees both. */
static void expect_same_and_free(run_out *a, run_out *b) {
  assert_int_equal(a->fractures, b->fractures);
  assert_int_equal(a->n, b->n);
  assert_memory_equal(a->x, b->x, sizeof(double) * 3 * (size_t)a->n);
  free(a->x);
  free(b->x);
}

static void test_measure_reuse_is_exact_through_fracture(void **state) {
  (void)state;
  run_out a, b;
  run(0.02, 0.5, 0.3, 90, 0, &a); /* shortcuts on */
  run(0.02, 0.5, 0.3, 90, 1, &b); /* every cluster summed and decomposed afresh */
  print_message("fractures %lld, particles %d; clusters that reused the measure: %lld (plain: %lld)\n",
                (long long)a.fractures, a.n, (long long)a.reused, (long long)b.reused);
  assert_true(a.fractures > 5);            /* the bar broke, many times */
  assert_true(a.reused > 40 * 60);         /* and most clusters reused the measure, fractures or not */
  assert_int_equal(b.reused, 0);
  expect_same_and_free(&a, &b);
}

/* The scatter adds each membership's term to its particle in cluster order, the gather in the
 * order of the particle's reverse-index entries: the same order while the pool holds the clusters
 * in slot order, which splits (new slots appended) and compactions keep. A bar that breaks many
 * times must follow the gather's trajectory bit for bit. */
static void test_goal_scatter_is_the_gather(void **state) {
  (void)state;
  run_out a, b;
  run(0.02, 0.5, 0.3, 90, 0, &a);  /* the scatter (one thread) */
  run(0.02, 0.5, 0.3, 90, 32, &b); /* the gather */
  print_message("fractures %lld, particles %d; steps scattered %lld (gather: %lld), clamping clusters %lld\n",
                (long long)a.fractures, a.n, (long long)a.scattered, (long long)b.scattered, (long long)a.sl_scattered);
  assert_true(a.fractures > 5);
  assert_int_equal(a.scattered, 90);
  assert_int_equal(b.scattered, 0);
  assert_true(a.sl_scattered > 20); /* strain limiting's scatter too (clamping clusters) */
  assert_int_equal(b.sl_scattered, 0);
  expect_same_and_free(&a, &b);
}

static void test_strain_limit_bounds_match_plain_sweeps(void **state) {
  (void)state;
  run_out a, b;
  /* a tight limit (gamma 0.2) and a pull of 0.15 m/s at each end: most clusters clamp in most
   * iterations, a tenth of the sweeps can be skipped */
  run(-1.0, 0.2, 0.15, 60, 0, &a);
  run(-1.0, 0.2, 0.15, 60, 2, &b);
  double dmax = 0.0;
  assert_int_equal(a.n, b.n);
  for (int32_t k = 0; k < 3 * a.n; ++k) dmax = fmax(dmax, fabs(a.x[k] - b.x[k]));
  print_message("strain limiting: %lld sweeps and %lld skipped (plain: %lld sweeps); max |dx| %.3g m\n",
                (long long)a.sweeps, (long long)a.skips, (long long)b.sweeps, dmax);
  assert_true(a.skips > 0);
  assert_true(a.sweeps < b.sweeps);
  assert_int_equal(b.skips, 0);
  assert_true(a.sweeps > 0); /* something clamped: the comparison means something */
  assert_true(dmax < 1e-9);  /* the same trajectory up to rounding (the bar is 0.6 m long) */
  free(a.x);
  free(b.x);
}

/* Small clusters flying off without deforming (fragments of a shattered body): strain limiting's
 * bound from the box of the members' displacements (translation-free) skips them where the bound
 * from the largest displacement alone cannot, with the trajectory of sweeping every cluster. */
static void fly(int no_shortcuts, run_out *o, int64_t *box_skips) {
  cl_world *w = world(1);
  cl_mesh *m = cl_test_box(0.3, 0.2, 0.1);
  cl_param p[5] = {{"particles", 600, NULL}, {"cluster_count", 60, NULL}, {"alpha", 0.8, NULL}, {"gamma", 0.2, NULL}, {"iterations", 4, NULL}};
  cl_id b = cl_test_add_body(w, "shape_matching", m, p, 5, NULL, NULL, 0);
  cl_mesh_destroy(m);
  const double v[3] = {3.0, -1.0, 0.5}, omega[3] = {0.0, 0.0, 0.4};
  assert_int_equal(cl_body_set_rigid_velocity(w, b, v, omega), CL_OK);
  cl_sm *s = solver_of(w, b);
  s->no_shortcuts = no_shortcuts;
  assert_int_equal(cl_world_step(w, 40), CL_OK);
  o->x = cl_test_positions(w, b, &o->n);
  o->sweeps = s->sl_sweeps;
  o->skips = s->sl_skips;
  *box_skips = s->sl_box_skips;
  cl_world_destroy(w);
}

static void test_displacement_box_skips_rigid_flight(void **state) {
  (void)state;
  run_out a, b;
  int64_t box_a = 0, box_b = 0;
  fly(0, &a, &box_a);
  fly(2, &b, &box_b);
  double dmax = 0.0;
  assert_int_equal(a.n, b.n);
  for (int32_t k = 0; k < 3 * a.n; ++k) dmax = fmax(dmax, fabs(a.x[k] - b.x[k]));
  print_message("rigid flight: %lld skips, %lld of them by the displacement box (plain: %lld sweeps); "
                "max |dx| %.3g m\n", (long long)a.skips, (long long)box_a, (long long)b.sweeps, dmax);
  assert_true(box_a > 60 * 20); /* most clusters in most steps: the travel (5 cm per step) is no obstacle */
  assert_int_equal(box_b, 0);
  assert_true(dmax < 1e-9);
  free(a.x);
  free(b.x);
}

/* A plate clamped at two edges, struck by a heavy sphere (a collider with a box) so that strain
 * limiting clamps and the sphere touches particles; with or without the early end velocities (bit
 * 16 of no_shortcuts). */
static void struck(int no_shortcuts, double **x, double **v, int32_t *n, int64_t *redone) {
  cl_world *w = world(1);
  cl_mesh *m = cl_test_box(0.4, 0.4, 0.05);
  cl_param p[5] = {{"particles", 1200, NULL}, {"cluster_count", 30, NULL}, {"alpha", 0.8, NULL}, {"gamma", 0.5, NULL}, {"iterations", 4, NULL}};
  cl_id b = cl_test_add_body(w, "shape_matching", m, p, 5, NULL, NULL, 0);
  cl_mesh_destroy(m);
  cl_test_x_slab(w, b, -1.0, -0.17, 0.0);
  cl_test_x_slab(w, b, 0.17, 1.0, 0.0);
  cl_test_sphere_along_z(w, 0.06, 0.1, -1.5, 50.0);
  cl_sm *s = solver_of(w, b);
  s->no_shortcuts = no_shortcuts;
  assert_int_equal(cl_world_step(w, 30), CL_OK);
  *x = cl_test_positions(w, b, n);
  *v = malloc(sizeof(double) * 3 * (size_t)*n);
  assert_int_equal(cl_body_copy_velocities(w, b, *v, 3 * (int64_t)*n), CL_OK);
  *redone = s->vredone;
  cl_world_destroy(w);
}

static void test_early_end_velocities_are_exact(void **state) {
  (void)state;
  double *xa, *va, *xb, *vb;
  int32_t na, nb;
  int64_t ra, rb;
  struck(0, &xa, &va, &na, &ra);
  struck(16, &xb, &vb, &nb, &rb);
  assert_int_equal(na, nb);
  double dv = 0.0, vmax = 0.0;
  for (int32_t k = 0; k < 3 * na; ++k) {
    dv = fmax(dv, fabs(va[k] - vb[k]));
    vmax = fmax(vmax, fabs(va[k]));
  }
  print_message("struck plate: %lld of %d x 30 particle velocities redone after strain limiting, max |v| "
                "%.3g m/s, max |dv| %.3g\n", (long long)ra, na, vmax, dv);
  assert_memory_equal(xa, xb, sizeof(double) * 3 * (size_t)na);
  assert_memory_equal(va, vb, sizeof(double) * 3 * (size_t)na);
  assert_true(vmax > 0.1);                  /* the sphere did strike */
  assert_true(ra > 30);                     /* strain limiting or the box flagged particles */
  assert_true(ra < (int64_t)na * 30 / 2);   /* and most were left alone */
  assert_int_equal(rb, 0);                  /* the plain pass does not count */
  free(xa), free(va), free(xb), free(vb);
}

/* The member sums of the step and the measure keep two components in the lanes of a vector
 * register (sm_step.c, v2d): each lane must do the scalar code's operations in its order, so the
 * sums the measure keeps (msum: xref, sx, A_xr about xref, the second moments C) are bitwise those
 * of the plain scalar loop written here, at the deformed positions of a pulled bar. */
static void test_member_sums_are_the_scalar_sums(void **state) {
  (void)state;
  cl_world *w = world(1);
  cl_id b = pulled_bar(w, 10.0, 0.5, 0.3); /* a criterion (so the world measures), no fracture */
  cl_sm *s = solver_of(w, b);
  assert_int_equal(cl_world_step(w, 20), CL_OK);
  const cl_body_state *st = cl_world_body_state(w, b);
  assert_true(s->msum_ok); /* the measure ran at these positions */
  int32_t checked = 0;
  double spread = 0.0;
  for (int32_t c = 0; c < s->ncl; ++c) {
    if (!s->alive[c] || !s->mok[c]) continue;
    const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
    const double *x = st->x, *X = st->X, *rc = s->rcom + 3 * (size_t)c;
    const double *r = x + 3 * (size_t)s->mp[k0];
    double sx[3] = {0, 0, 0}, A[9] = {0}, C[9] = {0};
    for (int64_t k = k0; k < k1; ++k) {
      const double *xi = x + 3 * (size_t)s->mp[k], *Xi = X + 3 * (size_t)s->mp[k];
      const double wm = s->mwm[k];
      double d[3], p[3], u[3];
      for (int a = 0; a < 3; ++a) {
        d[a] = xi[a] - r[a];
        p[a] = Xi[a] - rc[a];
        u[a] = wm * d[a];
      }
      for (int a = 0; a < 3; ++a) {
        sx[a] += u[a];
        for (int q = 0; q < 3; ++q) {
          A[3 * a + q] += u[a] * p[q];
          if (q >= a) C[3 * a + q] += u[a] * d[q];
        }
      }
    }
    C[3] = C[1], C[6] = C[2], C[7] = C[5];
    const double *o = s->msum + SM_MSUM * (size_t)c;
    assert_memory_equal(o, r, 3 * sizeof(double));
    assert_memory_equal(o + 3, sx, sizeof sx);
    assert_memory_equal(o + 6, A, sizeof A);
    assert_memory_equal(o + 15, C, sizeof C);
    spread = fmax(spread, fabs(A[0] - A[4]) + fabs(A[1]) + fabs(A[3]));
    ++checked;
  }
  print_message("member sums of %d clusters bitwise those of the scalar loop\n", checked);
  assert_true(checked > 20);
  assert_true(spread > 0.0); /* the sums mean something: a deformed, not a trivial, state */
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_measure_reuse_is_exact_through_fracture),
      cmocka_unit_test(test_goal_scatter_is_the_gather),
      cmocka_unit_test(test_strain_limit_bounds_match_plain_sweeps),
      cmocka_unit_test(test_displacement_box_skips_rigid_flight),
      cmocka_unit_test(test_member_sums_are_the_scalar_sums),
      cmocka_unit_test(test_early_end_velocities_are_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
