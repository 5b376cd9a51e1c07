/* The solver conformance suite (DESIGN.md, "Interchangeable solvers"): the same checks run over
 * every registered solver (the built-in ones plus the test double), so a new solver that breaks the
 * contract fails here before it reaches a script.
 *
 *  - zero elastic force under rigid motion: a rigidly translated and rotated copy of the rest shape,
 *    at rest, stays at rest after a step (velocities below 1e-8 of those a 1 % stretch produces),
 *    stores no energy, and measures F = R in every unit;
 *  - momentum in free flight: with no gravity, linear and angular momentum (about the origin) are
 *    conserved to 1e-12 relative over 200 steps of a spinning, deforming body;
 *  - equilibrium under gravity with a fixed region: after settling (with the solver's "damping"
 *    parameter, if it has one), the reaction of the fixed region equals the weight to 1e-6;
 *  - the mass of a tet-mesh body is density x volume;
 *  - stepping still works after fracture (solvers with a topology operation);
 *  - no leak after destroy, also after a failed bind (AddressSanitizer checks this in CI).
 * Convention: explicit solvers that need damping to settle expose a parameter named "damping". */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cleave/world.h"
#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "support/double_solver.h"
#include "world/world.h"

static const double k_lo[3] = {-0.05, -0.05, -0.05};
static const double k_hi[3] = {0.05, 0.05, 0.05};
static const double k_young = 1e5, k_density = 1000.0, k_dt = 1e-3;

static cl_world *make_world_dt(double gy, double dt) {
  cl_world_def def;
  cl_world_def_default(&def);
  def.dt = dt;
  def.gravity[1] = gy;
  cl_world *w = NULL;
  assert_int_equal(cl_world_create(&def, &w), CL_OK);
  return w;
}

static cl_world *make_world(double gy) { return make_world_dt(gy, k_dt); }

static cl_id add_box(cl_world *w, const cl_solver_ops *ops, double damping) {
  cl_param p = {"damping", damping, NULL};
  int has = damping > 0.0 && cl_param_index(ops->params, ops->param_count, "damping") >= 0;
  cl_id b = 0;
  cl_status s = cl_double_add_box(w, ops->name, "conformance", 2, 2, 2, k_lo, k_hi, k_young, k_density,
                                  has ? &p : NULL, has ? 1 : 0, &b);
  if (s != CL_OK) print_error("solver '%s': %s\n", ops->name, cl_last_error());
  assert_int_equal(s, CL_OK);
  return b;
}

static double max_speed(const cl_body_state *s) {
  double m = 0.0;
  for (int32_t i = 0; i < s->n; ++i)
    m = fmax(m, sqrt(s->v[3 * i] * s->v[3 * i] + s->v[3 * i + 1] * s->v[3 * i + 1] + s->v[3 * i + 2] * s->v[3 * i + 2]));
  return m;
}

static double norm3(const double *v) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static int setup(void **state) {
  (void)state;
  return cl_double_register() == CL_OK ? 0 : -1;
}

static void test_solvers_are_listed(void **state) {
  (void)state;
  assert_true(cl_solver_count() >= 1);
  assert_int_equal(cl_solver_count(), cl_registry_count(CL_REGISTRY_SOLVER));
  for (int32_t i = 0; i < cl_solver_count(); ++i) {
    const cl_solver_ops *ops = cl_solver_at(i);
    print_message("conformance: solver '%s' (%s)\n", ops->name, ops->help ? ops->help : "");
    const cl_solver_ops *found;
    assert_int_equal(cl_solver_find(ops->name, &found), CL_OK);
    assert_ptr_equal(found, ops);
    /* every parameter's default lies in its own range */
    for (int32_t k = 0; k < ops->param_count; ++k) {
      const cl_param_info *p = &ops->params[k];
      assert_true(p->min <= p->value && p->value <= p->max);
      assert_non_null(p->unit);
      assert_non_null(p->help);
    }
  }
}

