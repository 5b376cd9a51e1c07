/* The graph-based FEM solver (src/solvers/graph_fem) and its criterion edge_stress
 * (src/fracture/edge_stress.c): the guarantees of issue 13 and docs/solvers/graph_fem.md.
 *   - an element with no damaged edge is exactly the model's element (every model);
 *   - a damaged element with zero damage is the linear element; damage keeps K symmetric PSD;
 *   - a vertex whose edges are all broken carries no force and falls freely; nothing is remeshed;
 *   - a cut breaks exactly the edges crossing it, the body falls into two pieces and the visual
 *     surface stays closed and splits;
 *   - eq 1 as a tensor projection (shear counted twice), the softening law and its crack band,
 *     the diffusion kernel, and the criterion's bad input. */
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
#include "contract/params.h"
#include "fracture/criterion.h"
#include "geom/mesh.h"
#include "geom/tet_edges.h"
#include "geom/tet_grid.h"
#include "solvers/graph_fem/gfem.h"
#include "support/dense_eig.h"
#include "support/elastic_assembly.h"
#include "support/test_worlds.h"
#include "support/unit_fixture.h"
#include "world/world.h"

static const double k_young = 1e5, k_poisson = 0.3, k_density = 1000.0;

/* A graph_fem body on an nx x ny x nz grid of [0, lx] x [0, 1] x [0, 1] * 0.1 m, model by index,
 * optional criterion; the world has no gravity unless gy != 0. */
static cl_id add_bar(cl_world *w, int nx, int ny, int nz, double lx, int model, const char *criterion,
                     const cl_param *cp, int32_t ncp, cl_status *status) {
  const double lo[3] = {0, 0, 0}, hi[3] = {lx, 0.1, 0.1};
  cl_mesh *m = NULL;
  assert_int_equal(cl_tet_grid(nx, ny, nz, lo, hi, &m), CL_OK);
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.solver = "graph_fem";
  bd.material.young = k_young;
  bd.material.poisson = k_poisson;
  bd.material.density = k_density;
  cl_param p = {"model", model, NULL};
  bd.params = &p;
  bd.param_count = 1;
  if (criterion) {
    bd.criterion = criterion;
    bd.criterion_params = cp;
    bd.criterion_param_count = ncp;
  }
  cl_id b = 0;
  cl_status s = cl_world_add_body(w, &bd, m, &b);
  cl_mesh_destroy(m);
  if (status) {
    *status = s;
  } else if (s < 0) {
    fail_msg("graph_fem body: %s", cl_last_error());
  }
  return b;
}

static cl_gfem *solver_of(cl_world *w, cl_id b) { return cl_test_body_solver(w, b); }

/* Deterministic positions: a rotation of 0.7 rad about (1, 2, 3), a stretch and a smooth bend, so
 * every element has its own F. */
static void deform(cl_body_state *st, double amount) {
  const double c = cos(0.7), s = sin(0.7), n0 = 1 / sqrt(14.0), a[3] = {n0, 2 * n0, 3 * n0};
  for (int32_t i = 0; i < st->n; ++i) {
    const double *X = st->X + 3 * i;
    const double y[3] = {X[0] * (1 + amount) + amount * X[1] * X[1], X[1] - 0.5 * amount * X[0] * X[2],
                         X[2] * (1 - 0.3 * amount) + amount * X[0] * X[1]};
    const double d = a[0] * y[0] + a[1] * y[1] + a[2] * y[2];
    const double cr[3] = {a[1] * y[2] - a[2] * y[1], a[2] * y[0] - a[0] * y[2], a[0] * y[1] - a[1] * y[0]};
    for (int k = 0; k < 3; ++k) st->x[3 * i + k] = y[k] * c + cr[k] * s + a[k] * d * (1 - c) + 0.01 * k;
  }
}

/* Damage the edge (a, b) through the solver's topology operation, as the world would. */

/* ---- elements ------------------------------------------------------------------------------ */

/* With no damage every element's force, stiffness and energy are the model's own, for every model. */
static void test_undamaged_element_is_the_model(void **state) {
  (void)state;
  for (int model = 0; model < CL_FEM_MODEL_COUNT; ++model) {
    cl_world *w = cl_test_world(1e-3, 0.0, 1);
    cl_id b = add_bar(w, 3, 2, 2, 0.3, model, NULL, NULL, 0, NULL);
    cl_gfem *s = solver_of(w, b);
    cl_body_state *st = cl_world_body_state(w, b);
    deform(st, 0.08);
    assert_int_equal(cl_gfem_update_elements(s, st), CL_OK);
    cl_fem_material mat;
    cl_fem_material_init(&mat, (cl_fem_model)model, k_young, k_poisson);
    double worst = 0.0;
    for (int32_t e = 0; e < s->ntets; ++e) {
      const int32_t *t = st->cells + 4 * e;
      cl_mat3 F = cl_fem_deformation_gradient(st->x, t, s->Dminv + 9 * e), P;
      double dPdF[81], psi, f[12], K[144];
      assert_int_equal(cl_fem_piola(&mat, &F, &psi, &P, dPdF, 1), CL_OK);
      cl_fem_element_forces(&P, s->vol[e], s->Dminv + 9 * e, f);
      cl_fem_element_stiffness(dPdF, s->vol[e], s->Dminv + 9 * e, K);
      for (int q = 0; q < 12; ++q) worst = fmax(worst, fabs(f[q] - s->fe[12 * e + q]) / (1e-12 + fabs(f[q])));
      double Ks[144];
      cl_gfem_element_matrix(s, e, Ks);
      for (int q = 0; q < 144; ++q) worst = fmax(worst, fabs(K[q] - Ks[q]) / (1e-6 + fabs(K[q])));
      worst = fmax(worst, fabs(s->vol[e] * psi - s->psi[e]) / (1e-12 + fabs(s->vol[e] * psi)));
    }
    print_message("graph_fem: model %d, undamaged elements against the model: worst relative difference %.2g\n", model,
                  worst);
    assert_true(worst == 0.0); /* the same arithmetic, bit for bit */
    cl_world_destroy(w);
  }
}

/* A damaged element whose damage is still 0 is the linear (small-strain) element of E and nu: its K
 * at the rest positions (R = I) against the textbook B^T D B of the test support. */
