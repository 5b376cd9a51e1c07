/* The corotational solver (src/solvers/corotational): patch test, stiffness warping under a 90-degree
 * rotation, exact constraints, plasticity, element inversion, bad input (inverted or degenerate
 * rest tets, isolated nodes, all nodes fixed, NaN, a linear solve that does not converge), the
 * CHOLMOD path and islands. Fracture has its own file (test_corotational_fracture.c). */
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
#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "solvers/corotational/corot.h"
#include "support/elastic_assembly.h"
#include "world/world.h"

static cl_world *make_world(double dt, double gy) {
  cl_world_def def;
  cl_world_def_default(&def);
  def.dt = dt;
  def.gravity[1] = gy;
  def.threads = 1;
  cl_world *w = NULL;
  assert_int_equal(cl_world_create(&def, &w), CL_OK);
  return w;
}

/* Add a body with the corotational solver; returns the status (body id in *id). */
static cl_status add_body(cl_world *w, const cl_mesh *mesh, const char *name, const cl_material_def *mat,
                          const cl_param *params, int32_t np, cl_id *id) {
  cl_body_def def;
  cl_body_def_default(&def);
  def.name = name;
  def.solver = "corotational";
  if (mat) def.material = *mat;
  def.params = params;
  def.param_count = np;
  return cl_world_add_body(w, &def, mesh, id);
}

static cl_corot *solver_of(cl_world *w, cl_id id) {
  cl_body *b = NULL;
  assert_int_equal(cl_world_body(w, id, &b), CL_OK);
  assert_ptr_equal(b->ops, &cl_corotational_solver_ops);
  return b->solver;
}

static cl_mesh *grid(int nx, int ny, int nz, double lx, double ly, double lz) {
  const double lo[3] = {0, 0, 0}, hi[3] = {lx, ly, lz};
  cl_mesh *m = NULL;
  assert_int_equal(cl_tet_grid(nx, ny, nz, lo, hi, &m), CL_OK);
  return m;
}

static cl_id fix_slab(cl_world *w, cl_id b, int axis, double lo, double hi) {
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_SLAB);
  r.axis = axis;
  r.lo[0] = lo;
  r.hi[0] = hi;
  cl_motion_def m;
  cl_motion_def_default(&m, CL_MOTION_FIXED);
  cl_id c = 0;
  assert_int_equal(cl_world_constrain(w, b, &r, &m, &c), CL_OK);
  return c;
}

/* ---- patch test --------------------------------------------------------------------------- */

/* An irregular (TetGen) mesh of the unit cube with every boundary node held on the affine field
 * x = (I + G) X of a uniform stretch; interior nodes start at rest. The static solution of linear
 * tets is exactly this field (patch test), so every tet must end with F = I + G and strain G to 1e-8,
 * and stress lambda tr(G) I + 2 mu G. */
static void test_patch_uniform_stretch(void **state) {
  (void)state;
  cl_mesh *mesh = cl_test_tetgen_box(0.004);
  assert_non_null(mesh); /* TetGen is part of every build: no skip */
  cl_world *w = make_world(1.0, 0.0); /* dt = 1 s: quasi-static steps */
  cl_material_def mat;
  cl_body_def bd;
  cl_body_def_default(&bd);
  mat = bd.material;
  mat.young = 1e5;
  mat.poisson = 0.3;
  const cl_param p[] = {{"tolerance", 1e-13, NULL}, {"damping", 50.0, NULL}};
  cl_id b;
  assert_int_equal(add_body(w, mesh, "patch", &mat, p, 2, &b), CL_OK);
  cl_body_state *st = cl_world_body_state(w, b);
  const double G[3] = {0.01, -0.004, 0.002};
  int32_t *bnd = malloc(sizeof(int32_t) * (size_t)st->n), nb = 0, interior = 0;
  for (int32_t i = 0; i < st->n; ++i) {
    const double *X = st->X + 3 * i;
    int on = 0;
    for (int k = 0; k < 3; ++k) on |= fabs(X[k]) < 1e-12 || fabs(X[k] - 1.0) < 1e-12;
    if (!on) {
      ++interior;
      continue;
    }
    bnd[nb++] = i;
    for (int k = 0; k < 3; ++k) st->x[3 * i + k] = (1.0 + G[k]) * X[k];
  }
  assert_true(interior > 0);
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_INDICES);
  r.indices = bnd;
  r.count = nb;
  cl_motion_def m;
  cl_motion_def_default(&m, CL_MOTION_FIXED);
  cl_id c;
  assert_int_equal(cl_world_constrain(w, b, &r, &m, &c), CL_OK);
  free(bnd);
  assert_int_equal(cl_world_step(w, 40), CL_OK);

  cl_body_info info;
  assert_int_equal(cl_body_get_info(w, b, &info), CL_OK);
  double *F = malloc(sizeof(double) * 9 * (size_t)info.units);
  double *S = malloc(sizeof(double) * 9 * (size_t)info.units);
  assert_int_equal(cl_body_copy_unit_field(w, b, CL_UNIT_DEFORMATION_GRADIENT, F, 9 * (int64_t)info.units), CL_OK);
  assert_int_equal(cl_body_copy_unit_field(w, b, CL_UNIT_STRESS, S, 9 * (int64_t)info.units), CL_OK);
  const double E = 1e5, nu = 0.3, mu = E / (2 * (1 + nu)), lam = E * nu / ((1 + nu) * (1 - 2 * nu));
  const double tr = G[0] + G[1] + G[2];
  double ferr = 0.0, serr = 0.0;
  for (int32_t u = 0; u < info.units; ++u)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double Fe = (i == j ? 1.0 + G[i] : 0.0), Se = (i == j ? lam * tr + 2 * mu * G[i] : 0.0);
        ferr = fmax(ferr, fabs(F[9 * u + 3 * i + j] - Fe));
        serr = fmax(serr, fabs(S[9 * u + 3 * i + j] - Se));
      }
  print_message("patch test: %d tets, %d interior nodes, max |F - (I+G)| = %.2e, max |sigma - sigma_exact| = %.2e Pa\n",
                info.units, interior, ferr, serr);
  assert_true(ferr <= 1e-8);
  assert_true(serr <= 1e-8 * E);
  free(F);
  free(S);
  cl_world_destroy(w);
  cl_mesh_destroy(mesh);
}

