/* graph_fem's tangent = warped (src/solvers/graph_fem/warped.c; docs/solvers/graph_fem.md, "The
 * warped tangent"):
 *   - an intact element's forces and energy are its model's (the closed forms against the model's
 *     SVD-based cl_fem_piola), for every model, on elements each with its own rotation and stretch;
 *   - its stiffness, the rotated small-strain element R K0 R^T, is the model's tangent where the two
 *     must agree: at a pure rotation F = R (zero stress, every model matches E and nu there);
 *   - a body sagging under gravity with heavy damping settles where the model's tangent takes it
 *     (the equilibrium is the forces', whichever stiffness the steps were linearised with);
 *   - warp_limit sends the elements strained beyond it to the model's element, and 0 makes the steps
 *     bitwise those of tangent = model;
 *   - initial_guess = auto starts the fixed-cycle multigrid's solves from zero (step.c). */
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
#include "fem/material.h"
#include "fem/tet.h"
#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "solvers/graph_fem/gfem.h"
#include "support/test_worlds.h"
#include "world/world.h"

static const double k_young = 1e5, k_poisson = 0.45, k_density = 1000.0;

/* A graph_fem bar 0.4 x 0.1 x 0.1 m (8 x 2 x 2 cells) with the given solver parameters. */
static cl_id add_bar_params(cl_world *w, const cl_param *p, int32_t np) {
  const double lo[3] = {0, 0, 0}, hi[3] = {0.4, 0.1, 0.1};
  cl_mesh *m = NULL;
  assert_int_equal(cl_tet_grid(8, 2, 2, lo, hi, &m), CL_OK);
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.solver = "graph_fem";
  bd.material.young = k_young;
  bd.material.poisson = k_poisson;
  bd.material.density = k_density;
  bd.params = p;
  bd.param_count = np;
  cl_id b = 0;
  if (cl_world_add_body(w, &bd, m, &b) < 0) fail_msg("graph_fem body: %s", cl_last_error());
  cl_mesh_destroy(m);
  return b;
}

/* warp_limit = inf unless `limit` >= 0: every intact element takes the warped path. Block-Jacobi PCG
 * (deterministic). */
static cl_id add_bar_limit(cl_world *w, int model, int warped, double damping, double limit) {
  cl_param p[] = {{"model", model, NULL}, {"tangent", warped, NULL}, {"damping", damping, NULL},
                  {"linear_solver", 0, NULL}, {"warp_limit", limit >= 0.0 ? limit : INFINITY, NULL}};
  return add_bar_params(w, p, 5);
}

static cl_id add_bar(cl_world *w, int model, int warped, double damping) {
  return add_bar_limit(w, model, warped, damping, -1.0);
}

/* Hold the nodes at x = 0: a cantilever. */
static void hold_left_end(cl_world *w, cl_id b) {
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_SLAB);
  r.axis = 0;
  r.lo[0] = -1.0;
  r.hi[0] = 1e-6;
  cl_motion_def m;
  cl_motion_def_default(&m, CL_MOTION_FIXED);
  cl_id c;
  assert_int_equal(cl_world_constrain(w, b, &r, &m, &c), CL_OK);
}

/* A rotation of `angle` about (1, 2, 3), with a stretch and a bend of size `amount` before it. */
static void deform(cl_body_state *st, double amount, double angle) {
  const double c = cos(angle), s = sin(angle), n0 = 1 / sqrt(14.0), a[3] = {n0, 2 * n0, 3 * n0};
  for (int32_t i = 0; i < st->n; ++i) {
    const double *X = st->X + 3 * i;
    const double y[3] = {X[0] * (1 + amount) + amount * X[1] * X[1], X[1] - 0.5 * amount * X[0] * X[2],
                         X[2] * (1 - 0.3 * amount) + amount * X[0] * X[1]};
    const double d = a[0] * y[0] + a[1] * y[1] + a[2] * y[2];
    const double cr[3] = {a[1] * y[2] - a[2] * y[1], a[2] * y[0] - a[0] * y[2], a[0] * y[1] - a[1] * y[0]};
    for (int k = 0; k < 3; ++k) st->x[3 * i + k] = y[k] * c + cr[k] * s + a[k] * d * (1 - c) + 0.01 * k;
  }
}