static void test_degraded_element_without_damage_is_linear(void **state) {
  (void)state;
  cl_world *w = cl_test_world(1e-3, 0.0, 1);
  cl_id b = add_bar(w, 2, 2, 2, 0.2, CL_FEM_STABLE_NEOHOOKEAN, NULL, NULL, 0, NULL);
  cl_gfem *s = solver_of(w, b);
  cl_body_state *st = cl_world_body_state(w, b);
  for (int32_t e = 0; e < s->ntets; ++e) s->dmg[e] = s->kdirty[e] = 1;
  for (int k = 0; k < 9; ++k)
    for (int32_t e = 0; e < s->ntets; ++e) s->Re[9 * e + k] = k % 4 == 0;
  assert_int_equal(cl_gfem_update_elements(s, st), CL_OK);
  double worst = 0.0;
  for (int32_t e = 0; e < s->ntets; ++e) {
    double x[12], Ke[144];
    for (int a = 0; a < 4; ++a)
      for (int k = 0; k < 3; ++k) x[3 * a + k] = st->X[3 * st->cells[4 * e + a] + k];
    cl_test_tet_stiffness(x, k_young, k_poisson, Ke);
    double scale = 0.0;
    for (int q = 0; q < 144; ++q) scale = fmax(scale, fabs(Ke[q]));
    double Ks[144];
    cl_gfem_element_matrix(s, e, Ks);
    for (int q = 0; q < 144; ++q) worst = fmax(worst, fabs(Ke[q] - Ks[q]) / scale);
  }
  print_message("graph_fem: degraded element at zero damage against B^T D B: %.2g\n", worst);
  assert_true(worst < 1e-10);
  cl_world_destroy(w);
}

/* Partial and full damage on random edges: every element stiffness stays symmetric and positive
 * semi-definite, also rotated and stretched. */
static void test_damaged_stiffness_is_symmetric_psd(void **state) {
  (void)state;
  cl_world *w = cl_test_world(1e-3, 0.0, 1);
  cl_id b = add_bar(w, 3, 2, 2, 0.3, CL_FEM_STVK, NULL, NULL, 0, NULL);
  cl_gfem *s = solver_of(w, b);
  cl_body_state *st = cl_world_body_state(w, b);
  uint64_t rng = 7;
  const double levels[3] = {0.3, 0.9, 1.0};
  for (int32_t k = 0; k < s->nedges; k += 2)
    cl_test_damage_edge(w, b, s->edge[2 * k], s->edge[2 * k + 1], levels[(int)(3 * cl_test_rand01(&rng)) % 3]);
  deform(st, 0.1);
  assert_int_equal(cl_gfem_update_elements(s, st), CL_OK);
  double worst_asym = 0.0, worst_eig = 0.0;
  int32_t damaged = 0;
  for (int32_t e = 0; e < s->ntets; ++e) {
    if (!s->dmg[e]) continue;
    ++damaged;
    double K[144];
    cl_gfem_element_matrix(s, e, K);
    double scale = 0.0;
    for (int q = 0; q < 144; ++q) scale = fmax(scale, fabs(K[q]));
    for (int p = 0; p < 12; ++p)
      for (int q = 0; q < 12; ++q) worst_asym = fmax(worst_asym, fabs(K[12 * p + q] - K[12 * q + p]) / scale);
    worst_eig = fmin(worst_eig, cl_test_min_eigenvalue(K, 12) / scale);
  }
  print_message("graph_fem: %d damaged elements: asymmetry %.2g, smallest eigenvalue / largest entry %.2g\n", damaged,
                worst_asym, worst_eig);
  assert_true(damaged > s->ntets / 2);
  assert_true(worst_asym < 1e-12);
  assert_true(worst_eig > -1e-10);
  cl_world_destroy(w);
}

/* Every edge at node i broken: i carries no force and no stiffness wherever it goes, the rest does
 * not feel it, and under gravity it falls freely while the body hangs from a fixed end. */
static void test_vertex_with_all_edges_broken_moves_freely(void **state) {
  (void)state;
  cl_world *w = cl_test_world(1e-3, -9.81, 1);
  cl_id b = add_bar(w, 4, 2, 2, 0.4, CL_FEM_STABLE_NEOHOOKEAN, NULL, NULL, 0, NULL);
  cl_gfem *s = solver_of(w, b);
  cl_body_state *st = cl_world_body_state(w, b);
  /* the node at (0.2, 0.05, 0.05): the centre of the bar, inside */
  int32_t node = -1;
  for (int32_t i = 0; i < st->n; ++i)
    if (fabs(st->X[3 * i] - 0.2) < 1e-9 && fabs(st->X[3 * i + 1] - 0.05) < 1e-9 && fabs(st->X[3 * i + 2] - 0.05) < 1e-9)
      node = i;
  assert_true(node >= 0);
  int32_t cut = 0;
  for (int32_t k = 0; k < s->nedges; ++k)
    if (s->edge[2 * k] == node || s->edge[2 * k + 1] == node) {
      cl_test_damage_edge(w, b, s->edge[2 * k], s->edge[2 * k + 1], 1.0);
      ++cut;
    }
  assert_true(cut >= 6);
  assert_int_equal(cl_gfem_pieces(s), CL_OK);
  assert_int_equal(s->npieces, 2);
  deform(st, 0.05);
  assert_int_equal(cl_gfem_update_elements(s, st), CL_OK);
  double *f0 = malloc(sizeof(double) * 12 * (size_t)s->ntets);
  memcpy(f0, s->fe, sizeof(double) * 12 * (size_t)s->ntets);
  for (int k = 0; k < 3; ++k) st->x[3 * node + k] += 0.3 * (k + 1); /* far away */
  assert_int_equal(cl_gfem_update_elements(s, st), CL_OK);
  double worst = 0.0, scale = 0.0;
  for (int32_t e = 0; e < s->ntets; ++e) {
    for (int q = 0; q < 12; ++q) {
      worst = fmax(worst, fabs(s->fe[12 * e + q] - f0[12 * e + q]));
      scale = fmax(scale, fabs(f0[12 * e + q]));
    }
    double K[144];
    cl_gfem_element_matrix(s, e, K);
    for (int a = 0; a < 4; ++a) {
      if (st->cells[4 * e + a] != node) continue;
      for (int r = 0; r < 3; ++r) {
        assert_true(s->fe[12 * e + 3 * a + r] == 0.0);
        for (int q = 0; q < 12; ++q) assert_true(K[12 * (3 * a + r) + q] == 0.0);
      }
    }
  }
  print_message("graph_fem: moving the loose node changes other forces by %.2g (largest force %.2g N)\n", worst, scale);
  assert_true(worst <= 1e-12 * scale);
  free(f0);
  cl_world_destroy(w);

  /* dynamics: the loose node falls as g t^2 / 2 while the bar hangs from its fixed left end */
  w = cl_test_world(1e-3, -9.81, 1);
  b = add_bar(w, 4, 2, 2, 0.4, CL_FEM_STABLE_NEOHOOKEAN, NULL, NULL, 0, NULL);
  s = solver_of(w, b);
  cl_test_x_slab(w, b, -1.0, 1e-6, 0.0);
  for (int32_t k = 0; k < s->nedges; ++k)
    if (s->edge[2 * k] == node || s->edge[2 * k + 1] == node) cl_test_damage_edge(w, b, s->edge[2 * k], s->edge[2 * k + 1], 1.0);
  const int32_t ncells = cl_world_body_state(w, b)->ncells, n = cl_world_body_state(w, b)->n;
  assert_int_equal(cl_world_step(w, 100), CL_OK);
  st = cl_world_body_state(w, b);
  const double t = 0.1, fall = st->X[3 * node + 1] - st->x[3 * node + 1];
  print_message("graph_fem: the loose node fell %.6g m in %.2g s (free fall %.6g m)\n", fall, t, 0.5 * 9.81 * t * t);
  /* backward Euler: x_n = x_0 - g dt^2 n (n + 1) / 2 */
  assert_true(fabs(fall - 9.81 * 1e-6 * 100 * 101 / 2) < 1e-9);
  assert_int_equal(st->ncells, ncells); /* never remeshed */
  assert_int_equal(st->n, n);
  cl_world_destroy(w);
}