/* ---- stiffness warping -------------------------------------------------------------------- */

static double max_abs_force(const cl_corot *s) {
  double m = 0.0;
  for (int64_t k = 0; k < 12 * (int64_t)s->ntets; ++k) m = fmax(m, fabs(s->f[k]));
  return m;
}

static void rotation_gives_no_force(int method) {
  cl_mesh *mesh = grid(3, 2, 2, 0.3, 0.1, 0.1);
  cl_world *w = make_world(1e-3, 0.0);
  const cl_param p[] = {{"rotation", (double)method, NULL}};
  cl_id b;
  assert_int_equal(add_body(w, mesh, "spun", NULL, p, 1, &b), CL_OK);
  cl_body_state *st = cl_world_body_state(w, b);
  cl_corot *s = solver_of(w, b);
  /* reference: a 1 % stretch */
  for (int32_t i = 0; i < st->n; ++i) st->x[3 * i] = 1.01 * st->X[3 * i];
  assert_int_equal(cl_corot_update_elements(s, st, 1e-3, 0), CL_OK);
  double f_ref = max_abs_force(s);
  /* 90 degrees about z, then about x: x' = Rx Rz X */
  for (int32_t i = 0; i < st->n; ++i) {
    const double *X = st->X + 3 * i;
    double y[3] = {-X[1], X[0], X[2]};
    st->x[3 * i] = y[0] + 0.5;
    st->x[3 * i + 1] = -y[2] - 0.25;
    st->x[3 * i + 2] = y[1] + 1.0;
  }
  assert_int_equal(cl_corot_update_elements(s, st, 1e-3, 0), CL_OK);
  double f_rot = max_abs_force(s);
  print_message("rotation method %d: max element force after 90-degree rotations %.2e N (1%% stretch: %.2e N)\n",
                method, f_rot, f_ref);
  assert_true(f_ref > 0.0);
  assert_true(f_rot <= 1e-12 * f_ref);
  /* and the body stays put when stepped */
  assert_int_equal(cl_world_step(w, 5), CL_OK);
  st = cl_world_body_state(w, b);
  for (int32_t i = 0; i < 3 * st->n; ++i) assert_true(fabs(st->v[i]) < 1e-12);
  double e;
  assert_int_equal(cl_corotational_solver_ops.elastic_energy(s, st, &e), CL_OK);
  assert_true(e < 1e-20);
  cl_world_destroy(w);
  cl_mesh_destroy(mesh);
}

static void test_rotation_90_polar(void **state) {
  (void)state;
  rotation_gives_no_force(CL_COROT_ROTATION_POLAR);
}

static void test_rotation_90_gram_schmidt(void **state) {
  (void)state;
  rotation_gives_no_force(CL_COROT_ROTATION_GRAM_SCHMIDT);
}

/* ---- constraints --------------------------------------------------------------------------- */

static void test_fixed_nodes_exactly_at_rest(void **state) {
  (void)state;
  cl_mesh *mesh = grid(6, 2, 2, 0.6, 0.1, 0.1);
  cl_world *w = make_world(1.0 / 60.0, -9.81);
  cl_material_def mat;
  cl_body_def bd;
  cl_body_def_default(&bd);
  mat = bd.material;
  mat.young = 1e5;
  cl_id b;
  assert_int_equal(add_body(w, mesh, "cantilever", &mat, NULL, 0, &b), CL_OK);
  fix_slab(w, b, 0, -1.0, 0.0);
  /* the far end is driven sideways at constant speed */
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_SLAB);
  r.axis = 0;
  r.lo[0] = 0.6;
  r.hi[0] = 1.0;
  cl_motion_def mv;
  cl_motion_def_default(&mv, CL_MOTION_TRANSLATE);
  mv.velocity[2] = 0.05;
  cl_id drive;
  assert_int_equal(cl_world_constrain(w, b, &r, &mv, &drive), CL_OK);
  assert_int_equal(cl_world_step(w, 30), CL_OK);
  cl_body_state *st = cl_world_body_state(w, b);
  const double t = 30.0 / 60.0;
  int32_t fixed = 0, driven = 0;
  double sag = 0.0;
  for (int32_t i = 0; i < st->n; ++i) {
    const double *x = st->x + 3 * i, *X = st->X + 3 * i, *v = st->v + 3 * i;
    if (X[0] == 0.0) {
      ++fixed;
      for (int k = 0; k < 3; ++k) {
        assert_true(x[k] == X[k]); /* bitwise: constraints, not springs */
        assert_true(v[k] == 0.0);
      }
    } else if (X[0] >= 0.6 - 1e-12) {
      ++driven;
      assert_true(x[0] == X[0] && x[1] == X[1]);
      assert_true(fabs(x[2] - (X[2] + 0.05 * t)) <= 1e-15);
      assert_true(v[2] == 0.05);
    } else {
      sag = fmin(sag, x[1] - X[1]);
    }
  }
  assert_true(fixed == 9 && driven == 9);
  assert_true(sag < -1e-4); /* the middle sags under gravity */
  cl_world_destroy(w);
  cl_mesh_destroy(mesh);
}

