/* Contact between different shape-matching bodies (paper sec 3.1, collision handling; issue 4):
 * the world's broad phase (world/body_contact.c) and the solver's pair op (sm_collide.c), which
 * pushes the particles of each body out of the other's cluster proxies with the reaction on the
 * proxy's cluster. Two cubes thrown at each other without gravity must not pass through each other,
 * must come apart again, must keep their total linear momentum, and must give the same result with
 * 1 and 2 threads; two cubes far apart never reach the pair op. */
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

#include "base/error.h"
#include "cleave/world.h"
#include "geom/mesh.h"
#include "solvers/corotational/corot.h"
#include "solvers/shape_matching/shape_matching.h"
#include "solvers/shape_matching/sm_internal.h"
#include "world/body_contact.h"
#include "world/world.h"

enum { CUBE_PARTICLES = 700, CUBE_CLUSTERS = 12 };
static const double k_side = 0.2; /* m, cube edge */

static cl_world *world(int threads, int substeps) {
  cl_world_def def;
  cl_world_def_default(&def);
  def.dt = 1.0 / 60;
  def.gravity[0] = def.gravity[1] = def.gravity[2] = 0.0;
  def.threads = threads;
  def.substeps = substeps;
  def.seed = 11;
  cl_world *w = NULL;
  assert_int_equal(cl_world_create(&def, &w), CL_OK);
  return w;
}

/* A shape-matching cube centred at `at` (m) moving with velocity `vel` (m/s). */
static cl_id cube(cl_world *w, int32_t particles, int32_t clusters, const double *at, const double *vel) {
  cl_mesh *m = cl_test_box(k_side, k_side, k_side);
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.solver = "shape_matching";
  cl_param p[3] = {{"particles", particles, NULL}, {"cluster_count", clusters, NULL}, {"restitution", 1.0, NULL}};
  bd.params = p;
  bd.param_count = 3;
  bd.material.density = 1000.0;
  cl_id b;
  assert_int_equal(cl_world_add_body(w, &bd, m, &b), CL_OK);
  cl_mesh_destroy(m);
  cl_body_state *st = cl_world_body_state(w, b);
  for (int32_t i = 0; i < st->n; ++i)
    for (int k = 0; k < 3; ++k) {
      st->x[3 * i + k] += at[k];
      st->v[3 * i + k] = vel[k];
    }
  return b;
}

static void add_momentum(const cl_body_state *s, double *p, double *scale) {
  for (int32_t i = 0; i < s->n; ++i)
    for (int k = 0; k < 3; ++k) {
      p[k] += s->m[i] * s->v[3 * i + k];
      *scale += s->m[i] * fabs(s->v[3 * i + k]);
    }
}

/* Angular momentum about the origin, and the sum of m |x| |v| as its scale. */
static void add_angular(const cl_body_state *s, double *l, double *scale) {
  for (int32_t i = 0; i < s->n; ++i) {
    const double *x = s->x + 3 * i, *v = s->v + 3 * i, m = s->m[i];
    *scale += m * sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) * sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    l[0] += m * (x[1] * v[2] - x[2] * v[1]);
    l[1] += m * (x[2] * v[0] - x[0] * v[2]);
    l[2] += m * (x[0] * v[1] - x[1] * v[0]);
  }
}

static void mean_velocity(const cl_body_state *s, double *v) {
  double M = 0.0;
  v[0] = v[1] = v[2] = 0.0;
  for (int32_t i = 0; i < s->n; ++i) {
    M += s->m[i];
    for (int k = 0; k < 3; ++k) v[k] += s->m[i] * s->v[3 * i + k];
  }
  for (int k = 0; k < 3; ++k) v[k] /= M;
}

/* Deepest particle of a inside the axis-aligned box of b's particles (0 when none is inside): the
 * distance to the nearest face of that box. The cubes stay axis-aligned in a head-on throw, so the
 * box is their geometry up to the sampling's surface layer. */
static double depth_inside(const cl_body_state *a, const cl_body_state *b) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int32_t i = 0; i < b->n; ++i)
    for (int k = 0; k < 3; ++k) {
      lo[k] = fmin(lo[k], b->x[3 * i + k]);
      hi[k] = fmax(hi[k], b->x[3 * i + k]);
    }
  double worst = 0.0;
  for (int32_t i = 0; i < a->n; ++i) {
    double d = INFINITY;
    for (int k = 0; k < 3; ++k) d = fmin(d, fmin(a->x[3 * i + k] - lo[k], hi[k] - a->x[3 * i + k]));
    worst = fmax(worst, d);
  }
  return worst;
}

