/* The shared linear-tet code (fem/tet.h, geom/tet.h): the signed volume (a hand-computed tet, the
 * orientation, translation and scaling), Dm^-1 and the barycentric gradients against hand-computed
 * tets, the rest-shape checks (inverted and degenerate tets named), lumped masses summing to density
 * times volume, corotational element forces that vanish under a rigid rotation and translation and
 * always sum to zero, and a warped element stiffness that matches a central finite difference of the
 * force at a rotated rest state (where the rotation's own derivative does no work) and the test
 * suite's independent element stiffness at rest. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/error.h"
#include "base/mat3.h"
#include "fem/tet.h"
#include "geom/mesh.h"
#include "geom/tet.h"
#include "geom/tet_grid.h"
#include "support/cl_asserts.h"
#include "support/elastic_assembly.h"

static const int32_t k_tet[4] = {0, 1, 2, 3};

static void test_volume(void **state) {
  (void)state;
  const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0}, d[3] = {0, 0, 1};
  assert_near(cl_tet_volume(a, b, c, d), 1.0 / 6.0, 1e-16);
  assert_near(cl_tet_volume(a, c, b, d), -1.0 / 6.0, 1e-16); /* two corners swapped: inverted */
  /* a general tet: det[(2,0,0), (1,3,0), (1,1,4)] = 24 */
  const double p[12] = {1, 2, 3, 3, 2, 3, 2, 5, 3, 2, 3, 7};
  assert_near(cl_tet_volume(p, p + 3, p + 6, p + 9), 4.0, 1e-14);
  /* translation does not change it; scaling by s multiplies it by s^3 */
  double q[12];
  for (int i = 0; i < 12; ++i) q[i] = 2.5 * p[i] + (i % 3 == 1 ? -7.0 : 0.5);
  assert_near(cl_tet_volume(q, q + 3, q + 6, q + 9), 4.0 * 2.5 * 2.5 * 2.5, 1e-12);
  /* the same number through the edge matrix, and through a mesh's measure */
  const cl_mat3 D = cl_tet_edges_of(p, k_tet);
  assert_true(cl_tet_volume_of_edges(&D) == cl_tet_volume(p, p + 3, p + 6, p + 9));
  cl_mesh *m = NULL;
  assert_ok(cl_mesh_from_arrays(CL_MESH_TETS, p, 4, k_tet, 1, &m));
  cl_mesh_info info;
  assert_ok(cl_mesh_get_info(m, &info));
  assert_true(info.measure == cl_tet_volume(p, p + 3, p + 6, p + 9));
  cl_mesh_destroy(m);
}