/* Every node held: nothing to solve, positions exact, the reaction carries the weight. */
static void test_all_nodes_fixed(void **state) {
  (void)state;
  cl_mesh *mesh = grid(2, 2, 2, 0.1, 0.1, 0.1);
  cl_world *w = make_world(0.01, -9.81);
  cl_id b, c, probe;
  assert_int_equal(add_body(w, mesh, "pinned", NULL, NULL, 0, &b), CL_OK);
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_ALL);
  cl_motion_def m;
  cl_motion_def_default(&m, CL_MOTION_FIXED);
  assert_int_equal(cl_world_constrain(w, b, &r, &m, &c), CL_WARN_ALL_FIXED);
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_REACTION);
  pd.condition = c;
  assert_int_equal(cl_world_add_probe(w, &pd, &probe), CL_OK);
  assert_int_equal(cl_world_step(w, 3), CL_OK);
  cl_body_state *st = cl_world_body_state(w, b);
  for (int32_t i = 0; i < 3 * st->n; ++i) assert_true(st->x[i] == st->X[i] && st->v[i] == 0.0);
  double react[3];
  assert_int_equal(cl_probe_read(w, probe, react, 3), CL_OK);
  double weight = cl_body_state_mass(st) * 9.81;
  assert_true(fabs(react[1] - weight) <= 1e-9 * weight);
  assert_true(fabs(react[0]) <= 1e-9 * weight && fabs(react[2]) <= 1e-9 * weight);
  cl_world_destroy(w);
  cl_mesh_destroy(mesh);
}

/* ---- plasticity ----------------------------------------------------------------------------- */

/* Mean vertical displacement of the nodes at the free end x = 0.4 (m). */
static double tip_deflection(const cl_body_state *st) {
  double sum = 0.0;
  int32_t k = 0;
  for (int32_t i = 0; i < st->n; ++i)
    if (st->X[3 * i] > 0.4 - 1e-9) {
      sum += st->x[3 * i + 1] - st->X[3 * i + 1];
      ++k;
    }
  return sum / k;
}

/* A cantilever pushed down at its tip, then released and left to settle: the elastic bar comes
 * back, the plastic one keeps a bend. Returns the final tip deflection (m, negative = down). */
static double bend_and_release(int plastic) {
  cl_mesh *mesh = grid(8, 2, 2, 0.4, 0.05, 0.05);
  cl_world *w = make_world(0.01, 0.0);
  cl_body_def bd;
  cl_body_def_default(&bd);
  cl_material_def mat = bd.material;
  mat.young = 1e5;
  if (plastic) {
    mat.plastic_yield = 0.002;
    mat.plastic_flow = 100.0;
    mat.plastic_max = 0.5;
  }
  const cl_param p[] = {{"damping", 6.0, NULL}}; /* about critical for the first bending mode (3.2 rad/s) */
  cl_id b, push;
  assert_int_equal(add_body(w, mesh, plastic ? "plastic" : "elastic", &mat, p, 1, &b), CL_OK);
  fix_slab(w, b, 0, -1.0, 0.0);
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_SLAB);
  r.axis = 0;
  r.lo[0] = 0.4;
  r.hi[0] = 1.0;
  const double force[3] = {0.0, -0.6, 0.0};
  assert_int_equal(cl_world_apply_force(w, b, &r, force, &push), CL_OK);
  assert_int_equal(cl_world_step(w, 100), CL_OK);
  double loaded = tip_deflection(cl_world_body_state(w, b));
  assert_int_equal(cl_world_remove_condition(w, push), CL_OK);
  assert_int_equal(cl_world_step(w, 400), CL_OK);
  double tip = tip_deflection(cl_world_body_state(w, b));
  print_message("%s bar: tip deflection %.4g m under load, %.4g m after release\n", plastic ? "plastic" : "elastic",
                loaded, tip);
  assert_true(loaded < -0.01);
  cl_world_destroy(w);
  cl_mesh_destroy(mesh);
  return tip;
}

static void test_plastic_bend_stays(void **state) {
  (void)state;
  double elastic = bend_and_release(0), plastic = bend_and_release(1);
  assert_true(fabs(elastic) < 1e-4);
  assert_true(plastic < -0.01);
}

/* ---- inversion ------------------------------------------------------------------------------ */

/* A cube with a corner node pushed through the body (several elements inverted) recovers its shape
 * with no NaN and no energy blow-up. */
