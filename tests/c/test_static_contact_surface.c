/* A static contact on a curved collider ends with its nodes on the surface (fem/static_solve.c, the
 * polish; cl_fem_system_begin's re-projection of kept contacts): Newton's iterations hold each
 * contact on the tangent plane of its first contact point, so a node that slid along that plane
 * would sit off a sphere by about slide^2 / 2R; after the polish the contact nodes are on the sphere
 * to a small fraction of the indentation, with graph_fem and with corotational (the shared contact
 * code). The block of 0.1 m (8 x 8 x 8 cells) is held on its face x = 0, a sphere of radius 0.05 m
 * pressed 1 mm into the face x = 0.1 off the face's grid lines, so its contact nodes slide: without
 * the polish they end 1.8e-4 of the depth off the sphere (both solvers); with it 9e-9 frictionless
 * (7-8 Newton iterations) and 5e-10 with friction 0.5 (6-7 iterations, 4
 * without the polish). */
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

static const double R = 0.05, DEPTH = 1e-3, CY = 0.058, CZ = 0.046;

/* The block on `solver`, held at x = 0, and a sphere pressed DEPTH into its face x = 0.1; the static
 * solve's report in *rep and the largest |distance - R| of the nodes within 0.1 DEPTH of the sphere,
 * and how many there are. */
static double surface_gap(const char *solver, double mu, cl_static_report *rep, int *touching) {
  cl_id body, held;
  cl_world *w = cl_test_held_cube(solver, &body, &held);
  cl_collider_def d;
  const double c[3] = {0.1 + R - DEPTH, CY, CZ};
  cl_collider_def_default(&d, CL_COLLIDER_SPHERE);
  memcpy(d.center, c, sizeof c);
  d.radius = R;
  d.friction = mu;
  cl_id cid;
  assert_int_equal(cl_world_add_collider(w, &d, &cid), CL_OK);
  cl_static_def def;
  cl_static_def_default(&def);
  if (cl_world_solve_static(w, &def, rep) < 0) fail_msg("%s static solve: %s", solver, cl_last_error());
  int32_t n = 0;
  double *x = cl_test_positions(w, body, &n);
  double worst = 0.0;
  *touching = 0;
  for (int32_t i = 0; i < n; ++i) {
    const double *p = x + 3 * (size_t)i;
    const double gap =
        sqrt((p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) + (p[2] - c[2]) * (p[2] - c[2])) - R;
    if (fabs(gap) < 0.1 * DEPTH) {
      ++*touching;
      worst = fmax(worst, fabs(gap));
    }
  }
  free(x);
  cl_world_destroy(w);
  return worst;
}

static void check(const char *solver, double mu) {
  cl_static_report rep;
  int n = 0;
  const double gap = surface_gap(solver, mu, &rep, &n);
  print_message("%s, friction %g: %d contact nodes, largest gap from the sphere %.3g m (%.3g of the depth), %d Newton "
                "iterations (residual %.3g)\n", solver, mu, n, gap, gap / DEPTH, (int)rep.iterations, rep.residual);
  assert_true(n >= 2);               /* off the sphere's axis: they slid */
  assert_true(gap < 1e-7 * DEPTH);   /* without the polish 1.8e-4 of the depth */
  assert_true(rep.iterations <= 10); /* 4 without the polish, 6 with it */
  assert_true(rep.residual < 1e-6);
}

static void test_graph_fem_contact_on_the_sphere(void **state) {
  (void)state;
  check("graph_fem", 0.0);
  check("graph_fem", 0.5); /* sticking contacts (test_static_friction) are polished the same */
}

static void test_corotational_contact_on_the_sphere(void **state) {
  (void)state;
  check("corotational", 0.0);
  check("corotational", 0.5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_graph_fem_contact_on_the_sphere),
      cmocka_unit_test(test_corotational_contact_on_the_sphere),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