typedef struct throw_result {
  int32_t na, nb;
  double *x;          /* 3 (na + nb) final positions, a then b */
  double p0[3], p1[3], pscale;
  double l0[3], l1[3], lscale; /* angular momentum about the origin, at the start and the end */
  double deepest;     /* over the run */
  double depth_end;   /* at the end */
  double approach;    /* relative speed along x at the end: v_a - v_b (> 0 = still approaching) */
  double gap_end;     /* min x of b minus max x of a at the end */
  double spacing;
} throw_result;

/* Two cubes 5 cm apart thrown at each other along x at `speed` each, for `steps` steps of 1/60 s
 * with `substeps` substeps each. */
static void throw_cubes(int threads, int substeps, int32_t particles, int32_t clusters, double speed, int steps,
                        double dy, throw_result *r) {
  cl_world *w = world(threads, substeps);
  const double gap = 0.05, off = 0.5 * (k_side + gap);
  double at_a[3] = {-off, -0.5 * dy, 0.0}, at_b[3] = {off, 0.5 * dy, 0.0};
  double va[3] = {speed, 0.0, 0.0}, vb[3] = {-speed, 0.0, 0.0};
  cl_id a = cube(w, particles, clusters, at_a, va), b = cube(w, particles, clusters, at_b, vb);
  cl_body *ba = NULL;
  assert_int_equal(cl_world_body(w, a, &ba), CL_OK);
  cl_sm_stats ss;
  assert_int_equal(cl_shape_matching_stats(ba->solver, &ss), CL_OK);
  r->spacing = ss.spacing;
  memset(r->p0, 0, sizeof r->p0);
  memset(r->p1, 0, sizeof r->p1);
  r->pscale = 0.0;
  add_momentum(cl_world_body_state(w, a), r->p0, &r->pscale);
  add_momentum(cl_world_body_state(w, b), r->p0, &r->pscale);
  memset(r->l0, 0, sizeof r->l0);
  memset(r->l1, 0, sizeof r->l1);
  r->lscale = 0.0;
  add_angular(cl_world_body_state(w, a), r->l0, &r->lscale);
  add_angular(cl_world_body_state(w, b), r->l0, &r->lscale);
  r->deepest = 0.0;
  for (int s = 0; s < steps; ++s) {
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    const cl_body_state *sa = cl_world_body_state(w, a), *sb = cl_world_body_state(w, b);
    r->deepest = fmax(r->deepest, fmax(depth_inside(sa, sb), depth_inside(sb, sa)));
  }
  const cl_body_state *sa = cl_world_body_state(w, a), *sb = cl_world_body_state(w, b);
  double pd = 0.0;
  add_momentum(sa, r->p1, &pd);
  add_momentum(sb, r->p1, &pd);
  add_angular(sa, r->l1, &pd);
  add_angular(sb, r->l1, &pd);
  r->depth_end = fmax(depth_inside(sa, sb), depth_inside(sb, sa));
  double ma[3], mb[3];
  mean_velocity(sa, ma);
  mean_velocity(sb, mb);
  r->approach = ma[0] - mb[0];
  double amax = -INFINITY, bmin = INFINITY;
  for (int32_t i = 0; i < sa->n; ++i) amax = fmax(amax, sa->x[3 * i]);
  for (int32_t i = 0; i < sb->n; ++i) bmin = fmin(bmin, sb->x[3 * i]);
  r->gap_end = bmin - amax;
  r->na = sa->n;
  r->nb = sb->n;
  r->x = malloc(sizeof(double) * 3 * (size_t)(sa->n + sb->n));
  memcpy(r->x, sa->x, sizeof(double) * 3 * (size_t)sa->n);
  memcpy(r->x + 3 * (size_t)sa->n, sb->x, sizeof(double) * 3 * (size_t)sb->n);
  cl_world_destroy(w);
}

/* ---- the head-on throw ------------------------------------------------------------------------ */