static void test_inverted_elements_recover(void **state) {
  (void)state;
  cl_mesh *mesh = grid(2, 2, 2, 0.1, 0.1, 0.1);
  cl_world *w = make_world(1e-3, 0.0);
  const cl_param p[] = {{"damping", 30.0, NULL}};
  cl_id b;
  assert_int_equal(add_body(w, mesh, "crushed", NULL, p, 1, &b), CL_OK);
  cl_body_state *st = cl_world_body_state(w, b);
  cl_corot *s = solver_of(w, b);
  /* the corner (0.1, 0.1, 0.1) to (0.02, 0.02, 0.02), beyond the centre: its tets invert */
  int32_t corner = st->n - 1;
  for (int k = 0; k < 3; ++k) st->x[3 * corner + k] = 0.02;
  int32_t inverted = 0;
  for (int32_t e = 0; e < st->ncells; ++e) {
    cl_mat3 F, R, ee;
    assert_int_equal(cl_corot_element_strain(s, st, e, &F, &R, &ee), CL_OK);
    inverted += cl_mat3_det(&F) < 0.0;
  }
  assert_true(inverted >= 1);
  double e0;
  assert_int_equal(cl_corotational_solver_ops.elastic_energy(s, st, &e0), CL_OK);
  assert_int_equal(cl_world_step(w, 600), CL_OK);
  st = cl_world_body_state(w, b);
  int32_t still = 0;
  for (int32_t e = 0; e < st->ncells; ++e) {
    cl_mat3 F, R, ee;
    assert_int_equal(cl_corot_element_strain(s, st, e, &F, &R, &ee), CL_OK);
    still += cl_mat3_det(&F) <= 0.0;
  }
  double e1;
  assert_int_equal(cl_corotational_solver_ops.elastic_energy(s, st, &e1), CL_OK);
  print_message("inversion: %d elements inverted, %d after 600 steps; energy %.3g J -> %.3g J\n", inverted, still, e0,
                e1);
  assert_int_equal(still, 0);
  assert_true(e1 < 1e-3 * e0);
  cl_world_destroy(w);
  cl_mesh_destroy(mesh);
}

/* ---- bad input ------------------------------------------------------------------------------ */

/* A mesh built without the public validation (inverted or flat tets cannot pass cl_mesh_from_arrays). */
static cl_mesh *raw_mesh(const double *xyz, int32_t np, const int32_t *cells, int32_t nc) {
  cl_mesh *m = NULL;
  assert_int_equal(cl_mesh_alloc(CL_MESH_TETS, np, nc, &m), CL_OK);
  memcpy(m->x, xyz, sizeof(double) * 3 * (size_t)np);
  memcpy(m->cells, cells, sizeof(int32_t) * 4 * (size_t)nc);
  return m;
}

static void test_inverted_and_degenerate_rest_tets(void **state) {
  (void)state;
  const double xyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0};
  const int32_t inverted[] = {0, 1, 2, 3, 0, 2, 1, 3}; /* the second is the first with two corners swapped */
  const int32_t flat[] = {0, 1, 2, 3, 0, 1, 4, 2};     /* four coplanar points: zero volume */
  cl_world *w = make_world(0.01, -9.81);
  cl_id b = 7;
  cl_mesh *m = raw_mesh(xyz, 5, inverted, 2);
  /* node 4 is unused in this mesh: drop it so the orientation check is what fails */
  m->npoints = 4;
  assert_int_equal(add_body(w, m, "upside", NULL, NULL, 0, &b), CL_ERR_MESH);
  print_message("inverted: %s\n", cl_last_error());
  assert_non_null(strstr(cl_last_error(), "upside"));
  assert_non_null(strstr(cl_last_error(), "tet 1"));
  assert_non_null(strstr(cl_last_error(), "inverted"));
  assert_int_equal(b, 0);
  cl_mesh_destroy(m);
  m = raw_mesh(xyz, 5, flat, 2);
  assert_int_equal(add_body(w, m, "flat", NULL, NULL, 0, &b), CL_ERR_MESH);
  print_message("degenerate: %s\n", cl_last_error());
  assert_non_null(strstr(cl_last_error(), "tet 1"));
  assert_non_null(strstr(cl_last_error(), "degenerate"));
  cl_mesh_destroy(m);
  /* the world is still usable */
  cl_mesh *g = grid(1, 1, 1, 0.1, 0.1, 0.1);
  assert_int_equal(add_body(w, g, "fine", NULL, NULL, 0, &b), CL_OK);
  assert_int_equal(cl_world_step(w, 2), CL_OK);
  cl_mesh_destroy(g);
  cl_world_destroy(w);
}

static void test_isolated_nodes(void **state) {
  (void)state;
  const double xyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 5, 5, 5};
  const int32_t cells[] = {0, 1, 2, 3};
  cl_mesh *m = NULL;
  assert_int_equal(cl_mesh_from_arrays(CL_MESH_TETS, xyz, 5, cells, 1, &m), CL_OK);
  cl_world *w = make_world(0.01, -9.81);
  cl_id b;
  assert_int_equal(add_body(w, m, "lonely", NULL, NULL, 0, &b), CL_ERR_MESH);
  print_message("isolated: %s\n", cl_last_error());
  assert_non_null(strstr(cl_last_error(), "node 4"));
  assert_non_null(strstr(cl_last_error(), "lonely"));
  cl_mesh_destroy(m);
  /* points or surfaces are not meshes this solver can use */
  assert_int_equal(cl_mesh_from_arrays(CL_MESH_POINTS, xyz, 5, NULL, 0, &m), CL_OK);
  assert_int_equal(add_body(w, m, "dust", NULL, NULL, 0, &b), CL_ERR_MESH);
  assert_non_null(strstr(cl_last_error(), "tetrahedral"));
  cl_mesh_destroy(m);
  cl_world_destroy(w);
}