/* Nodal forces of the whole body (sum of the element forces), 3 n. */
static void gather_forces(const cl_gfem *s, const cl_body_state *st, double *f) {
  memset(f, 0, sizeof(double) * 3 * (size_t)st->n);
  for (int32_t e = 0; e < s->ntets; ++e)
    for (int a = 0; a < 4; ++a)
      for (int k = 0; k < 3; ++k) f[3 * st->cells[4 * e + a] + k] += s->fe[12 * e + 3 * a + k];
}

/* The assembled stiffness is the derivative of the assembled forces: (f(x + h d) - f(x - h d)) / 2h
 * = -K d for a random direction d, with the exact (unprojected) tangent, for every model. (Damaged
 * elements are corotational: their K = R K0_d R^T leaves out dR/dx, as stiffness warping does.) */
static void test_assembled_stiffness_is_the_force_derivative(void **state) {
  (void)state;
  for (int model = 0; model < CL_FEM_MODEL_COUNT; ++model)
    {
      cl_world *w = cl_test_world(1e-3, 0.0, 1);
      cl_id b = add_bar(w, 3, 2, 2, 0.3, model, NULL, NULL, 0, NULL);
      cl_gfem *s = solver_of(w, b);
      cl_body_state *st = cl_world_body_state(w, b);
      deform(st, 0.05);
      s->exact_tangent = 1;
      assert_int_equal(cl_gfem_update_elements(s, st), CL_OK);
      const size_t n3 = 3 * (size_t)st->n;
      double *Kd = calloc(n3, sizeof(double)), *d = malloc(sizeof(double) * n3), *fp = malloc(sizeof(double) * n3),
             *fm = malloc(sizeof(double) * n3), *x0 = malloc(sizeof(double) * n3);
      uint64_t rng = 11;
      for (size_t j = 0; j < n3; ++j) d[j] = cl_test_rand01(&rng) - 0.5;
      for (int32_t e = 0; e < s->ntets; ++e) {
        double K[144];
        cl_gfem_element_matrix(s, e, K);
        for (int a = 0; a < 4; ++a)
          for (int r = 0; r < 3; ++r)
            for (int bb = 0; bb < 4; ++bb)
              for (int c = 0; c < 3; ++c)
                Kd[3 * st->cells[4 * e + a] + r] += K[12 * (3 * a + r) + 3 * bb + c] * d[3 * st->cells[4 * e + bb] + c];
      }
      memcpy(x0, st->x, sizeof(double) * n3);
      const double h = 1e-7;
      for (int sgn = -1; sgn <= 1; sgn += 2) {
        for (size_t j = 0; j < n3; ++j) st->x[j] = x0[j] + sgn * h * d[j];
        assert_int_equal(cl_gfem_update_elements(s, st), CL_OK);
        gather_forces(s, st, sgn > 0 ? fp : fm);
      }
      double err = 0.0, scale = 0.0;
      for (size_t j = 0; j < n3; ++j) {
        err = fmax(err, fabs((fp[j] - fm[j]) / (2 * h) + Kd[j]));
        scale = fmax(scale, fabs(Kd[j]));
      }
      print_message("graph_fem: model %d: |df/dx d + K d| = %.3g of |K d| = %.3g\n", model, err, scale);
      assert_true(err <= 1e-5 * scale);
      free(Kd), free(d), free(fp), free(fm), free(x0);
      cl_world_destroy(w);
    }
}

/* ---- cuts, pieces, the visual surface ------------------------------------------------------ */

/* Number of connected components of a triangle set (over shared nodes), and whether every edge is
 * shared by exactly two triangles (closed). */
static int32_t surface_components(const int32_t *tris, int32_t nt, int32_t n, int *closed) {
  int32_t *parent = malloc(sizeof(int32_t) * (size_t)n);
  for (int32_t i = 0; i < n; ++i) parent[i] = i;
  int64_t *keys = malloc(sizeof(int64_t) * 3 * (size_t)(nt > 0 ? nt : 1));
  for (int32_t t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) {
      int32_t a = tris[3 * t + k], c = tris[3 * t + (k + 1) % 3];
      keys[3 * t + k] = a < c ? (int64_t)a * n + c : (int64_t)c * n + a;
      while (parent[a] != a) a = parent[a];
      while (parent[c] != c) c = parent[c];
      if (a != c) parent[a] = c;
    }
  /* closed: each undirected edge key appears exactly twice */
  *closed = 1;
  for (int32_t i = 0; i < 3 * nt && *closed; ++i) {
    int count = 0;
    for (int32_t j = 0; j < 3 * nt; ++j) count += keys[j] == keys[i];
    *closed = count == 2;
  }
  int32_t comps = 0;
  char *used = calloc((size_t)n, 1);
  for (int32_t t = 0; t < 3 * nt; ++t) used[tris[t]] = 1;
  for (int32_t i = 0; i < n; ++i) comps += used[i] && parent[i] == i;
  free(used);
  free(keys);
  free(parent);
  return comps;
}