/* Forces and energies of the warped path against the model's, every model, stretched and rotated. */
static void test_warped_forces_are_the_model(void **state) {
  (void)state;
  for (int model = 0; model < CL_FEM_MODEL_COUNT; ++model) {
    cl_world *w = cl_test_world(1e-3, 0.0, 1);
    cl_id b = add_bar(w, model, 1, 0.0);
    cl_gfem *s = cl_test_body_solver(w, b);
    cl_body_state *st = cl_world_body_state(w, b);
    deform(st, 0.15, 0.7);
    assert_int_equal(cl_gfem_update_elements(s, st), CL_OK);
    assert_int_equal(s->use_h, 1);
    cl_fem_material mat;
    cl_fem_material_init(&mat, (cl_fem_model)model, k_young, k_poisson);
    double worst_f = 0.0, worst_psi = 0.0, fmax_all = 0.0;
    for (int32_t e = 0; e < s->ntets; ++e) {
      cl_mat3 F = cl_fem_deformation_gradient(st->x, st->cells + 4 * e, s->Dminv + 9 * e), P;
      double dPdF[81], psi, f[12];
      assert_int_equal(cl_fem_piola(&mat, &F, &psi, &P, dPdF, 1), CL_OK);
      cl_fem_element_forces(&P, s->vol[e], s->Dminv + 9 * e, f);
      for (int q = 0; q < 12; ++q) {
        worst_f = fmax(worst_f, fabs(f[q] - s->fe[12 * e + q]));
        fmax_all = fmax(fmax_all, fabs(f[q]));
      }
      worst_psi = fmax(worst_psi, fabs(s->vol[e] * psi - s->psi[e]) / fabs(s->vol[e] * psi));
    }
    print_message("warped, model %d: largest force difference %.2g of the largest force %.2g; energy %.2g relative\n",
                  model, worst_f, fmax_all, worst_psi);
    assert_true(fmax_all > 0.0);
    assert_true(worst_f <= 1e-9 * fmax_all);
    assert_true(worst_psi <= 1e-9);
    cl_world_destroy(w);
  }
}

/* At F = R the warped stiffness (made from the stored h as the assembly makes it) is the model's
 * tangent, every model; away from it (stretched) it is not, which shows the comparison can fail. */