static void test_rest_shape_by_hand(void **state) {
  (void)state;
  /* edges (2,0,0), (0,3,0), (0,0,4): Dm = diag(2, 3, 4), Dm^-1 = diag(1/2, 1/3, 1/4), V = 24 / 6 */
  const double X[12] = {1, 1, 1, 3, 1, 1, 1, 4, 1, 1, 1, 5};
  double Dminv[9], V;
  assert_ok(cl_fem_rest_shapes(X, k_tet, 1, Dminv, &V));
  const double expect[9] = {0.5, 0, 0, 0, 1.0 / 3.0, 0, 0, 0, 0.25};
  for (int k = 0; k < 9; ++k) assert_near(Dminv[k], expect[k], 1e-15);
  assert_near(V, 4.0, 1e-14);
  /* edges (1,0,0), (1,1,0), (1,1,1): Dm = [[1,1,1],[0,1,1],[0,0,1]], Dm^-1 = [[1,-1,0],[0,1,-1],[0,0,1]] */
  const double Y[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1};
  assert_ok(cl_fem_rest_shapes(Y, k_tet, 1, Dminv, &V));
  const double expect2[9] = {1, -1, 0, 0, 1, -1, 0, 0, 1};
  for (int k = 0; k < 9; ++k) assert_near(Dminv[k], expect2[k], 1e-15);
  assert_near(V, 1.0 / 6.0, 1e-16);
  /* the rows are the barycentric gradients: g_a . (X_b - X_0) = delta_ab, and g_0 = -(g_1 + g_2 + g_3) */
  const double Z[12] = {0.1, -0.2, 0.3, 1.2, 0.1, 0.0, 0.3, 0.9, 0.2, 0.2, 0.4, 1.1};
  cl_mat3 G;
  double v;
  assert_int_equal(cl_fem_gradients(Z, k_tet, &G, &v), 1);
  assert_near(v, cl_tet_volume(Z, Z + 3, Z + 6, Z + 9), 1e-16);
  for (int a = 1; a < 4; ++a)
    for (int b = 1; b < 4; ++b) {
      double dot = 0.0;
      for (int k = 0; k < 3; ++k) dot += G.m[3 * (a - 1) + k] * (Z[3 * b + k] - Z[k]);
      assert_near(dot, a == b ? 1.0 : 0.0, 1e-14);
    }
  /* a flat tet has no gradients */
  const double F[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
  assert_int_equal(cl_fem_gradients(F, k_tet, &G, &v), 0);
}

static void test_rest_shape_rejects(void **state) {
  (void)state;
  const double X[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0};
  const int32_t inverted[8] = {0, 1, 2, 3, 0, 2, 1, 3};
  const int32_t flat[8] = {0, 1, 2, 3, 0, 1, 4, 2};
  double Dminv[18], V[2];
  assert_error(cl_fem_rest_shapes(X, inverted, 2, Dminv, V), CL_ERR_MESH, "tet 1 (nodes 0 2 1 3) is inverted");
  assert_error(cl_fem_rest_shapes(X, flat, 2, Dminv, V), CL_ERR_MESH, "tet 1 (nodes 0 1 4 2) is degenerate");
}

static void test_lumped_masses(void **state) {
  (void)state;
  const double lo[3] = {0, 0, 0}, hi[3] = {0.3, 0.2, 0.5};
  cl_mesh *m = NULL;
  assert_ok(cl_tet_grid(3, 2, 4, lo, hi, &m));
  const int32_t ne = m->ncells, n = m->npoints;
  double *Dminv = malloc(sizeof(double) * 9 * (size_t)ne), *vol = malloc(sizeof(double) * (size_t)ne);
  double *mass = malloc(sizeof(double) * (size_t)n);
  assert_ok(cl_fem_rest_shapes(m->x, m->cells, ne, Dminv, vol));
  const double density = 1250.0;
  cl_fem_lump_masses(n, m->cells, ne, vol, density, mass);
  double total = 0.0, V = 0.0;
  for (int32_t i = 0; i < n; ++i) {
    assert_true(mass[i] > 0.0);
    total += mass[i];
  }
  for (int32_t e = 0; e < ne; ++e) V += vol[e];
  assert_near(V, 0.3 * 0.2 * 0.5, 1e-15);
  assert_near(total, density * 0.3 * 0.2 * 0.5, 1e-12);
  free(Dminv);
  free(vol);
  free(mass);
  cl_mesh_destroy(m);
}

/* The corotational element force of tet positions x (12) with rest data Dm^-1 and V. */
static void corot_force(const double *x, const double *Dminv, double V, double lambda, double mu, double *f,
                        double *h) {
  const cl_mat3 F = cl_fem_deformation_gradient(x, k_tet, Dminv);
  cl_mat3 R;
  assert_ok(cl_polar3(&F, &R, NULL));
  const cl_mat3 eps = cl_fem_corot_strain(&R, &F);
  const cl_mat3 sig = cl_fem_linear_stress(lambda, mu, &eps);
  const cl_mat3 P = cl_mat3_mul(&R, &sig);
  cl_fem_stress_forces(&P, Dminv, V, f);
  if (h) cl_fem_rotated_gradients(&R, Dminv, h);
}

static const double k_X[12] = {0.1, -0.2, 0.3, 1.2, 0.1, 0.0, 0.3, 0.9, 0.2, 0.2, 0.4, 1.1};
static const double k_lambda = 4.0e5, k_mu = 1.5e5;

/* x = Q X + t with Q a rotation of 1.1 rad about (1, 2, 2)/3. */
static void rigid_motion(double *x) {
  double Q[9];
  const double axis[3] = {1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0}, t[3] = {0.7, -1.3, 2.0};
  cl_rotation_axis_angle(axis, 1.1, Q);
  for (int a = 0; a < 4; ++a)
    for (int r = 0; r < 3; ++r)
      x[3 * a + r] = Q[3 * r] * k_X[3 * a] + Q[3 * r + 1] * k_X[3 * a + 1] + Q[3 * r + 2] * k_X[3 * a + 2] + t[r];
}

static void test_forces_vanish_rigidly_and_sum_to_zero(void **state) {
  (void)state;
  double Dminv[9], V;
  assert_ok(cl_fem_rest_shapes(k_X, k_tet, 1, Dminv, &V));
  /* a stretched tet: the scale of its forces */
  double x[12], f[12];
  for (int i = 0; i < 12; ++i) x[i] = k_X[i] * (i % 3 == 0 ? 1.1 : 1.0);
  corot_force(x, Dminv, V, k_lambda, k_mu, f, NULL);
  double scale = 0.0, net[3] = {0, 0, 0};
  for (int i = 0; i < 12; ++i) {
    scale = fmax(scale, fabs(f[i]));
    net[i % 3] += f[i];
  }
  assert_true(scale > 1e3);
  for (int k = 0; k < 3; ++k) assert_near(net[k], 0.0, 1e-12 * scale);
  /* under a rigid rotation and translation the element is unstrained: no force */
  rigid_motion(x);
  corot_force(x, Dminv, V, k_lambda, k_mu, f, NULL);
  for (int i = 0; i < 12; ++i) assert_near(f[i], 0.0, 1e-9 * scale);
}

static void test_stiffness_is_force_derivative(void **state) {
  (void)state;
  double Dminv[9], V;
  assert_ok(cl_fem_rest_shapes(k_X, k_tet, 1, Dminv, &V));
  double x[12], h[12], f[12], K[144];
  rigid_motion(x);
  corot_force(x, Dminv, V, k_lambda, k_mu, f, h);
  cl_fem_corot_stiffness(h, V, k_lambda, k_mu, K);
  double kmax = 0.0;
  for (int i = 0; i < 144; ++i) kmax = fmax(kmax, fabs(K[i]));
  /* -df/dx_j by central differences against column j of R K_e R^T */
  const double delta = 1e-6;
  double worst = 0.0;
  for (int j = 0; j < 12; ++j) {
    double xp[12], xm[12], fp[12], fm[12];
    memcpy(xp, x, sizeof xp);
    memcpy(xm, x, sizeof xm);
    xp[j] += delta;
    xm[j] -= delta;
    corot_force(xp, Dminv, V, k_lambda, k_mu, fp, NULL);
    corot_force(xm, Dminv, V, k_lambda, k_mu, fm, NULL);
    for (int i = 0; i < 12; ++i) worst = fmax(worst, fabs(-(fp[i] - fm[i]) / (2.0 * delta) - K[12 * i + j]));
  }
  print_message("stiffness vs finite difference: max |error| %.3g of max |K| %.3g\n", worst, kmax);
  assert_true(worst <= 1e-8 * kmax);
  /* symmetric, and rigid translations in its null space */
  for (int i = 0; i < 12; ++i) {
    double row[3] = {0, 0, 0};
    for (int j = 0; j < 12; ++j) {
      assert_near(K[12 * i + j], K[12 * j + i], 1e-12 * kmax);
      row[j % 3] += K[12 * i + j];
    }
    for (int k = 0; k < 3; ++k) assert_near(row[k], 0.0, 1e-10 * kmax);
  }
  /* at rest (R = I) it is the classic K_e = V B^T D B: the test suite's own element, written apart */
  double g[12], Kref[144];
  cl_fem_rotated_gradients(&(cl_mat3){{1, 0, 0, 0, 1, 0, 0, 0, 1}}, Dminv, g);
  cl_fem_corot_stiffness(g, V, k_lambda, k_mu, K);
  const double E = k_mu * (3.0 * k_lambda + 2.0 * k_mu) / (k_lambda + k_mu), nu = k_lambda / (2.0 * (k_lambda + k_mu));
  cl_test_tet_stiffness(k_X, E, nu, Kref);
  for (int i = 0; i < 144; ++i) assert_near(K[i], Kref[i], 1e-9 * kmax);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_volume),
      cmocka_unit_test(test_rest_shape_by_hand),
      cmocka_unit_test(test_rest_shape_rejects),
      cmocka_unit_test(test_lumped_masses),
      cmocka_unit_test(test_forces_vanish_rigidly_and_sum_to_zero),
      cmocka_unit_test(test_stiffness_is_force_derivative),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