/* A knife's cut through the middle of a bar: exactly the edges whose segments cross the cut plane
 * break (brute force over all edges), the bar falls into 2 pieces, its visual surface is closed and
 * in 2 parts, and the cells are the same cells. */
static void test_cut_splits_bar_and_surface(void **state) {
  (void)state;
  cl_world *w = cl_test_world(1e-3, 0.0, 1);
  cl_id b = add_bar(w, 6, 2, 2, 0.6, CL_FEM_STABLE_NEOHOOKEAN, NULL, NULL, 0, NULL);
  cl_gfem *s = solver_of(w, b);
  cl_body *bd = NULL;
  assert_int_equal(cl_world_body(w, b, &bd), CL_OK);
  cl_body_state *st = &bd->state;
  const double m = 0.27; /* between grid planes (spacing 0.1) */
  cl_fracture_event e[2];
  e[0].kind = e[1].kind = CL_EVENT_CUT_SURFACE;
  const double t0[9] = {m, -1, -1, m, 1, -1, m, 1, 1}, t1[9] = {m, -1, -1, m, 1, 1, m, -1, 1};
  memcpy(e[0].cut_surface.tri, t0, sizeof t0);
  memcpy(e[1].cut_surface.tri, t1, sizeof t1);
  int32_t applied = 0;
  assert_int_equal(bd->ops->fracture(bd->solver, st, e, 2, &applied), CL_OK);
  assert_int_equal(applied, 2);
  int32_t expect = 0, wrong = 0;
  for (int32_t k = 0; k < s->nedges; ++k) {
    const double xa = st->x[3 * s->edge[2 * k]], xb = st->x[3 * s->edge[2 * k + 1]];
    const int crosses = (xa - m) * (xb - m) < 0.0;
    expect += crosses;
    wrong += crosses != (s->damage[k] >= 1.0);
  }
  print_message("graph_fem: the cut broke %lld edges, %d cross the plane, %d disagree\n", (long long)s->broken_edges,
                expect, wrong);
  assert_int_equal(wrong, 0);
  assert_true(expect > 0);
  assert_int_equal(cl_gfem_pieces(s), CL_OK);
  assert_int_equal(s->npieces, 2);
  assert_int_equal(cl_gfem_visual_surface(s, st), CL_OK);
  int closed = 0;
  assert_int_equal(surface_components(s->tris, s->ntris, st->n, &closed), 2);
  assert_true(closed);
  assert_int_equal(st->ncells, s->ntets);
  /* through the world: body info counts the pieces after a topology change */
  st->topology_version++;
  cl_body_info info;
  assert_int_equal(cl_body_get_info(w, b, &info), CL_OK);
  assert_int_equal(info.pieces, 2);
  cl_world_destroy(w);
}

/* A split_unit event (cluster_stretch's, on any tet solver) breaks exactly the edges of its tet that
 * the plane through the tet's centroid separates, with the plane given and with the plane left to
 * the solver (normal along the tet's longest edge); nothing else. And cluster_stretch drives
 * graph_fem through the world: a bar pulled apart breaks into pieces. */