static void test_nan_stops_with_clear_error(void **state) {
  (void)state;
  cl_mesh *mesh = grid(2, 2, 2, 0.1, 0.1, 0.1);
  cl_world *w = make_world(0.01, -9.81);
  cl_id b;
  assert_int_equal(add_body(w, mesh, "nanbody", NULL, NULL, 0, &b), CL_OK);
  assert_int_equal(cl_world_step(w, 2), CL_OK);
  cl_body_state *st = cl_world_body_state(w, b);
  st->x[3 * 5 + 1] = NAN;
  assert_int_equal(cl_world_step(w, 1), CL_ERR_NUMERICAL);
  const char *msg = cl_last_error();
  print_message("NaN: %s\n", msg);
  assert_non_null(strstr(msg, "nanbody"));
  assert_non_null(strstr(msg, "step 3"));
  assert_non_null(strstr(msg, "non-finite"));
  assert_int_equal(cl_world_step(w, 1), CL_ERR_STATE);
  /* NaN in a velocity is caught by the linear solve */
  cl_world_destroy(w);
  w = make_world(0.01, -9.81);
  assert_int_equal(add_body(w, mesh, "nanvel", NULL, NULL, 0, &b), CL_OK);
  st = cl_world_body_state(w, b);
  st->v[4] = INFINITY;
  assert_int_equal(cl_world_step(w, 1), CL_ERR_NUMERICAL);
  print_message("Inf velocity: %s\n", cl_last_error());
  assert_non_null(strstr(cl_last_error(), "nanvel"));
  assert_non_null(strstr(cl_last_error(), "step 1"));
  cl_world_destroy(w);
  cl_mesh_destroy(mesh);
}

static void test_cg_not_converged_warns(void **state) {
  (void)state;
  cl_mesh *mesh = grid(6, 2, 2, 0.6, 0.1, 0.1);
  cl_world *w = make_world(1.0 / 60.0, -9.81);
  const cl_param p[] = {{"max_iterations", 2, NULL}, {"tolerance", 1e-12, NULL}};
  cl_id b;
  assert_int_equal(add_body(w, mesh, "stubborn", NULL, p, 2, &b), CL_OK);
  fix_slab(w, b, 0, -1.0, 0.0);
  assert_int_equal(cl_world_step(w, 2), CL_WARN_NOT_CONVERGED);
  print_message("not converged: %s\n", cl_last_error());
  assert_non_null(strstr(cl_last_error(), "stubborn"));
  assert_non_null(strstr(cl_last_error(), "did not converge"));
  cl_world_stats stats;
  assert_int_equal(cl_world_get_stats(w, &stats), CL_OK);
  assert_int_equal(stats.iterations, 2);
  assert_true(stats.residual > 1e-12);
  /* the world goes on */
  assert_int_equal(cl_world_step(w, 1), CL_WARN_NOT_CONVERGED);
  cl_body_state *st = cl_world_body_state(w, b);
  for (int32_t i = 0; i < 3 * st->n; ++i) assert_true(isfinite(st->x[i]));
  /* bad parameter values are refused by name */
  cl_id b2;
  const cl_param bad[] = {{"rotation", 2, NULL}};
  assert_int_equal(add_body(w, mesh, "badparam", NULL, bad, 1, &b2), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "rotation"));
  cl_world_destroy(w);
  cl_mesh_destroy(mesh);
}

/* ---- linear solvers and islands ----------------------------------------------------------- */

/* A 0.5 m bar (E 1e5) hanging under gravity from its x = 0 end, with the three solver parameters p
 * (the mesh is freed with the world by the caller). */
static cl_world *hanging_bar(const cl_param p[3], cl_mesh **mesh, cl_id *b) {
  *mesh = grid(10, 3, 3, 0.5, 0.1, 0.1);
  cl_world *w = make_world(1.0 / 60.0, -9.81);
  cl_body_def bd;
  cl_body_def_default(&bd);
  cl_material_def mat = bd.material;
  mat.young = 1e5;
  assert_int_equal(add_body(w, *mesh, "bar", &mat, p, 3, b), CL_OK);
  fix_slab(w, *b, 0, -1.0, 0.0);
  return w;
}

static void run_hanging_bar(int solver, int refactor, double *tip, cl_corot_timing *tm) {
  const cl_param p[] = {{"linear_solver", solver, NULL}, {"refactor_iterations", refactor, NULL}, {"tolerance", 1e-10, NULL}};
  cl_mesh *mesh;
  cl_id b;
  cl_world *w = hanging_bar(p, &mesh, &b);
  assert_int_equal(cl_world_step(w, 20), CL_OK);
  cl_body_state *st = cl_world_body_state(w, b);
  *tip = st->x[3 * 10 + 1];
  cl_corot_get_timing(solver_of(w, b), tm);
  cl_world_destroy(w);
  cl_mesh_destroy(mesh);
}