static void test_warped_stiffness_at_a_rotation(void **state) {
  (void)state;
  for (int model = 0; model < CL_FEM_MODEL_COUNT; ++model) {
    for (int stretched = 0; stretched <= 1; ++stretched) {
      cl_world *w = cl_test_world(1e-3, 0.0, 1);
      cl_id b = add_bar(w, model, 1, 0.0);
      cl_gfem *s = cl_test_body_solver(w, b);
      cl_body_state *st = cl_world_body_state(w, b);
      deform(st, stretched ? 0.2 : 0.0, 1.1);
      assert_int_equal(cl_gfem_update_elements(s, st), CL_OK);
      cl_fem_material mat;
      cl_fem_material_init(&mat, (cl_fem_model)model, k_young, k_poisson);
      double worst = 0.0, kmax = 0.0;
      for (int32_t e = 0; e < s->ntets; ++e) {
        cl_mat3 F = cl_fem_deformation_gradient(st->x, st->cells + 4 * e, s->Dminv + 9 * e), P;
        double dPdF[81], psi, K[144], Kw[144] = {0};
        assert_int_equal(cl_fem_piola(&mat, &F, &psi, &P, dPdF, 1), CL_OK);
        cl_fem_element_stiffness(dPdF, s->vol[e], s->Dminv + 9 * e, K);
        const double *h = s->h + 12 * e, c = s->vol[e];
        for (int a = 0; a < 4; ++a) {
          const double la[3] = {c * s->lambda0 * h[3 * a], c * s->lambda0 * h[3 * a + 1], c * s->lambda0 * h[3 * a + 2]};
          const double ma[3] = {c * s->mu0 * h[3 * a], c * s->mu0 * h[3 * a + 1], c * s->mu0 * h[3 * a + 2]};
          for (int bb = 0; bb < 4; ++bb) {
            double blk[9] = {0};
            cl_fem_stiffness_block_add(la, ma, h + 3 * bb, blk);
            for (int r = 0; r < 3; ++r)
              for (int q = 0; q < 3; ++q) Kw[12 * (3 * a + r) + 3 * bb + q] = blk[3 * r + q];
          }
        }
        for (int q = 0; q < 144; ++q) {
          worst = fmax(worst, fabs(K[q] - Kw[q]));
          kmax = fmax(kmax, fabs(K[q]));
        }
      }
      print_message("warped, model %d, %s: largest stiffness difference %.2g of %.2g\n", model,
                    stretched ? "stretched 20 %" : "pure rotation", worst, kmax);
      if (stretched) assert_true(worst > 1e-3 * kmax);
      else assert_true(worst <= 1e-9 * kmax);
      cl_world_destroy(w);
    }
  }
}

/* A cantilever held at x = 0 sagging under gravity, heavily damped: after 240 steps the warped and
 * the model tangent leave it at the same place: the settled tip within 1e-3 of its sag (13.5 cm;
 * measured 1e-6 m apart). */
static void test_warped_settles_where_the_model_does(void **state) {
  (void)state;
  double tip[2] = {0, 0};
  for (int warped = 0; warped <= 1; ++warped) {
    cl_world *w = cl_test_world(1.0 / 60.0, -9.81, 1);
    cl_id b = add_bar(w, CL_FEM_STABLE_NEOHOOKEAN, warped, 30.0);
    hold_left_end(w, b);
    assert_true(cl_world_step(w, 240) >= 0);
    cl_body_state *st = cl_world_body_state(w, b);
    double y = 0.0;
    int n = 0;
    for (int32_t i = 0; i < st->n; ++i)
      if (st->X[3 * i] > 0.4 - 1e-6) {
        y += st->x[3 * i + 1] - st->X[3 * i + 1];
        n++;
      }
    tip[warped] = y / n;
    cl_world_destroy(w);
  }
  print_message("warped: settled tip displacement %.6g m (model tangent) and %.6g m (warped)\n", tip[0], tip[1]);
  assert_true(tip[0] < -1e-3);
  assert_true(fabs(tip[1] - tip[0]) <= 1e-3 * fabs(tip[0]));
}

/* warp_limit: elements whose ||F^T F - I|| exceeds it take the model's element (flag hk = 0), the others
 * the warped one; with warp_limit = 0 every element is the model's, so steps are bitwise those of
 * tangent = model. */