static void test_split_unit_breaks_the_edges_the_plane_separates(void **state) {
  (void)state;
  cl_world *w = cl_test_world(1e-3, 0.0, 1);
  cl_id b = add_bar(w, 4, 2, 2, 0.4, CL_FEM_STABLE_NEOHOOKEAN, NULL, NULL, 0, NULL);
  cl_gfem *s = solver_of(w, b);
  cl_body *bd = NULL;
  assert_int_equal(cl_world_body(w, b, &bd), CL_OK);
  cl_body_state *st = &bd->state;
  deform(st, 0.05);
  static const int pair[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  const int32_t tets[2] = {3, 17};
  const double normals[2][3] = {{1, 0.2, -0.1}, {0, 0, 0}};
  for (int c = 0; c < 2; ++c) {
    const int32_t e = tets[c];
    const int32_t *t = st->cells + 4 * e;
    double cen[3] = {0, 0, 0}, n[3] = {normals[c][0], normals[c][1], normals[c][2]}, longest = -1;
    for (int i = 0; i < 4; ++i)
      for (int k = 0; k < 3; ++k) cen[k] += 0.25 * st->x[3 * t[i] + k];
    if (c == 1) /* the solver's choice: along the longest edge */
      for (int q = 0; q < 6; ++q) {
        double d[3], l2 = 0;
        for (int k = 0; k < 3; ++k) {
          d[k] = st->x[3 * t[pair[q][1]] + k] - st->x[3 * t[pair[q][0]] + k];
          l2 += d[k] * d[k];
        }
        if (l2 > longest) {
          longest = l2;
          memcpy(n, d, sizeof n);
        }
      }
    int expect[6], nexpect = 0;
    for (int q = 0; q < 6; ++q) {
      double sa = 0, sb = 0;
      for (int k = 0; k < 3; ++k) {
        sa += n[k] * (st->x[3 * t[pair[q][0]] + k] - cen[k]);
        sb += n[k] * (st->x[3 * t[pair[q][1]] + k] - cen[k]);
      }
      expect[q] = sa * sb < 0;
      nexpect += expect[q];
    }
    const int64_t before = s->broken_edges;
    cl_fracture_event ev = cl_event_split_unit(e, normals[c], 1.0, 1.0);
    int32_t applied = 0;
    assert_int_equal(bd->ops->fracture(bd->solver, st, &ev, 1, &applied), CL_OK);
    assert_int_equal(applied, 1);
    assert_true(nexpect >= 3); /* a plane through the centroid separates one corner or two */
    for (int q = 0; q < 6; ++q) {
      const int32_t k = cl_gfem_edge(s, t[pair[q][0]], t[pair[q][1]]);
      assert_int_equal(s->damage[k] >= 1.0, expect[q]);
    }
    print_message("graph_fem: split_unit of tet %d broke %lld edges (%d expected)\n", e,
                  (long long)(s->broken_edges - before), nexpect);
    assert_true(s->broken_edges - before <= nexpect); /* an edge shared with tet 3 may be broken already */
  }
  int64_t total = 0;
  for (int32_t k = 0; k < s->nedges; ++k) total += s->damage[k] >= 1.0;
  assert_int_equal(total, s->broken_edges);
  cl_world_destroy(w);

  /* cluster_stretch through the world: a bar pulled apart at 1 m/s breaks */
  w = cl_test_world(1e-3, 0.0, 1);
  const cl_param cp = {"toughness", 0.05, NULL};
  b = add_bar(w, 8, 2, 2, 0.8, CL_FEM_STABLE_NEOHOOKEAN, "cluster_stretch", &cp, 1, NULL);
  for (int side = 0; side < 2; ++side) {
    cl_region_def rd;
    cl_region_def_default(&rd, CL_REGION_SLAB);
    rd.axis = 0;
    rd.lo[0] = side ? 0.75 : -1.0;
    rd.hi[0] = side ? 1.0 : 0.05;
    cl_motion_def md;
    cl_motion_def_default(&md, CL_MOTION_TRANSLATE);
    md.velocity[0] = side ? 1.0 : -1.0;
    cl_id cond = 0;
    assert_int_equal(cl_world_constrain(w, b, &rd, &md, &cond), CL_OK);
  }
  assert_int_equal(cl_world_step(w, 100), CL_OK);
  cl_body_info info;
  assert_int_equal(cl_body_get_info(w, b, &info), CL_OK);
  print_message("graph_fem with cluster_stretch: %lld broken edges, %d pieces\n",
                (long long)solver_of(w, b)->broken_edges, info.pieces);
  assert_true(info.pieces >= 2);
  cl_world_destroy(w);
}

/* ---- the criterion --------------------------------------------------------------------------- */

/* edge_stress bound on a state of its own (tests/c/support/unit_fixture.h): a 3 x 2 x 2 grid of
 * 0.1 x 0.05 x 0.05 m cells, material E and nu as the bodies above. */
typedef struct crit_fixture {
  cl_test_unit_fixture fx;
  const cl_criterion_ops *ops;
  void *crit;
  cl_body_state *st;
  cl_unit_fields u;
  cl_event_list ev;
} crit_fixture;

static cl_status crit_open_status(crit_fixture *f, const cl_param *cp, int32_t ncp) {
  memset(f, 0, sizeof *f);
  const cl_test_grid g = {{3, 2, 2}, {0, 0, 0}, {0.3, 0.1, 0.1}};
  cl_test_unit_fixture_init(&f->fx, &g, 1);
  f->st = &f->fx.st;
  f->u = f->fx.u;
  f->ops = cl_test_criterion("edge_stress");
  assert_int_equal(f->ops->create(&f->crit), CL_OK);
  double params[8];
  cl_status s = cl_params_resolve("criterion 'edge_stress'", f->ops->params, f->ops->param_count, cp, ncp, params);
  if (s < 0) return s;
  cl_material_def mat;
  memset(&mat, 0, sizeof mat);
  mat.young = k_young;
  mat.poisson = k_poisson;
  mat.density = k_density;
  cl_criterion_bind_input in = {params, &mat, "graph_fem", &k_edge_caps, f->st, "fixture", NULL, 1};
  return f->ops->bind(f->crit, &in);
}

static void crit_open(crit_fixture *f, const cl_param *cp, int32_t ncp) {
  const cl_status s = crit_open_status(f, cp, ncp);
  if (s != CL_OK) fail_msg("edge_stress bind: %s", cl_last_error());
}

static void crit_close(crit_fixture *f) {
  f->ops->destroy(f->crit);
  cl_test_unit_fixture_free(&f->fx);
  cl_event_list_free(&f->ev);
}

static void crit_eval(crit_fixture *f) {
  f->ev.count = 0;
  assert_int_equal(f->ops->evaluate(f->crit, &f->u, f->st, 1e-3, &f->ev), CL_OK);
}

static void uniform_stress(crit_fixture *f, const double *S) {
  for (int32_t e = 0; e < f->u.count; ++e) memcpy(f->u.stress + 9 * e, S, 9 * sizeof(double));
}

/* n^T sigma n of edge (a, b) at the current positions */
static double edge_normal_stress(const cl_body_state *st, int32_t a, int32_t b, const double *S) {
  double n[3] = {st->x[3 * b] - st->x[3 * a], st->x[3 * b + 1] - st->x[3 * a + 1], st->x[3 * b + 2] - st->x[3 * a + 2]};
  const double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  double sn = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) sn += S[3 * i + j] * n[i] * n[j] / (l * l);
  return sn;
}

/* The threshold's edge stresses (the events' values with a strength so small that every edge in
 * tension breaks) against the direct loop: each tet, each of its edges, the nine-term n^T sigma n
 * with n from the current positions, the largest per edge; within 1e-12 of the largest stress, for
 * unsymmetric stresses and moved nodes, and bit for bit the same with one thread and with two. */