static void test_cholmod_matches_pcg(void **state) {
  (void)state;
  double y_pcg, y_direct, y_reuse;
  cl_corot_timing t_pcg, t_direct, t_reuse;
  run_hanging_bar(CL_COROT_SOLVER_PCG, 0, &y_pcg, &t_pcg);
  run_hanging_bar(CL_COROT_SOLVER_CHOLMOD, 0, &y_direct, &t_direct);
  run_hanging_bar(CL_COROT_SOLVER_CHOLMOD, 1000, &y_reuse, &t_reuse);
  print_message("tip y: PCG %.12g, CHOLMOD direct %.12g (%lld factorisations), reused %.12g (%lld factorisations, "
                "%lld analyses)\n", y_pcg, y_direct, (long long)t_direct.total_factorizations, y_reuse,
                (long long)t_reuse.total_factorizations, (long long)t_reuse.total_analyses);
  assert_true(fabs(y_pcg - y_direct) < 1e-8);
  assert_true(fabs(y_pcg - y_reuse) < 1e-8);
  assert_int_equal(t_pcg.total_factorizations, 0);
  assert_int_equal(t_direct.total_factorizations, 20);
  assert_int_equal(t_direct.total_analyses, 1);
  /* factors are reused across steps (the rent-or-buy rule decides how long), analysed once */
  assert_true(t_reuse.total_factorizations >= 1 && t_reuse.total_factorizations < 20);
  assert_int_equal(t_reuse.total_analyses, 1);
  /* the policy counts flops, not time: a second run is bitwise the same */
  double y_again;
  cl_corot_timing t_again;
  run_hanging_bar(CL_COROT_SOLVER_CHOLMOD, 1000, &y_again, &t_again);
  assert_true(y_again == y_reuse);
  assert_int_equal(t_again.total_factorizations, t_reuse.total_factorizations);
}

/* linear_solver = "galerkin_mg": CG preconditioned by one V-cycle of the Galerkin multigrid, built per
 * island from the rest positions of its nodes. The hanging bar reaches the same state as block-Jacobi
 * PCG and CHOLMOD (all to 1e-10) in far fewer CG iterations, with one analysis and a set-up per step. */
static void run_bar_grid(int solver, const char *spec, int refactor, double *tip, long *iterations,
                         cl_corot_timing *tm) {
  const cl_param p[] = {{"linear_solver", solver, NULL}, {"tolerance", 1e-10, NULL}, {"grid", 0.0, spec},
                        {"refactor_iterations", refactor, NULL}};
  cl_mesh *mesh = grid(10, 3, 3, 0.5, 0.1, 0.1);
  cl_world *w = make_world(1.0 / 60.0, -9.81);
  cl_body_def bd;
  cl_body_def_default(&bd);
  cl_material_def mat = bd.material;
  mat.young = 1e5;
  cl_id b;
  assert_int_equal(add_body(w, mesh, "bar", &mat, p, 4, &b), CL_OK);
  fix_slab(w, b, 0, -1.0, 0.0);
  *iterations = 0;
  for (int k = 0; k < 20; ++k) {
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    cl_world_stats stats;
    assert_int_equal(cl_world_get_stats(w, &stats), CL_OK);
    *iterations += stats.iterations;
  }
  *tip = cl_world_body_state(w, b)->x[3 * 10 + 1];
  cl_corot_get_timing(solver_of(w, b), tm);
  if (solver == CL_COROT_SOLVER_GALERKIN_MG) {
    const cl_corot *s = solver_of(w, b);
    assert_int_equal(s->nislands, 1);
    assert_non_null(cl_linear_solver_multigrid(s->islands[0].ls));
  }
  cl_world_destroy(w);
  cl_mesh_destroy(mesh);
}

static void test_galerkin_mg_matches_pcg_and_cholmod(void **state) {
  (void)state;
  double y_pcg, y_chol, y_mg, y_mg2, y_fresh, y_again;
  long it_pcg, it_chol, it_mg, it_mg2, it_fresh, it_again;
  cl_corot_timing t_pcg, t_chol, t_mg, t_mg2, t_fresh, t_again;
  run_bar_grid(CL_COROT_SOLVER_PCG, "50/all", 30, &y_pcg, &it_pcg, &t_pcg);
  run_bar_grid(CL_COROT_SOLVER_CHOLMOD, "50/all", 30, &y_chol, &it_chol, &t_chol);
  run_bar_grid(CL_COROT_SOLVER_GALERKIN_MG, "50/all", 30, &y_mg, &it_mg, &t_mg);
  run_bar_grid(CL_COROT_SOLVER_GALERKIN_MG, "10/40/all", 30, &y_mg2, &it_mg2, &t_mg2);
  run_bar_grid(CL_COROT_SOLVER_GALERKIN_MG, "50/all", 0, &y_fresh, &it_fresh, &t_fresh);
  print_message("tip y after 20 steps: PCG %.12g (%ld CG iterations), CHOLMOD %.12g (%ld), galerkin_mg 50/all %.12g "
                "(%ld; %lld full set-ups, %lld analyses), with a full set-up every step %.12g (%ld; %lld), 10/40/all "
                "%.12g (%ld)\n", y_pcg, it_pcg, y_chol, it_chol, y_mg, it_mg, (long long)t_mg.total_factorizations,
                (long long)t_mg.total_analyses, y_fresh, it_fresh, (long long)t_fresh.total_factorizations, y_mg2,
                it_mg2);
  assert_true(fabs(y_mg - y_pcg) < 1e-8);
  assert_true(fabs(y_mg - y_chol) < 1e-8);
  assert_true(fabs(y_fresh - y_pcg) < 1e-8);
  assert_true(fabs(y_mg2 - y_pcg) < 1e-8);
  assert_true(4 * it_mg < it_pcg);
  assert_true(4 * it_fresh < it_pcg);
  assert_true(4 * it_mg2 < it_pcg);
  assert_int_equal(t_mg.total_analyses, 1); /* the hierarchy once per island pattern */
  /* refactor_iterations = 0: the Galerkin products and the coarse factor every step; otherwise the coarse
   * levels are kept while the extra iterations cost less (rent or buy) */
  assert_int_equal(t_fresh.total_factorizations, 20);
  assert_true(t_mg.total_factorizations >= 1 && t_mg.total_factorizations < 20);
  /* the rule counts flops and iterations, not time: a second run is bitwise the same */
  run_bar_grid(CL_COROT_SOLVER_GALERKIN_MG, "50/all", 30, &y_again, &it_again, &t_again);
  assert_true(y_again == y_mg);
  assert_int_equal(it_again, it_mg);
  assert_int_equal(t_again.total_factorizations, t_mg.total_factorizations);
}