static void test_warp_limit(void **state) {
  (void)state;
  cl_world *w0 = cl_test_world(1e-3, 0.0, 1);
  cl_id b0 = add_bar(w0, CL_FEM_STABLE_NEOHOOKEAN, 1, 0.0);
  cl_gfem *s = cl_test_body_solver(w0, b0);
  cl_body_state *st0 = cl_world_body_state(w0, b0);
  deform(st0, 0.1, 0.4);
  double *delta = malloc(sizeof(double) * (size_t)s->ntets), lo = INFINITY, hi = 0.0;
  for (int32_t e = 0; e < s->ntets; ++e) {
    const cl_mat3 F = cl_fem_deformation_gradient(st0->x, st0->cells + 4 * e, s->Dminv + 9 * e);
    const cl_mat3 C = cl_mat3_mul_tn(&F, &F);
    double d2 = 0.0;
    for (int q = 0; q < 9; ++q) d2 += (C.m[q] - (q % 4 == 0)) * (C.m[q] - (q % 4 == 0));
    delta[e] = sqrt(d2);
    lo = fmin(lo, delta[e]);
    hi = fmax(hi, delta[e]);
  }
  for (int k = 0; k < 2; ++k) {
    const double limit = k ? 0.5 * (lo + hi) : INFINITY;
    s->p[GF_WARP_LIMIT] = limit;
    assert_int_equal(cl_gfem_update_elements(s, st0), CL_OK);
    int32_t warped = 0, beyond = 0;
    for (int32_t e = 0; e < s->ntets; ++e) {
      warped += s->hk[e];
      beyond += delta[e] > limit;
      assert_int_equal(s->hk[e], !(delta[e] > limit));
    }
    print_message("warp_limit %g (||C - I|| from %.3g to %.3g): %d of %d elements warped, %d beyond\n", limit, lo, hi,
                  warped, s->ntets, beyond);
    if (k) assert_true(beyond > 0 && warped > 0); /* the deformation puts elements on both sides */
    else assert_int_equal(warped, s->ntets);
  }
  free(delta);
  cl_world_destroy(w0);
  double *x[2];
  for (int k = 0; k < 2; ++k) {
    cl_world *w = cl_test_world(1.0 / 60.0, -9.81, 1);
    cl_id b = add_bar_limit(w, CL_FEM_STABLE_NEOHOOKEAN, k, 0.0, 0.0);
    hold_left_end(w, b);
    assert_true(cl_world_step(w, 5) >= 0);
    cl_body_state *st = cl_world_body_state(w, b);
    x[k] = malloc(sizeof(double) * 3 * (size_t)st->n);
    memcpy(x[k], st->x, sizeof(double) * 3 * (size_t)st->n);
    if (k) assert_memory_equal(x[0], x[1], sizeof(double) * 3 * (size_t)st->n);
    cl_world_destroy(w);
  }
  free(x[0]);
  free(x[1]);
}

/* initial_guess: auto is zero for the fixed-cycle multigrid (bitwise the same steps as zero) and
 * differs from the warm start there, which shows the comparison can fail. */
static void test_initial_guess(void **state) {
  (void)state;
  double *x[3];
  int32_t n = 0;
  for (int g = 0; g < 3; ++g) { /* auto, previous, zero */
    cl_world *w = cl_test_world(1.0 / 60.0, -9.81, 1);
    cl_param p[] = {{"linear_solver", 2, NULL}, {"grid", 0, "20/all"}, {"mg_mode", 1, NULL},
                    {"initial_guess", g, NULL}};
    cl_id b = add_bar_params(w, p, 4);
    hold_left_end(w, b);
    assert_true(cl_world_step(w, 6) >= 0);
    cl_body_state *st = cl_world_body_state(w, b);
    n = st->n;
    x[g] = malloc(sizeof(double) * 3 * (size_t)n);
    memcpy(x[g], st->x, sizeof(double) * 3 * (size_t)n);
    cl_world_destroy(w);
  }
  double diff = 0.0;
  for (int32_t i = 0; i < 3 * n; ++i) diff = fmax(diff, fabs(x[1][i] - x[0][i]));
  print_message("initial_guess: auto against previous after 6 fixed-cycle steps: %.3g m apart\n", diff);
  assert_memory_equal(x[0], x[2], sizeof(double) * 3 * (size_t)n);
  assert_true(diff > 1e-9);
  for (int g = 0; g < 3; ++g) free(x[g]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_warped_forces_are_the_model),
      cmocka_unit_test(test_warped_stiffness_at_a_rotation),
      cmocka_unit_test(test_warped_settles_where_the_model_does),
      cmocka_unit_test(test_warp_limit),
      cmocka_unit_test(test_initial_guess),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