static void test_threshold_edge_stresses_are_the_direct_projection(void **state) {
  (void)state;
  cl_param cp[1] = {{"strength", 1e-300, NULL}};
  double *vals[2] = {NULL, NULL};
  int32_t counts[2] = {0, 0};
  for (int threads = 1; threads <= 2; ++threads) {
    crit_fixture f;
    memset(&f, 0, sizeof f);
    const cl_test_grid g = {{12, 6, 6}, {0, 0, 0}, {0.6, 0.3, 0.3}}; /* 2592 tets: the parallel loops run */
    cl_test_unit_fixture_init(&f.fx, &g, 1);
    f.st = &f.fx.st;
    f.u = f.fx.u;
    f.ops = cl_test_criterion("edge_stress");
    assert_int_equal(f.ops->create(&f.crit), CL_OK);
    double params[8];
    assert_int_equal(cl_params_resolve("criterion 'edge_stress'", f.ops->params, f.ops->param_count, cp, 1, params), CL_OK);
    cl_material_def mat = {.young = k_young, .poisson = k_poisson, .density = k_density};
    cl_criterion_bind_input in = {params, &mat, "graph_fem", &k_edge_caps, f.st, "fixture", NULL, threads};
    assert_int_equal(f.ops->bind(f.crit, &in), CL_OK);
    cl_body_state *st = f.st;
    uint64_t rng = 3;
    for (int32_t i = 0; i < 3 * st->n; ++i) st->x[i] += 0.01 * (cl_test_rand01(&rng) - 0.5);
    double smax = 0.0;
    for (int32_t k = 0; k < 9 * f.u.count; ++k) {
      f.u.stress[k] = 1e4 * (cl_test_rand01(&rng) - 0.3);
      smax = fmax(smax, fabs(f.u.stress[k]));
    }
    int32_t *edges = NULL, ne = 0, *te = malloc(sizeof(int32_t) * 6 * (size_t)st->ncells);
    assert_int_equal(cl_tet_edge_list(st->n, st->ncells, st->cells, &edges, &ne, te), CL_OK);
    double *ref = malloc(sizeof(double) * (size_t)ne);
    for (int32_t q = 0; q < ne; ++q) ref[q] = -INFINITY;
    for (int32_t t = 0; t < st->ncells; ++t)
      for (int k = 0; k < 6; ++k) {
        const int32_t q = te[6 * t + k];
        ref[q] = fmax(ref[q], edge_normal_stress(st, edges[2 * q], edges[2 * q + 1], f.u.stress + 9 * t));
      }
    crit_eval(&f);
    double worst = 0.0;
    int32_t expect = 0;
    for (int32_t q = 0; q < ne; ++q) expect += ref[q] > 1e-300;
    assert_int_equal(f.ev.count, expect);
    vals[threads - 1] = malloc(sizeof(double) * (size_t)(f.ev.count + 1));
    counts[threads - 1] = f.ev.count;
    for (int32_t i = 0; i < f.ev.count; ++i) {
      const cl_fracture_event *e = &f.ev.items[i];
      int32_t q = -1;
      for (int32_t j = 0; j < ne && q < 0; ++j)
        if (edges[2 * j] == e->damage_edge.a && edges[2 * j + 1] == e->damage_edge.b) q = j;
      assert_true(q >= 0);
      worst = fmax(worst, fabs(e->value - ref[q]));
      vals[threads - 1][i] = e->value;
    }
    print_message("edge_stress, %d thread(s): %d edges in tension, worst difference from the direct loop %.2g Pa, the "
                  "largest stress %.3g Pa\n", threads, f.ev.count, worst, smax);
    assert_true(f.ev.count > ne / 4);
    assert_true(worst <= 1e-12 * smax);
    free(edges);
    free(te);
    free(ref);
    crit_close(&f);
  }
  assert_int_equal(counts[0], counts[1]);
  assert_memory_equal(vals[0], vals[1], sizeof(double) * (size_t)counts[0]);
  free(vals[0]);
  free(vals[1]);
}

/* Uniaxial stress 1.5 f_t along x: exactly the edges with cos^2 > 1 / 1.5 break. Pure shear
 * sigma_xy = +-1.4 f_t breaks the xy face diagonals of the grid's 0.1 x 0.05 x 0.05 cells (n_x n_y =
 * 0.4, so n^T sigma n = 2 sigma_xy n_x n_y = 1.12 f_t: the tensor projection; the printed eq 1 would
 * give 0.56 f_t and break nothing), not the body diagonals (n_x n_y = 1/3: 0.93 f_t). */
static void test_threshold_is_the_tensor_projection(void **state) {
  (void)state;
  const double ft = 1e4;
  cl_param cp[1] = {{"strength", ft, NULL}};
  const double cases[2][9] = {{1.5 * ft, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 1.4 * ft, 0, 1.4 * ft, 0, 0, 0, 0, 0}};
  for (int c = 0; c < 2; ++c) {
    crit_fixture f;
    crit_open(&f, cp, 1);
    const cl_body_state *st = f.st;
    int32_t *edges = NULL, ne = 0;
    assert_int_equal(cl_tet_edge_list(st->n, st->ncells, st->cells, &edges, &ne, NULL), CL_OK);
    double S[9];
    memcpy(S, cases[c], sizeof S);
    int32_t expect = 0;
    for (int sign = 0; sign < 2 && !expect; ++sign) { /* the grid's xy diagonals run along (1, 1, 0) or (1, -1, 0) */
      if (sign)
        for (int k = 0; k < 9; ++k) S[k] = -S[k];
      for (int32_t k = 0; k < ne; ++k) expect += edge_normal_stress(st, edges[2 * k], edges[2 * k + 1], S) > ft;
    }
    uniform_stress(&f, S);
    crit_eval(&f);
    for (int32_t i = 0; i < f.ev.count; ++i) {
      const cl_fracture_event *e = &f.ev.items[i];
      assert_int_equal(e->kind, CL_EVENT_DAMAGE_EDGE);
      assert_true(e->damage_edge.damage == 1.0);
      if (!(edge_normal_stress(st, e->damage_edge.a, e->damage_edge.b, S) > ft))
        print_error("event %d: edge (%d, %d) stress %g value %g\n", i, e->damage_edge.a, e->damage_edge.b,
                    edge_normal_stress(st, e->damage_edge.a, e->damage_edge.b, S), e->value);
      assert_true(edge_normal_stress(st, e->damage_edge.a, e->damage_edge.b, S) > ft);
    }
    print_message("edge_stress: case %d: %d edges above the strength, %d events\n", c, expect, f.ev.count);
    assert_true(expect > 0);
    assert_int_equal(f.ev.count, expect);
    crit_eval(&f); /* broken for good: nothing again */
    assert_int_equal(f.ev.count, 0);
    free(edges);
    crit_close(&f);
  }
}

/* Softening (a crack band per element): a uniform stretch F = diag(1 + eps, 1, 1) gives every tet
 * the effective stress (lambda + 2 mu) E_xx along x (E_xx = eps + eps^2 / 2, the Green strain) and
 * lambda E_xx across, so sigma_1 / E = kappa, the energy ratio r = E / (lambda + 2 mu) and the width
 * along x h = 0.1 m (every Kuhn tet spans its cell): band r h. The linear law then gives
 * sigma = (f_t - s r h kappa) / (1 - s r h / E), s = f_t^2 / (2 G_f), and D = 1 - sigma / (E kappa)
 * on all six edges of each tet, inside that tet alone (in_unit); no event below the strength or on
 * unloading (kappa is the history); D = 1 once the crack is open; and an element too wide to
 * soften warns. */
static void set_stretch(crit_fixture *f, double eps) {
  for (int32_t i = 0; i < f->st->n; ++i) f->st->x[3 * i] = f->st->X[3 * i] * (1.0 + eps);
  for (int32_t e = 0; e < f->u.count; ++e) {
    double *F = f->u.F + 9 * e;
    memset(F, 0, 9 * sizeof(double));
    F[0] = 1.0 + eps, F[4] = F[8] = 1.0;
  }
}