/* The multigrid's grid spec is checked at bind, by the name 'grid': one that does not parse, has its
 * levels out of order, or asks for more vertices than the body has nodes (176 here). */
static void test_galerkin_mg_bad_grid(void **state) {
  (void)state;
  cl_mesh *mesh = grid(10, 3, 3, 0.5, 0.1, 0.1);
  cl_world *w = make_world(1.0 / 60.0, -9.81);
  static const char *const bad[] = {"50/al", "all", "40/10/all", "1000/all", ""};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    const cl_param p[] = {{"linear_solver", CL_COROT_SOLVER_GALERKIN_MG, NULL}, {"grid", 0.0, bad[k]}};
    cl_id b;
    assert_int_equal(add_body(w, mesh, "badgrid", NULL, p, 2, &b), CL_ERR_INVALID_ARGUMENT);
    print_message("grid \"%s\": %s\n", bad[k], cl_last_error());
    assert_non_null(strstr(cl_last_error(), "'grid'"));
    assert_non_null(strstr(cl_last_error(), "corotational"));
  }
  /* the size check is the multigrid's: block-Jacobi PCG takes any parsable spec */
  const cl_param ok[] = {{"linear_solver", CL_COROT_SOLVER_PCG, NULL}, {"grid", 0.0, "1000/all"}};
  cl_id b;
  assert_int_equal(add_body(w, mesh, "pcg", NULL, ok, 2, &b), CL_OK);
  cl_world_destroy(w);
  cl_mesh_destroy(mesh);
}

/* warm_start = 1 starts CG from the linear extrapolation of the last two velocity changes. On a
 * smoothly sagging bar it reaches the same state (the tolerance is tight) in fewer PCG iterations
 * than starting from the last velocity change alone. */
static void run_warm_start(int extrapolate, double *tip, long *iterations) {
  const cl_param p[] = {{"linear_solver", CL_COROT_SOLVER_PCG, NULL}, {"tolerance", 1e-10, NULL}, {"warm_start", extrapolate, NULL}};
  cl_mesh *mesh;
  cl_id b;
  cl_world *w = hanging_bar(p, &mesh, &b);
  *iterations = 0;
  for (int k = 0; k < 30; ++k) {
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    cl_world_stats stats;
    assert_int_equal(cl_world_get_stats(w, &stats), CL_OK);
    *iterations += stats.iterations;
  }
  *tip = cl_world_body_state(w, b)->x[3 * 10 + 1];
  cl_world_destroy(w);
  cl_mesh_destroy(mesh);
}

static void test_warm_start_extrapolation(void **state) {
  (void)state;
  double tip_plain, tip_extra;
  long it_plain, it_extra;
  run_warm_start(0, &tip_plain, &it_plain);
  run_warm_start(1, &tip_extra, &it_extra);
  print_message("PCG iterations over 30 steps: last solution %ld, extrapolated %ld\n", it_plain, it_extra);
  assert_true(fabs(tip_plain - tip_extra) < 1e-8);
  assert_true(it_extra < it_plain);
}