static void test_rigid_motion_has_no_elastic_force(void **state) {
  (void)state;
  /* R: 0.7 rad about (1, 2, 3)/|.|, t = (0.3, -1, 2) */
  double a[3] = {1.0, 2.0, 3.0}, th = 0.7, n = norm3(a);
  for (int k = 0; k < 3; ++k) a[k] /= n;
  double c = cos(th), s = sin(th), R[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) R[3 * i + j] = (i == j ? c : 0.0) + (1.0 - c) * a[i] * a[j];
  R[1] -= s * a[2], R[2] += s * a[1], R[3] += s * a[2], R[5] -= s * a[0], R[6] -= s * a[1], R[7] += s * a[0];
  const double t[3] = {0.3, -1.0, 2.0};

  for (int32_t i = 0; i < cl_solver_count(); ++i) {
    const cl_solver_ops *ops = cl_solver_at(i);
    /* reference: a 1 % stretch along x, released from rest */
    cl_world *w = make_world(0.0);
    cl_id b = add_box(w, ops, 0.0);
    cl_body_state *st = cl_world_body_state(w, b);
    for (int32_t j = 0; j < st->n; ++j) st->x[3 * j] = 1.01 * st->X[3 * j];
    cl_probe_def pd;
    cl_probe_def_default(&pd, CL_PROBE_ELASTIC_ENERGY);
    pd.body = b;
    cl_id energy;
    assert_int_equal(cl_world_add_probe(w, &pd, &energy), CL_OK);
    double e_ref, e_rigid;
    assert_int_equal(cl_probe_read(w, energy, &e_ref, 1), CL_OK);
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    double v_ref = max_speed(cl_world_body_state(w, b));
    assert_true(v_ref > 0.0 && e_ref > 0.0);
    cl_world_destroy(w);

    w = make_world(0.0);
    b = add_box(w, ops, 0.0);
    st = cl_world_body_state(w, b);
    for (int32_t j = 0; j < st->n; ++j)
      for (int k = 0; k < 3; ++k)
        st->x[3 * j + k] = t[k] + R[3 * k] * st->X[3 * j] + R[3 * k + 1] * st->X[3 * j + 1] + R[3 * k + 2] * st->X[3 * j + 2];
    pd.body = b;
    assert_int_equal(cl_world_add_probe(w, &pd, &energy), CL_OK);
    assert_int_equal(cl_probe_read(w, energy, &e_rigid, 1), CL_OK);
    cl_body_info info;
    assert_int_equal(cl_body_get_info(w, b, &info), CL_OK);
    static double F[9 * 4096];
    assert_true(info.units <= 4096);
    assert_int_equal(cl_body_copy_unit_field(w, b, CL_UNIT_DEFORMATION_GRADIENT, F, 9 * 4096), CL_OK);
    for (int32_t u = 0; u < info.units; ++u)
      for (int k = 0; k < 9; ++k)
        if (fabs(F[9 * u + k] - R[k]) > 1e-12) {
          print_error("solver '%s': unit %d F[%d] = %.17g, rotation %.17g\n", ops->name, u, k, F[9 * u + k], R[k]);
          fail();
        }
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    double v_rigid = max_speed(cl_world_body_state(w, b));
    print_message("conformance: solver '%s': rigid motion speed/stretch speed %.2g, energy/stretch energy %.2g\n",
                  ops->name, v_rigid / v_ref, e_rigid / e_ref);
    if (!(v_rigid <= 1e-8 * v_ref) || !(e_rigid <= 1e-12 * e_ref)) {
      print_error("solver '%s': rigid motion gives speed %g m/s (stretch: %g), energy %g J (stretch: %g)\n", ops->name,
                  v_rigid, v_ref, e_rigid, e_ref);
      fail();
    }
    cl_world_destroy(w);
  }
}

/* Free flight of the box from a translating, spinning and deforming velocity field for `steps` steps
 * of dt: relative drift of linear (*dp) and angular (*dl) momentum, and the elastic energy at the end
 * (> 0: the body did deform, so conservation was tested with forces at work). */