static void test_cubes_collide_and_separate(void **state) {
  (void)state;
  throw_result r;
  throw_cubes(1, 2, CUBE_PARTICLES, CUBE_CLUSTERS, 1.0, 60, 0.0, &r);
  double dp = 0.0;
  for (int k = 0; k < 3; ++k) dp = fmax(dp, fabs(r.p1[k] - r.p0[k]));
  print_message("two cubes (%d + %d particles, spacing %.4f m) at 1 m/s each: deepest particle %.4f m inside the "
                "other's box during the run, %.4f m at the end; gap at the end %.4f m; relative approach speed "
                "%.4f m/s; momentum change %.3g N s of %.3g N s\n",
                r.na, r.nb, r.spacing, r.deepest, r.depth_end, r.gap_end, r.approach, dp, r.pscale);
  /* no interpenetration at the end (a particle inside the other's box by more than a tenth of the
   * spacing would count) */
  assert_true(r.depth_end <= 0.1 * r.spacing);
  /* and never deeper than a spacing during the impact; without contact the cubes would pass through
   * each other (2 m/s closing for a second). Two substeps keep the closing per substep (1.7 cm)
   * below the spacing (2 cm): with one substep a few particles slip deeper (9 cm measured), see
   * docs/solvers/shape_matching.md */
  assert_true(r.deepest <= 1.0 * r.spacing);
  /* they came apart: no longer approaching, and not in contact */
  assert_true(r.approach < 0.0);
  assert_true(r.gap_end > 0.0);
  /* total linear momentum: the pair op moves momentum between the bodies exactly (rounding only) */
  assert_true(dp <= 1e-12 * r.pscale);
  free(r.x);
}

/* An off-centre throw (centres 10 cm apart across the line of flight): the cubes spin off. Linear
 * and angular momentum are both kept to rounding: the cluster takes the reaction as a rigid motion
 * with lever arms at the step-start positions (sm_collide.c), and the solver's step conserves both
 * without damping (torque_free = 1). */
static void test_glancing_throw(void **state) {
  (void)state;
  throw_result r;
  throw_cubes(1, 2, CUBE_PARTICLES, CUBE_CLUSTERS, 1.0, 45, 0.1, &r);
  double dp = 0.0, dl = 0.0, l0 = 0.0;
  for (int k = 0; k < 3; ++k) {
    dp = fmax(dp, fabs(r.p1[k] - r.p0[k]));
    dl = fmax(dl, fabs(r.l1[k] - r.l0[k]));
    l0 = fmax(l0, fabs(r.l0[k]));
  }
  print_message("glancing throw: momentum change %.3g of %.3g N s; angular momentum about the origin %.6g -> %.6g "
                "kg m^2/s (change %.3g, scale %.3g); they end %.3f m apart along x, approaching at %.3f m/s\n",
                dp, r.pscale, r.l0[2], r.l1[2], dl, r.lscale, r.gap_end, r.approach);
  assert_true(l0 > 0.1 * r.lscale); /* the throw does carry angular momentum */
  assert_true(dp <= 1e-12 * r.pscale);
  assert_true(dl <= 1e-12 * r.lscale);
  assert_true(r.approach < 0.0); /* they came apart */
  free(r.x);
}

/* Same positions bitwise with 1 and 2 threads (bodies big enough that the solver's parallel loops
 * run threaded). */
static void test_thread_count_independence(void **state) {
  (void)state;
  throw_result r1, r2;
  throw_cubes(1, 2, 4200, 40, 0.5, 9, 0.0, &r1);
  throw_cubes(2, 2, 4200, 40, 0.5, 9, 0.0, &r2);
  assert_int_equal(r1.na, r2.na);
  assert_int_equal(r1.nb, r2.nb);
  print_message("4200-particle cubes: deepest %.4f m, spacing %.4f m, gap at the end %.4f m\n", r1.deepest,
                r1.spacing, r1.gap_end);
  /* the contact did act: without it the cubes would overlap by 10 cm after these 9 steps */
  assert_true(r1.deepest < 0.02);
  assert_memory_equal(r1.x, r2.x, sizeof(double) * 3 * (size_t)(r1.na + r1.nb));
  free(r1.x);
  free(r2.x);
}

/* ---- far apart: nothing is called, nothing changes -------------------------------------------- */

static void test_far_pair_costs_nothing(void **state) {
  (void)state;
  const double v[3] = {0.3, 0.1, 0.0};
  const double at_a[3] = {0.0, 0.0, 0.0}, at_b[3] = {5.0, 0.0, 0.0};
  cl_world *w2 = world(1, 1), *w1 = world(1, 1);
  cl_id a2 = cube(w2, 400, 8, at_a, v);
  (void)cube(w2, 400, 8, at_b, v);
  cl_id a1 = cube(w1, 400, 8, at_a, v);
  assert_int_equal(cl_world_step(w2, 10), CL_OK);
  assert_int_equal(cl_world_step(w1, 10), CL_OK);
  /* the broad phase sees both bodies and calls no pair op */
  cl_body_contact_stats cs;
  assert_int_equal(cl_world_body_contacts(w2, 1.0 / 60, &cs), CL_OK);
  assert_int_equal(cs.bodies, 2);
  assert_int_equal(cs.pairs, 0);
  assert_int_equal(cs.contacts, 0);
  /* body a moves exactly as it does alone in a world */
  const cl_body_state *s2 = cl_world_body_state(w2, a2), *s1 = cl_world_body_state(w1, a1);
  assert_int_equal(s1->n, s2->n);
  assert_memory_equal(s1->x, s2->x, sizeof(double) * 3 * (size_t)s1->n);
  assert_memory_equal(s1->v, s2->v, sizeof(double) * 3 * (size_t)s1->n);
  /* a lone body: the phase returns at once */
  assert_int_equal(cl_world_body_contacts(w1, 1.0 / 60, &cs), CL_OK);
  assert_int_equal(cs.bodies, 1);
  assert_int_equal(cs.pairs, 0);
  cl_world_destroy(w2);
  cl_world_destroy(w1);
}