static void test_softening_law(void **state) {
  (void)state;
  const double ft = 5e3, gf = 50.0, h = 0.1;
  const double lam = k_young * k_poisson / ((1 + k_poisson) * (1 - 2 * k_poisson)), mu = k_young / (2 * (1 + k_poisson));
  const double r = k_young / (lam + 2 * mu), hb = r * h, slope = ft * ft / (2 * gf);
  /* kappa at which the law's traction reaches 0 */
  const double kf = ft / (slope * hb), k0 = ft / k_young;
  cl_param cp[3] = {{"strength", ft, NULL}, {"mode", 1, NULL}, {"fracture_energy", gf, NULL}};
  crit_fixture f;
  crit_open(&f, cp, 3);
  const cl_body_state *st = f.st;
  const double kappas[4] = {0.5 * k0, 0.5 * (k0 + kf), 0.3 * (k0 + kf), 1.01 * kf};
  double last = 0.0;
  for (int c = 0; c < 4; ++c) {
    /* the stretch whose (lambda + 2 mu) E_xx / E is kappas[c] */
    const double exx = kappas[c] * k_young / (lam + 2 * mu), eps = sqrt(1 + 2 * exx) - 1;
    set_stretch(&f, eps);
    crit_eval(&f);
    const double k = kappas[c];
    const double sig = fmax(0.0, (ft - slope * hb * k) / (1 - slope * hb / k_young));
    const double expect = 1.0 - sig / (k_young * k);
    int32_t *count = calloc((size_t)st->ncells, sizeof(int32_t));
    double worst = 0.0;
    for (int32_t i = 0; i < f.ev.count; ++i) {
      const cl_fracture_event *e = &f.ev.items[i];
      assert_int_equal(e->kind, CL_EVENT_DAMAGE_EDGE);
      assert_int_equal(e->damage_edge.in_unit, 1);
      const int32_t t = e->damage_edge.unit, *tv = st->cells + 4 * t;
      int has_a = 0, has_b = 0;
      for (int q = 0; q < 4; ++q) has_a |= tv[q] == e->damage_edge.a, has_b |= tv[q] == e->damage_edge.b;
      assert_true(has_a && has_b); /* the edge is the tet's own */
      count[t]++;
      worst = fmax(worst, fabs(e->damage_edge.damage - expect));
      last = e->damage_edge.damage;
    }
    print_message("edge_stress softening: kappa %.4g (kappa_0 %.4g, open at %.4g): %d events, damage %.6g "
                  "(expected %.6g, worst difference %.2g)\n", k, k0, kf, f.ev.count, last, expect, worst);
    if (c == 0 || c == 2) {
      assert_int_equal(f.ev.count, 0); /* below the strength, then unloading */
    } else {
      for (int32_t t = 0; t < st->ncells; ++t) assert_int_equal(count[t], 6);
      assert_true(worst < 1e-9);
    }
    free(count);
  }
  assert_true(last == 1.0);
  crit_eval(&f); /* open for good: nothing again */
  assert_int_equal(f.ev.count, 0);
  crit_close(&f);

  /* G_f so small that E / (f_t^2 / (2 G_f)) = 0.04 m, below the 0.05 and 0.1 m edges: a warning, the
   * elements still break */
  cl_param weak[3] = {{"strength", ft, NULL}, {"mode", 1, NULL}, {"fracture_energy", ft * ft * 0.04 / (2 * k_young), NULL}};
  assert_int_equal(crit_open_status(&f, weak, 3), CL_WARN_CLAMPED);
  print_message("edge_stress softening, long elements: %s\n", cl_last_error());
  assert_non_null(strstr(cl_last_error(), "snap back"));
  set_stretch(&f, 0.5);
  crit_eval(&f);
  assert_true(f.ev.count > 0);
  for (int32_t i = 0; i < f.ev.count; ++i) assert_true(f.ev.items[i].damage_edge.damage == 1.0);
  crit_close(&f);
}

/* The diffusion kernel: one tet's edges break; with R_d > 0 the edges around get 1 - r / R_d, more of
 * them for a larger R_d. */
static void test_diffusion_radius(void **state) {
  (void)state;
  int32_t prev = -1;
  const double radii[3] = {0.0, 0.08, 0.16};
  for (int c = 0; c < 3; ++c) {
    cl_param cp[2] = {{"strength", 1e4, NULL}, {"diffusion_radius", radii[c], NULL}};
    crit_fixture f;
    crit_open(&f, cp, 2);
    const double S[9] = {3e4, 0, 0, 0, 3e4, 0, 0, 0, 3e4}; /* every direction above the strength */
    memcpy(f.u.stress, S, sizeof S);                       /* in tet 0 only */
    crit_eval(&f);
    int32_t full = 0, partial = 0;
    for (int32_t i = 0; i < f.ev.count; ++i) {
      const double d = f.ev.items[i].damage_edge.damage;
      full += d == 1.0;
      partial += d < 1.0;
      assert_true(d > 0.0 && d <= 1.0);
    }
    print_message("edge_stress: R_d = %g m: %d broken, %d partly damaged edges\n", radii[c], full, partial);
    assert_int_equal(full, 6);
    if (c == 0) assert_int_equal(partial, 0);
    assert_true(full + partial > prev);
    prev = full + partial;
    crit_close(&f);
  }
}

/* Bad input: clear errors naming the parameter (or the solvers that fit), never a crash. */
/* The hinge rule (hinge_angle): a 3 x 2 x 2 grid whose tets with a face on the plane x = 0.1 right of
 * it break (softening: a huge stretch), so the left column and the rest meet only through the
 * plane's nodes and edges, a hinge. Turned against each other about z by less than hinge_angle,
 * nothing more breaks; by more, the tets of one side at the hinge's nodes break through (damage 1
 * inside them), so the parts come apart; with the rule off (hinge_angle 0), nothing breaks however
 * far they turn. */