/* Two separate cubes in one mesh are two islands; each keeps its own momentum. */
static void test_two_islands(void **state) {
  (void)state;
  cl_mesh *a = grid(2, 2, 2, 0.1, 0.1, 0.1);
  int32_t np = a->npoints, nc = a->ncells;
  double *xyz = malloc(sizeof(double) * 6 * (size_t)np);
  int32_t *cells = malloc(sizeof(int32_t) * 8 * (size_t)nc);
  for (int32_t i = 0; i < np; ++i)
    for (int k = 0; k < 3; ++k) {
      xyz[3 * i + k] = a->x[3 * i + k];
      xyz[3 * (np + i) + k] = a->x[3 * i + k] + (k == 0 ? 0.5 : 0.0);
    }
  for (int32_t j = 0; j < 4 * nc; ++j) {
    cells[j] = a->cells[j];
    cells[4 * nc + j] = a->cells[j] + np;
  }
  cl_mesh *m = NULL;
  assert_int_equal(cl_mesh_from_arrays(CL_MESH_TETS, xyz, 2 * np, cells, 2 * nc, &m), CL_OK);
  cl_world *w = make_world(1e-3, 0.0);
  cl_id b;
  assert_int_equal(add_body(w, m, "pair", NULL, NULL, 0, &b), CL_OK);
  cl_corot *s = solver_of(w, b);
  assert_int_equal(s->nislands, 2);
  cl_body_state *st = cl_world_body_state(w, b);
  for (int32_t i = 0; i < np; ++i) st->v[3 * i] = 1.0 + st->X[3 * i + 1]; /* the first moves and shears */
  assert_int_equal(cl_world_step(w, 50), CL_OK);
  st = cl_world_body_state(w, b);
  double p1 = 0.0, p2 = 0.0, m1 = 0.0;
  for (int32_t i = 0; i < np; ++i) {
    p1 += st->m[i] * st->v[3 * i];
    p2 += st->m[np + i] * st->v[3 * (np + i)];
    m1 += st->m[i];
  }
  assert_true(fabs(p1 - m1 * 1.05) < 1e-12 * m1);
  assert_true(fabs(p2) < 1e-15);
  for (int32_t i = np; i < 2 * np; ++i) assert_true(st->x[3 * i] == st->X[3 * i]);
  cl_world_destroy(w);
  cl_mesh_destroy(m);
  cl_mesh_destroy(a);
  free(xyz);
  free(cells);
}

/* A cube dropped on the ground: contact enters the implicit solve as constraints (step.c), so it
 * comes to rest on the plane with no node below it and its shape kept, instead of a layer of nodes
 * being flattened after each step. */
static void test_contact_with_ground(void **state) {
  (void)state;
  const double lo[3] = {-0.05, 0.02, -0.05}, hi[3] = {0.05, 0.12, 0.05};
  cl_mesh *m = NULL;
  assert_int_equal(cl_tet_grid(3, 3, 3, lo, hi, &m), CL_OK);
  cl_world *w = make_world(1.0 / 60.0, -9.81);
  cl_body_def bd;
  cl_body_def_default(&bd);
  cl_material_def mat = bd.material;
  mat.young = 1e5;
  const cl_param p[] = {{"damping", 5.0, NULL}};
  cl_id b, c;
  assert_int_equal(add_body(w, m, "dropped", &mat, p, 1, &b), CL_OK);
  cl_collider_def cd;
  cl_collider_def_default(&cd, CL_COLLIDER_PLANE);
  cd.friction = 0.5;
  assert_int_equal(cl_world_add_collider(w, &cd, &c), CL_OK);
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_VOLUME);
  pd.body = b;
  cl_id vol;
  assert_int_equal(cl_world_add_probe(w, &pd, &vol), CL_OK);
  double v0;
  assert_int_equal(cl_probe_read(w, vol, &v0, 1), CL_OK);
  assert_int_equal(cl_world_step(w, 120), CL_OK);
  cl_body_state *st = cl_world_body_state(w, b);
  double ymin = 1.0, ymax = -1.0, vmax = 0.0;
  for (int32_t i = 0; i < st->n; ++i) {
    ymin = fmin(ymin, st->x[3 * i + 1]);
    ymax = fmax(ymax, st->x[3 * i + 1]);
    for (int k = 0; k < 3; ++k) vmax = fmax(vmax, fabs(st->v[3 * i + k]));
  }
  double v1;
  assert_int_equal(cl_probe_read(w, vol, &v1, 1), CL_OK);
  print_message("dropped cube: y in [%.3g, %.4g] m, max speed %.2g m/s, volume %.4g -> %.4g m^3\n", ymin, ymax, vmax,
                v0, v1);
  assert_true(ymin >= -1e-12);          /* nothing below the ground */
  assert_true(ymin < 1e-6);             /* and it reached it */
  assert_true(ymax > 0.09);             /* standing, not flattened (0.1 m tall, sagging a little) */
  assert_true(fabs(v1 - v0) < 0.05 * v0);
  assert_true(vmax < 5e-3);             /* at rest, to the jitter of nodes entering and leaving contact */
  cl_world_destroy(w);
  cl_mesh_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_patch_uniform_stretch),
      cmocka_unit_test(test_rotation_90_polar),
      cmocka_unit_test(test_rotation_90_gram_schmidt),
      cmocka_unit_test(test_fixed_nodes_exactly_at_rest),
      cmocka_unit_test(test_all_nodes_fixed),
      cmocka_unit_test(test_plastic_bend_stays),
      cmocka_unit_test(test_inverted_elements_recover),
      cmocka_unit_test(test_inverted_and_degenerate_rest_tets),
      cmocka_unit_test(test_isolated_nodes),
      cmocka_unit_test(test_nan_stops_with_clear_error),
      cmocka_unit_test(test_cg_not_converged_warns),
      cmocka_unit_test(test_cholmod_matches_pcg),
      cmocka_unit_test(test_galerkin_mg_matches_pcg_and_cholmod),
      cmocka_unit_test(test_galerkin_mg_bad_grid),
      cmocka_unit_test(test_warm_start_extrapolation),
      cmocka_unit_test(test_two_islands),
      cmocka_unit_test(test_contact_with_ground),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