static void free_flight(const cl_solver_ops *ops, double dt, int32_t steps, double *dp_rel, double *dl_rel,
                        double *energy_end) {
  cl_world *w = make_world_dt(0.0, dt);
  cl_id b = add_box(w, ops, 0.0);
  cl_body_state *st = cl_world_body_state(w, b);
  const double vt[3] = {0.3, -0.2, 0.1}, om[3] = {1.0, 2.0, -0.5};
  for (int32_t j = 0; j < st->n; ++j) {
    const double *x = st->x + 3 * j;
    double *v = st->v + 3 * j;
    v[0] = vt[0] + om[1] * x[2] - om[2] * x[1] + 2.0 * x[0] * x[1];
    v[1] = vt[1] + om[2] * x[0] - om[0] * x[2] - 3.0 * x[2];
    v[2] = vt[2] + om[0] * x[1] - om[1] * x[0] + 4.0 * x[0] * x[0];
  }
  double p0[3], l0[3], p1[3], l1[3];
  cl_double_momentum(st, p0, l0);
  assert_int_equal(cl_world_step(w, steps), CL_OK);
  st = cl_world_body_state(w, b);
  cl_double_momentum(st, p1, l1);
  double dp[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
  double dl[3] = {l1[0] - l0[0], l1[1] - l0[1], l1[2] - l0[2]};
  *dp_rel = norm3(dp) / norm3(p0);
  *dl_rel = norm3(dl) / norm3(l0);
  cl_probe_def pd;
  cl_probe_def_default(&pd, CL_PROBE_ELASTIC_ENERGY);
  pd.body = b;
  cl_id energy;
  assert_int_equal(cl_world_add_probe(w, &pd, &energy), CL_OK);
  assert_int_equal(cl_probe_read(w, energy, energy_end, 1), CL_OK);
  cl_world_destroy(w);
}

static void test_momentum_in_free_flight(void **state) {
  (void)state;
  int bad = 0;
  for (int32_t i = 0; i < cl_solver_count(); ++i) {
    const cl_solver_ops *ops = cl_solver_at(i);
    double dp, dl, e;
    free_flight(ops, k_dt, 200, &dp, &dl, &e);
    print_message("conformance: solver '%s': momentum drift |dP|/|P| = %.2g, |dL|/|L| = %.2g\n", ops->name, dp, dl);
    assert_true(e > 0.0); /* it deformed: conservation with no forces would prove nothing */
    /* Linear momentum stays exact for every solver. */
    if (!(dp <= 1e-12)) {
      print_error("solver '%s': linear momentum drift |dP|/|P| = %g over 200 steps\n", ops->name, dp);
      fail();
    }
    /* Angular momentum: a solver that declares it conserved (symplectic explicit solvers, shape
     * matching's projections) keeps it to rounding. Backward Euler with the stiffness linearised at
     * the start of the step (corotational, thesis eq 3.8; graph_fem, the paper's eq 3) does not and
     * says so in its capabilities: K v' exerts a small torque proportional to the stress (for the
     * full tangent of a rotation-invariant energy K (w x x) = -(w x f), so the linearisation is not
     * torque-free; the warped K0 of the corotational solver is, likely why its drift is 10x
     * smaller: 3e-4 against graph_fem's 3.4e-3 here over 200 steps; neither changes with a tighter
     * solver tolerance). It is not a clean O(dt) error here either: the box's stiff modes are
     * resolved by neither dt, so halving dt changes how fast they are damped (drift 4.7e-4 and 2.4e-3
     * at dt / 2). Bound: 1e-2 over the 200 steps. */
    const double l_tol = ops->caps.conserves_angular_momentum ? 1e-12 : 1e-2;
    if (!(dl <= l_tol)) {
      print_error("solver '%s': angular momentum drift |dL|/|L| = %g over 200 steps (bound %g)\n", ops->name, dl,
                  l_tol);
      bad = 1;
    }
  }
  if (bad) fail();
}

static void test_equilibrium_under_gravity(void **state) {
  (void)state;
  for (int32_t i = 0; i < cl_solver_count(); ++i) {
    const cl_solver_ops *ops = cl_solver_at(i);
    cl_world *w = make_world(-9.81);
    cl_id b = add_box(w, ops, 60.0);
    cl_region_def top;
    cl_region_def_default(&top, CL_REGION_SLAB);
    top.axis = 1;
    top.lo[0] = k_hi[1];
    cl_motion_def fixed;
    cl_motion_def_default(&fixed, CL_MOTION_FIXED);
    cl_id c, probe;
    assert_int_equal(cl_world_constrain(w, b, &top, &fixed, &c), CL_OK);
    cl_probe_def pd;
    cl_probe_def_default(&pd, CL_PROBE_REACTION);
    pd.condition = c;
    assert_int_equal(cl_world_add_probe(w, &pd, &probe), CL_OK);
    assert_int_equal(cl_world_step(w, 3000), CL_OK);
    double r[3];
    assert_int_equal(cl_probe_read(w, probe, r, 3), CL_OK);
    cl_body_info info;
    assert_int_equal(cl_body_get_info(w, b, &info), CL_OK);
    double weight = info.mass * 9.81;
    double err = sqrt(r[0] * r[0] + (r[1] - weight) * (r[1] - weight) + r[2] * r[2]) / weight;
    print_message("conformance: solver '%s': reaction (%.9g, %.9g, %.9g) N, weight %.9g N, relative error %.2g\n",
                  ops->name, r[0], r[1], r[2], weight, err);
    if (!(err <= 1e-6)) {
      print_error("solver '%s': reaction does not carry the weight\n", ops->name);
      fail();
    }
    cl_world_destroy(w);
  }
}

static void test_mass_of_tet_body(void **state) {
  (void)state;
  for (int32_t i = 0; i < cl_solver_count(); ++i) {
    const cl_solver_ops *ops = cl_solver_at(i);
    cl_world *w = make_world(-9.81);
    cl_id b = add_box(w, ops, 0.0);
    cl_body_info info;
    assert_int_equal(cl_body_get_info(w, b, &info), CL_OK);
    if (fabs(info.mass - k_density * 1e-3) > 1e-9 * k_density * 1e-3) {
      print_error("solver '%s': mass %.17g kg, density x volume is %.17g kg\n", ops->name, info.mass, k_density * 1e-3);
      fail();
    }
    cl_world_destroy(w);
  }
}

static void test_stepping_after_fracture(void **state) {
  (void)state;
  for (int32_t i = 0; i < cl_solver_count(); ++i) {
    const cl_solver_ops *ops = cl_solver_at(i);
    if (!ops->fracture) {
      print_message("conformance: solver '%s' has no topology operation: fracture check skipped\n", ops->name);
      continue;
    }
    cl_world *w = make_world(-9.81);
    cl_mesh *mesh;
    assert_int_equal(cl_tet_grid(2, 2, 2, k_lo, k_hi, &mesh), CL_OK);
    cl_body_def def;
    cl_body_def_default(&def);
    def.solver = ops->name;
    def.material.young = k_young;
    /* the test criterion whose events the solver applies, its own kind first: damage a node's edges
     * (graph_fem, which also splits units along a plane: tests/c/test_graph_fem.c), else split a unit */
    def.criterion = ops->caps.applies & CL_EVENT_BIT(CL_EVENT_DAMAGE_EDGE) ? "test_edge_recorder" : "test_recorder";
    cl_param raise[2] = {{"raise_unit", 0, NULL}, {"repeat", 1, NULL}};
    def.criterion_params = raise;
    def.criterion_param_count = 2;
    cl_id b, c;
    assert_int_equal(cl_world_add_body(w, &def, mesh, &b), CL_OK);
    cl_mesh_destroy(mesh);
    cl_region_def top;
    cl_region_def_default(&top, CL_REGION_SLAB);
    top.axis = 1;
    top.lo[0] = k_hi[1];
    cl_motion_def fixed;
    cl_motion_def_default(&fixed, CL_MOTION_FIXED);
    assert_int_equal(cl_world_constrain(w, b, &top, &fixed, &c), CL_OK);
    cl_body_info before, after;
    assert_int_equal(cl_body_get_info(w, b, &before), CL_OK);
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    cl_world_stats stats;
    assert_int_equal(cl_world_get_stats(w, &stats), CL_OK);
    assert_true(stats.fracture_events >= 1);
    assert_int_equal(cl_world_step(w, 100), CL_OK); /* events keep coming and must stay harmless */
    assert_int_equal(cl_body_get_info(w, b, &after), CL_OK);
    assert_true(after.nodes >= before.nodes);
    assert_true(after.pieces >= 2);
    assert_true(fabs(after.mass - before.mass) <= 1e-12 * before.mass);
    cl_body_state *st = cl_world_body_state(w, b);
    for (int32_t j = 0; j < 3 * st->n; ++j) assert_true(isfinite(st->x[j]) && isfinite(st->v[j]));
    static double F[9 * 4096];
    assert_true(after.units <= 4096);
    assert_int_equal(cl_body_copy_unit_field(w, b, CL_UNIT_STRESS, F, 9 * 4096), CL_OK);
    cl_world_destroy(w);
  }
}

static void test_no_leak_after_destroy(void **state) {
  (void)state;
  for (int32_t i = 0; i < cl_solver_count(); ++i) {
    const cl_solver_ops *ops = cl_solver_at(i);
    cl_world *w = make_world(-9.81);
    cl_id b = add_box(w, ops, 1.0), c, p, col;
    cl_region_def r;
    cl_region_def_default(&r, CL_REGION_SPHERE);
    r.center[0] = k_lo[0];
    r.radius = 0.02;
    cl_motion_def m;
    cl_motion_def_default(&m, CL_MOTION_TWIST);
    m.rate = 1.0;
    assert_int_equal(cl_world_constrain(w, b, &r, &m, &c), CL_OK);
    cl_probe_def pd;
    cl_probe_def_default(&pd, CL_PROBE_PIECES);
    pd.body = b;
    assert_int_equal(cl_world_add_probe(w, &pd, &p), CL_OK);
    cl_collider_def cd;
    cl_collider_def_default(&cd, CL_COLLIDER_PLANE);
    cd.center[1] = -0.2;
    assert_int_equal(cl_world_add_collider(w, &cd, &col), CL_OK);
    assert_int_equal(cl_world_step(w, 5), CL_OK);
    /* remove the body: its condition and probe go with it */
    assert_int_equal(cl_world_remove_body(w, b), CL_OK);
    int32_t n;
    assert_int_equal(cl_condition_node_count(w, c, &n), CL_ERR_STALE_ID);
    assert_int_equal(cl_probe_size(w, p, &n), CL_ERR_STALE_ID);
    /* an open triangle is not a body for any solver: bind fails and cleans up after itself */
    const double xyz[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const int32_t tri[3] = {0, 1, 2};
    cl_mesh *open;
    assert_int_equal(cl_mesh_from_arrays(CL_MESH_TRIANGLES, xyz, 3, tri, 1, &open), CL_OK);
    cl_body_def def;
    cl_body_def_default(&def);
    def.solver = ops->name;
    cl_id bad = 1;
    assert_true(cl_world_add_body(w, &def, open, &bad) < 0);
    assert_int_equal(bad, 0);
    cl_mesh_destroy(open);
    /* and a world destroyed with everything still in it */
    b = add_box(w, ops, 0.0);
    assert_int_equal(cl_world_step(w, 2), CL_OK);
    cl_world_destroy(w);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_solvers_are_listed),
      cmocka_unit_test(test_rigid_motion_has_no_elastic_force),
      cmocka_unit_test(test_momentum_in_free_flight),
      cmocka_unit_test(test_equilibrium_under_gravity),
      cmocka_unit_test(test_mass_of_tet_body),
      cmocka_unit_test(test_stepping_after_fracture),
      cmocka_unit_test(test_no_leak_after_destroy),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