static void test_hinge_rule(void **state) {
  (void)state;
  const double angles[3] = {0.05, 0.3, 0.3}, limits[3] = {0.1, 0.1, 0.0};
  for (int c = 0; c < 3; ++c) {
    cl_param cp[3] = {{"strength", 1e4, NULL}, {"mode", 1, NULL}, {"hinge_angle", limits[c], NULL}};
    crit_fixture f;
    crit_open(&f, cp, 3);
    const cl_body_state *st = f.st;
    const int32_t nt = st->ncells;
    uint8_t *right = calloc((size_t)nt, 1), *cutf = calloc((size_t)nt, 1), *plane = calloc((size_t)nt, 1);
    assert_non_null(right);
    assert_non_null(cutf);
    assert_non_null(plane);
    int32_t ncut = 0;
    for (int32_t t = 0; t < nt; ++t) {
      double cx = 0.0;
      int on = 0;
      for (int a = 0; a < 4; ++a) {
        const double x = st->X[3 * (size_t)st->cells[4 * t + a]];
        cx += 0.25 * x;
        on += fabs(x - 0.1) < 1e-9;
      }
      right[t] = cx > 0.1;
      plane[t] = on > 0;
      cutf[t] = right[t] && on == 3;
      ncut += cutf[t];
      if (cutf[t]) f.u.F[9 * (size_t)t] = 3.0; /* Green strain 4 along x: the crack band opens at once */
    }
    assert_true(ncut > 0);
    crit_eval(&f);
    assert_int_equal(f.ev.count, 6 * ncut); /* the six edges of each cut tet; no hinge yet: nothing turned */
    const double th = angles[c], co = cos(th), si = sin(th);
    for (int32_t t = 0; t < nt; ++t) {
      if (!right[t] || cutf[t]) continue;
      double *F = f.u.F + 9 * (size_t)t;
      memset(F, 0, 9 * sizeof(double));
      F[0] = co, F[1] = -si, F[3] = si, F[4] = co, F[8] = 1.0;
    }
    crit_eval(&f);
    if (c != 1) {
      assert_int_equal(f.ev.count, 0);
    } else {
      assert_true(f.ev.count > 0 && f.ev.count % 6 == 0);
      for (int32_t k = 0; k < f.ev.count; ++k) {
        const cl_fracture_event *e = &f.ev.items[k];
        assert_int_equal(e->kind, CL_EVENT_DAMAGE_EDGE);
        assert_int_equal(e->damage_edge.in_unit, 1);
        assert_true(e->damage_edge.damage >= 1.0);
        assert_true(plane[e->damage_edge.unit] && !cutf[e->damage_edge.unit]);
      }
      print_message("hinge rule: %d tets cut to a hinge, turned %.2f rad: %d tets at the hinge break\n", ncut, th,
                    f.ev.count / 6);
      crit_eval(&f); /* the hinge is gone: nothing more breaks */
      assert_int_equal(f.ev.count, 0);
    }
    free(right);
    free(cutf);
    free(plane);
    crit_close(&f);
  }
}

static void test_bad_input(void **state) {
  (void)state;
  struct {
    cl_param p[2];
    int n;
    const char *needle;
  } cases[] = {
      {{{"strength", 0.0, NULL}}, 1, "strength"},
      {{{"strength", NAN, NULL}}, 1, "strength"},
      {{{"strength", -1.0, NULL}}, 1, "strength"},
      {{{"mode", 1, NULL}, {"fracture_energy", 0.0, NULL}}, 2, "fracture_energy"},
      {{{"mode", 2, NULL}}, 1, "mode"},
      {{{"mode", 1, NULL}, {"softening_law", 2, NULL}}, 2, "softening_law"},
      {{{"mode", 1, NULL}, {"fracture_energy", INFINITY, NULL}}, 2, "fracture_energy"},
      {{{"diffusion_radius", -0.1, NULL}}, 1, "diffusion_radius"},
      {{{"diffusion_radius", INFINITY, NULL}}, 1, "diffusion_radius"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    cl_world *w = cl_test_world(1e-3, 0.0, 1);
    cl_status s = CL_OK;
    add_bar(w, 2, 1, 1, 0.2, CL_FEM_STABLE_NEOHOOKEAN, "edge_stress", cases[c].p, cases[c].n, &s);
    print_message("edge_stress bad input %zu: %s\n", c, cl_last_error());
    assert_true(s < 0);
    assert_non_null(strstr(cl_last_error(), cases[c].needle));
    cl_world_destroy(w);
  }
  /* a model that does not exist */
  cl_world *w = cl_test_world(1e-3, 0.0, 1);
  cl_status s = CL_OK;
  add_bar(w, 2, 1, 1, 0.2, 7, NULL, NULL, 0, &s);
  assert_true(s < 0);
  assert_non_null(strstr(cl_last_error(), "model"));
  /* edge_stress on a solver that does not damage edges names the one that does */
  const double lo[3] = {0, 0, 0}, hi[3] = {0.2, 0.1, 0.1};
  cl_mesh *m = NULL;
  assert_int_equal(cl_tet_grid(2, 1, 1, lo, hi, &m), CL_OK);
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.solver = "corotational";
  bd.criterion = "edge_stress";
  cl_id b;
  s = cl_world_add_body(w, &bd, m, &b);
  print_message("edge_stress on corotational: %s\n", cl_last_error());
  assert_true(s < 0);
  assert_non_null(strstr(cl_last_error(), "graph_fem"));
  /* graph_fem on a surface mesh */
  cl_mesh *tri = NULL;
  assert_int_equal(cl_mesh_alloc(CL_MESH_TRIANGLES, 3, 1, &tri), CL_OK);
  const double px[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  memcpy(tri->x, px, sizeof px);
  for (int k = 0; k < 3; ++k) tri->cells[k] = k;
  bd.solver = "graph_fem";
  bd.criterion = NULL;
  s = cl_world_add_body(w, &bd, tri, &b);
  assert_true(s < 0);
  assert_non_null(strstr(cl_last_error(), "tetrahedral"));
  cl_mesh_destroy(tri);
  cl_mesh_destroy(m);
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_undamaged_element_is_the_model),
      cmocka_unit_test(test_degraded_element_without_damage_is_linear),
      cmocka_unit_test(test_damaged_stiffness_is_symmetric_psd),
      cmocka_unit_test(test_vertex_with_all_edges_broken_moves_freely),
      cmocka_unit_test(test_assembled_stiffness_is_the_force_derivative),
      cmocka_unit_test(test_cut_splits_bar_and_surface),
      cmocka_unit_test(test_split_unit_breaks_the_edges_the_plane_separates),
      cmocka_unit_test(test_threshold_is_the_tensor_projection),
      cmocka_unit_test(test_threshold_edge_stresses_are_the_direct_projection),
      cmocka_unit_test(test_softening_law),
      cmocka_unit_test(test_diffusion_radius),
      cmocka_unit_test(test_hinge_rule),
      cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
