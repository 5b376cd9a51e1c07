/* Static solves with frictional contact (fem/system.c, "Friction in a static solve" at the top of
 * fem/system.h), in both FEM solvers. The block of 0.1 m (8 x 8 x 8 cells, E 1e6, nu 0.3) is held
 * on its face x = 0 and pressed 1 mm by a plane at its face x = 0.1, square to the face or tilted
 * by 0.2 rad about z (the plane then also pushes the face sideways, and friction decides how far it
 * goes). Before each Newton iteration restarted its contacts sticking and judged them by their cone,
 * a kept contact went on sliding without its friction load and neighbouring contacts switched
 * between sticking and sliding until the rounds ran out: friction 0.5 on the square plane took 49
 * iterations (graph_fem) and 57 (corotational), the tilted plane did not converge in 60 (unbalanced
 * force 0.03-0.06 of the load). Now every case takes 4-11.
 *
 * What is checked against what it must be, independent of the contact code:
 *  - equilibrium: the plane's force (contact probe) and the held face's reaction (reaction probe) sum
 *    to zero;
 *  - Coulomb: the plane's total tangential force is at most mu times its normal force;
 *  - sticking: with friction 10 on the square plane the contact face's nodes stay at their y and z
 *    (they stick where they first touched), and the face spreads the less the more friction there
 *    is (Poisson's expansion under the plane: 1.7e-4 m frictionless).
 * A sphere pressed with friction: test_static_contact_surface. */
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
#include "support/test_worlds.h"

static const double DEPTH = 1e-3;

typedef struct outcome {
  cl_status status;
  cl_static_report rep;
  double force[3];    /* the collider's force on the block, N */
  double reaction[3]; /* the held face's reaction, N */
  double spread;      /* largest |dy|, |dz| of the face x = 0.1's nodes, m */
} outcome;

/* The block on `solver` pressed DEPTH by a plane of friction mu tilted by `tilt` about z; the static
 * solve's outcome. */
static outcome press(const char *solver, double mu, double tilt) {
  cl_id body, held;
  cl_world *w = cl_test_held_cube(solver, &body, &held);
  int32_t n = 0;
  double *x0 = cl_test_positions(w, body, &n);
  cl_collider_def d;
  const double c[3] = {0.1 - DEPTH, 0.05, 0.05}, nrm[3] = {-cos(tilt), sin(tilt), 0.0};
  cl_collider_def_default(&d, CL_COLLIDER_PLANE);
  memcpy(d.center, c, sizeof c);
  memcpy(d.normal, nrm, sizeof nrm);
  d.friction = mu;
  cl_id cid, contact, reaction;
  assert_int_equal(cl_world_add_collider(w, &d, &cid), CL_OK);
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_CONTACT);
  pd.body = body;
  pd.collider = cid;
  assert_int_equal(cl_world_add_probe(w, &pd, &contact), CL_OK);
  cl_probe_def_default(&pd, CL_PROBE_REACTION);
  pd.body = body;
  pd.condition = held;
  assert_int_equal(cl_world_add_probe(w, &pd, &reaction), CL_OK);
  cl_static_def def;
  cl_static_def_default(&def);
  def.max_iterations = 30;
  outcome o;
  memset(&o, 0, sizeof o);
  o.status = cl_world_solve_static(w, &def, &o.rep);
  double f[6];
  assert_int_equal(cl_probe_read(w, contact, f, 6), CL_OK);
  memcpy(o.force, f, sizeof o.force);
  assert_int_equal(cl_probe_read(w, reaction, o.reaction, 3), CL_OK);
  double *x = cl_test_positions(w, body, &n);
  for (int32_t i = 0; i < n; ++i) {
    const double *p = x + 3 * (size_t)i, *p0 = x0 + 3 * (size_t)i;
    if (p0[0] > 0.1 - 1e-9) o.spread = fmax(o.spread, fmax(fabs(p[1] - p0[1]), fabs(p[2] - p0[2])));
  }
  free(x);
  free(x0);
  cl_world_destroy(w);
  print_message("%-12s mu %5.2f %s: %2d iterations, residual %.2e, force (%.4g, %.4g, %.4g) N, face spread %.3e m\n",
                solver, mu, tilt > 0.0 ? "tilted plane" : "square plane", (int)o.rep.iterations,
                o.rep.residual, o.force[0], o.force[1], o.force[2], o.spread);
  return o;
}

static double norm3(const double *a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* Converged, in equilibrium with the held face, inside the friction cone as a whole. */
static void check_plane(const char *solver, double mu, double tilt) {
  const outcome o = press(solver, mu, tilt);
  if (o.status != CL_OK) fail_msg("%s, mu %g, tilt %g: %s", solver, mu, tilt, cl_last_error());
  assert_true(o.rep.iterations <= 12);
  assert_true(o.rep.residual < 1e-6);
  const double sum[3] = {o.force[0] + o.reaction[0], o.force[1] + o.reaction[1], o.force[2] + o.reaction[2]};
  assert_true(norm3(sum) < 1e-6 * norm3(o.force));
  const double n[3] = {-cos(tilt), sin(tilt), 0.0};
  const double fn = o.force[0] * n[0] + o.force[1] * n[1] + o.force[2] * n[2]; /* n: out of the collider */
  double ft[3];
  for (int k = 0; k < 3; ++k) ft[k] = o.force[k] - fn * n[k];
  assert_true(fn > 0.0);
  assert_true(norm3(ft) <= mu * fn * (1.0 + 1e-6) + 1e-9 * fn);
}

static void converges(const char *solver) {
  const double mus[] = {0.0, 0.1, 0.5, 10.0};
  for (int q = 0; q < 4; ++q) {
    check_plane(solver, mus[q], 0.0);
    check_plane(solver, mus[q], 0.2);
  }
}

/* The square plane: the face spreads less with more friction, and not at all when it sticks. */
static void sticks(const char *solver) {
  const double none = press(solver, 0.0, 0.0).spread, some = press(solver, 0.1, 0.0).spread,
               more = press(solver, 0.5, 0.0).spread, stuck = press(solver, 10.0, 0.0).spread;
  assert_true(none > 1e-4); /* Poisson: about nu x 1 % strain x half the face */
  assert_true(some < none);
  assert_true(more < some);
  assert_true(stuck < 1e-12);
}

static void test_graph_fem_converges(void **state) {
  (void)state;
  converges("graph_fem");
}
static void test_corotational_converges(void **state) {
  (void)state;
  converges("corotational");
}
static void test_graph_fem_sticks(void **state) {
  (void)state;
  sticks("graph_fem");
}
static void test_corotational_sticks(void **state) {
  (void)state;
  sticks("corotational");
}
int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_graph_fem_converges), cmocka_unit_test(test_corotational_converges),
      cmocka_unit_test(test_graph_fem_sticks),    cmocka_unit_test(test_corotational_sticks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