/* Touching cubes: the broad phase calls the pair op, which finds and resolves penetration, and
 * swapping the bodies in the call gives the same result (both are treated alike). */
static void test_pair_op_symmetric(void **state) {
  (void)state;
  const double v0[3] = {0.0, 0.0, 0.0};
  /* overlapping by 2 cm */
  const double at_a[3] = {-0.09, 0.0, 0.0}, at_b[3] = {0.09, 0.01, 0.0};
  cl_world *w = world(1, 1);
  cl_id a = cube(w, 400, 8, at_a, v0), b = cube(w, 400, 8, at_b, v0);
  cl_body *ba = NULL, *bb = NULL;
  assert_int_equal(cl_world_body(w, a, &ba), CL_OK);
  assert_int_equal(cl_world_body(w, b, &bb), CL_OK);
  const cl_solver_ops *co = ba->ops;
  assert_ptr_equal(co, &cl_shape_matching_solver_ops);
  assert_non_null(co->contact_bounds);
  assert_non_null(co->contact_pair);
  assert_null(cl_corotational_solver_ops.contact_pair); /* corotational bodies have no body contact */

  const int32_t na = ba->state.n, nb = bb->state.n;
  const size_t sa = sizeof(double) * 3 * (size_t)na, sb = sizeof(double) * 3 * (size_t)nb;
  double *xa = malloc(sa), *xb = malloc(sb), *ya = malloc(sa), *yb = malloc(sb), *wa = malloc(sa), *wb = malloc(sb);
  memcpy(xa, ba->state.x, sa);
  memcpy(xb, bb->state.x, sb);
  /* the pair op reads what a step leaves (start positions, cluster centres and inertias): take one
   * step from the overlapping rest state, then put the bodies back there */
  assert_int_equal(cl_world_step(w, 1), CL_OK);
  memcpy(ba->state.x, xa, sa);
  memcpy(bb->state.x, xb, sb);
  memset(ba->state.v, 0, sa);
  memset(bb->state.v, 0, sb);
  double lo[3], hi[3];
  assert_int_equal(co->contact_bounds(ba->solver, &ba->state, lo, hi), CL_OK);
  assert_true(lo[0] < -0.09 - 0.05 && hi[0] > -0.09 + 0.05);
  assert_int_equal(co->contact_bounds(bb->solver, &bb->state, lo, hi), CL_OK);
  cl_constraint_set none = {0, NULL, NULL, NULL, NULL};
  const double dt = 1.0 / 60;
  cl_contact_report r1 = {0, 0.0}, r2 = {0, 0.0};
  double p[3] = {0, 0, 0}, scale = 0.0;
  assert_int_equal(co->contact_pair(ba->solver, &ba->state, &none, bb->solver, &bb->state, &none, dt, &r1), CL_OK);
  add_momentum(&ba->state, p, &scale);
  add_momentum(&bb->state, p, &scale);
  double L[3] = {0, 0, 0}, lscale = 0.0;
  add_angular(&ba->state, L, &lscale);
  add_angular(&bb->state, L, &lscale);
  memcpy(ya, ba->state.x, sa);
  memcpy(yb, bb->state.x, sb);
  /* reset and call with the bodies swapped */
  memcpy(ba->state.x, xa, sa);
  memcpy(bb->state.x, xb, sb);
  memset(ba->state.v, 0, sa);
  memset(bb->state.v, 0, sb);
  assert_int_equal(co->contact_bounds(ba->solver, &ba->state, lo, hi), CL_OK);
  assert_int_equal(co->contact_bounds(bb->solver, &bb->state, lo, hi), CL_OK);
  assert_int_equal(co->contact_pair(bb->solver, &bb->state, &none, ba->solver, &ba->state, &none, dt, &r2), CL_OK);
  memcpy(wa, ba->state.x, sa);
  memcpy(wb, bb->state.x, sb);
  print_message("overlapping cubes: %d corrections, deepest %.4f m; after one pair op momentum %.3g of %.3g N s, "
                "angular momentum %.3g of %.3g kg m^2/s\n",
                r1.contacts, r1.max_depth, fabs(p[0]) + fabs(p[1]) + fabs(p[2]), scale,
                fabs(L[0]) + fabs(L[1]) + fabs(L[2]), lscale);
  assert_true(r1.contacts > 0);
  assert_true(r1.max_depth > 0.005);
  assert_int_equal(r1.contacts, r2.contacts);
  double diff = 0.0;
  for (int32_t i = 0; i < 3 * na; ++i) diff = fmax(diff, fabs(ya[i] - wa[i]));
  for (int32_t i = 0; i < 3 * nb; ++i) diff = fmax(diff, fabs(yb[i] - wb[i]));
  assert_true(diff <= 1e-14);
  /* the momentum and angular momentum the op created in the resting pair sum to zero (the bodies
   * are off-centre by 1 cm in y, so the contact has a lever arm) */
  for (int k = 0; k < 3; ++k) assert_true(fabs(p[k]) <= 1e-12 * scale);
  for (int k = 0; k < 3; ++k) assert_true(fabs(L[k]) <= 1e-12 * lscale);
  assert_true(lscale > 0.0);
  assert_true(scale > 0.0);
  /* the pair moved them apart along x: a's right face went left, b's left face went right */
  double amax0 = -INFINITY, amax1 = -INFINITY;
  for (int32_t i = 0; i < na; ++i) {
    amax0 = fmax(amax0, xa[3 * i]);
    amax1 = fmax(amax1, ya[3 * i]);
  }
  assert_true(amax1 < amax0);
  /* the world's phase with its broad phase calls the pair op on these two */
  memcpy(ba->state.x, xa, sa);
  memcpy(bb->state.x, xb, sb);
  cl_body_contact_stats cs;
  assert_int_equal(cl_world_body_contacts(w, dt, &cs), CL_OK);
  assert_int_equal(cs.pairs, 1);
  assert_true(cs.contacts > 0);

  /* bad input: the clear errors */
  cl_contact_report rr = {0, 0.0};
  assert_int_equal(co->contact_pair(ba->solver, &ba->state, &none, ba->solver, &ba->state, &none, dt, &rr),
                   CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "itself"));
  assert_int_equal(co->contact_pair(ba->solver, &ba->state, &none, bb->solver, &bb->state, &none, 0.0, &rr),
                   CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "dt"));
  assert_int_equal(co->contact_pair(ba->solver, &ba->state, &none, bb->solver, &bb->state, &none, NAN, &rr),
                   CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(co->contact_pair(NULL, &ba->state, &none, bb->solver, &bb->state, &none, dt, &rr), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(co->contact_bounds(NULL, &ba->state, lo, hi), CL_ERR_INVALID_ARGUMENT);
  free(xa), free(xb), free(ya), free(yb), free(wa), free(wb);
  cl_world_destroy(w);
}

/* A body whose proxies are switched off (self_collisions = 0) reports an empty box and is never
 * paired: the cubes pass through each other. */
static void test_proxies_off_passes_through(void **state) {
  (void)state;
  cl_world *w = world(1, 1);
  cl_mesh *m = cl_test_box(k_side, k_side, k_side);
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.solver = "shape_matching";
  cl_param p[3] = {{"particles", 400, NULL}, {"cluster_count", 8, NULL}, {"self_collisions", 0, NULL}};
  bd.params = p;
  bd.param_count = 3;
  cl_id a;
  assert_int_equal(cl_world_add_body(w, &bd, m, &a), CL_OK);
  cl_mesh_destroy(m);
  const double at_b[3] = {0.1, 0.0, 0.0}, v0[3] = {0, 0, 0};
  (void)cube(w, 400, 8, at_b, v0);
  cl_body *ba = NULL;
  assert_int_equal(cl_world_body(w, a, &ba), CL_OK);
  double lo[3], hi[3];
  assert_int_equal(cl_shape_matching_solver_ops.contact_bounds(ba->solver, &ba->state, lo, hi), CL_OK);
  assert_true(lo[0] > hi[0]);
  cl_body_contact_stats cs;
  assert_int_equal(cl_world_body_contacts(w, 1.0 / 60, &cs), CL_OK);
  assert_int_equal(cs.pairs, 0);
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cubes_collide_and_separate),
      cmocka_unit_test(test_glancing_throw),
      cmocka_unit_test(test_far_pair_costs_nothing),
      cmocka_unit_test(test_pair_op_symmetric),
      cmocka_unit_test(test_proxies_off_passes_through),
      cmocka_unit_test(test_thread_count_independence),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
