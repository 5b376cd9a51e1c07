/* graph_fem's contact seeds (parameter contact_seed; cl_fem_seed_contacts in src/fem/system.c,
 * docs/solvers/graph_fem.md, "Contact"): a step starts its contact active set from the last step's
 * live contacts instead of a contact-free solve, and the contact rounds judge the seeds as they judge
 * new contacts. What must hold:
 *   - with a converged solve the path is the one without seeds (the same conditions on the active
 *     set: a block dropped on a floor, landing, settling and launched off it again; frictionless to
 *     rounding, with friction within the rounds' friction tolerance);
 *   - in a resting contact a seeded step solves once, an unseeded one at least twice (the fixed-cycle
 *     multigrid, one V-cycle a solve: its V-cycles count the solves);
 *   - a seed that would pull is let go: a block launched upwards leaves the floor in that step;
 *   - contact_cycles sets the V-cycles of a contact round's re-solve, mg_cycles the first solve's;
 *   - bad values of contact_seed and contact_cycles are refused by name with their range. */
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
#include "geom/tet_grid.h"
#include "solvers/graph_fem/gfem.h"
#include "support/test_worlds.h"
#include "world/world.h"

enum { CONVERGED = 0, MG_FIXED = 1 };

/* The contact tests' block (support/test_worlds.h: a 0.1 m cube, 384 tets, `gap` above a floor of
 * friction mu) with graph_fem; solve = CONVERGED (pcg to 1e-12) or MG_FIXED (galerkin_mg "8/all",
 * mode fixed, `cycles` V-cycles, contact_cycles `again`). */
static cl_body *block_on_floor_mu(cl_world **w, double gap, int seed, int solve, int cycles, int again, double mu) {
  const cl_param conv[] = {{"contact_seed", seed, NULL}, {"linear_solver", 0, NULL}, {"tolerance", 1e-12, NULL},
                           {"max_iterations", 5000, NULL}};
  const cl_param mg[] = {{"contact_seed", seed, NULL}, {"linear_solver", 2, NULL}, {"grid", 0, "8/all"},
                         {"mg_mode", 1, NULL},         {"mg_cycles", cycles, NULL}, {"contact_cycles", again, NULL}};
  return solve == CONVERGED ? cl_test_block_on_floor(w, "graph_fem", gap, mu, conv, 4)
                            : cl_test_block_on_floor(w, "graph_fem", gap, mu, mg, 6);
}

static cl_body *block_on_floor(cl_world **w, double gap, int seed, int solve, int cycles, int again) {
  return block_on_floor_mu(w, gap, seed, solve, cycles, again, 0.0);
}

static int contacts(const cl_gfem *s) {
  int c = 0;
  for (int32_t l = 0; l < s->sys.n; ++l) c += s->sys.role[l] == CL_FEM_CONTACT && s->sys.contact[l] != 0;
  return c;
}

static double lowest(const cl_body *b) {
  double y = INFINITY;
  for (int32_t i = 0; i < b->state.n; ++i) y = fmin(y, b->state.x[3 * i + 1]);
  return y;
}

/* The floor's push on the body this step, N (the y impulses of its contacts over dt). */
static double floor_force(const cl_gfem *s, double dt) {
  double f = 0.0;
  for (int32_t l = 0; l < s->sys.n; ++l)
    if (s->sys.role[l] == CL_FEM_CONTACT && s->sys.contact[l] != 0) f += s->sys.cimp[3 * l + 1] / dt;
  return f;
}

/* Launch the body upwards at vy (every node). */
static void launch(cl_body *b, double vy) {
  for (int32_t i = 0; i < b->state.n; ++i) b->state.v[3 * i + 1] = vy;
}

/* Converged solves: the seeded run follows the unseeded one through landing, rest and lift-off, on a
 * frictionless floor to rounding, and with friction 0.5 within what the rounds' friction fixed point
 * leaves (it stops once no contact's friction changes by more than a thousandth: 2.6e-6 m; before
 * the friction was linearised, fem/system.h, the unseeded run, which restarts every contact sticking,
 * ran out of rounds at rest and the two differed by 2.6e-5 m); the seeded run ends the step with the
 * same number of contacts either way. */
static void same_path(double mu, double pos_bound, double force_bound) {
  cl_world *w[2];
  cl_body *b[2];
  for (int k = 0; k < 2; ++k) b[k] = block_on_floor_mu(&w[k], 2e-3, k, CONVERGED, 0, 0, mu);
  const double dt = 1.0 / 200.0, weight = 1000.0 * 1e-3 * 9.81;
  double worst = 0.0, worst_f = 0.0;
  int touching = 0;
  for (int step = 0; step < 80; ++step) {
    if (step == 60)
      for (int k = 0; k < 2; ++k) launch(b[k], 0.5);
    for (int k = 0; k < 2; ++k) assert_true(cl_world_step(w[k], 1) >= 0);
    const cl_gfem *s0 = b[0]->solver, *s1 = b[1]->solver;
    assert_int_equal(contacts(s0), contacts(s1));
    touching += contacts(s1) > 0;
    for (int32_t i = 0; i < 3 * b[0]->state.n; ++i) worst = fmax(worst, fabs(b[0]->state.x[i] - b[1]->state.x[i]));
    worst_f = fmax(worst_f, fabs(floor_force(s0, dt) - floor_force(s1, dt)));
  }
  print_message("seeded against unseeded, converged, friction %g: %d steps in contact, largest position difference "
                "%.3g m, floor force %.3g N (weight %.3g N)\n", mu, touching, worst, worst_f, weight);
  assert_true(touching > 40);
  assert_true(worst < pos_bound);
  assert_true(worst_f < force_bound * weight);
  for (int k = 0; k < 2; ++k) cl_world_destroy(w[k]);
}

static void test_same_path_as_unseeded(void **state) {
  (void)state;
  same_path(0.0, 1e-12, 1e-9);
  same_path(0.5, 1e-4, 1e-2);
}

/* Fixed V-cycles, one a solve: at rest on the floor a seeded step solves once, an unseeded one twice or
 * more (a contact-free solve first, then the contacts; with friction, more rounds while its contacts
 * restart sticking); with friction the seeded block sticks where it rests. */
static void resting(double mu) {
  int cycles[2] = {0, 0}, once = 0;
  double drift = 0.0;
  for (int k = 0; k < 2; ++k) {
    cl_world *w = NULL;
    cl_body *b = block_on_floor_mu(&w, 0.0, k, MG_FIXED, 1, 1, mu);
    const cl_gfem *s = b->solver;
    double x30 = 0.0;
    for (int step = 0; step < 60; ++step) {
      assert_true(cl_world_step(w, 1) >= 0);
      if (step == 29) x30 = b->state.x[0];
      if (step < 30) continue;
      assert_true(contacts(s) > 0);
      cycles[k] += s->iterations;
      if (k == 1) once += s->iterations == 1;
      if (k == 0) assert_true(s->iterations >= 2);
    }
    if (k == 1) drift = fabs(b->state.x[0] - x30);
    cl_world_destroy(w);
  }
  print_message("resting, friction %g, steps 30-59: %d V-cycles unseeded, %d seeded (%d of 30 seeded steps solved "
                "once); a corner moved %.3g m\n", mu, cycles[0], cycles[1], once, drift);
  assert_true(once >= 25);
  assert_true(cycles[1] <= cycles[0] / 2 + 5);
  if (mu > 0.0) assert_true(drift < 1e-6);
}

static void test_resting_contact_solves_once(void **state) {
  (void)state;
  resting(0.0);
  resting(0.5);
}

/* Seeds that would pull are let go: a block resting on the floor, launched upwards at 0.5 m/s, leaves
 * it in that step (every node above it by about dt v) and the floor pushes nothing. */
static void test_seed_that_pulls_is_let_go(void **state) {
  (void)state;
  cl_world *w = NULL;
  cl_body *b = block_on_floor(&w, 0.0, 1, CONVERGED, 0, 0);
  const cl_gfem *s = b->solver;
  for (int step = 0; step < 30; ++step) assert_true(cl_world_step(w, 1) >= 0);
  assert_true(contacts(s) > 0);
  const int before = contacts(s);
  launch(b, 0.5);
  assert_true(cl_world_step(w, 1) >= 0);
  print_message("launched: %d contacts before, %d after; lowest node at %.3g m\n", before, contacts(s), lowest(b));
  assert_int_equal(contacts(s), 0);
  assert_true(lowest(b) > 0.5 * 0.5 / 200.0);
  assert_true(floor_force(s, 1.0 / 200.0) == 0.0);
  cl_world_destroy(w);
}

/* contact_cycles: a contact round's re-solve makes that many V-cycles (the landing step: one solve of
 * mg_cycles = 3 without contacts, then rounds of contact_cycles each). */
static void test_contact_cycles(void **state) {
  (void)state;
  for (int again = 1; again <= 2; ++again) {
    cl_world *w = NULL;
    cl_body *b = block_on_floor(&w, 1e-4, 1, MG_FIXED, 3, again);
    const cl_gfem *s = b->solver;
    int landed = -1;
    for (int step = 0; step < 20 && landed < 0; ++step) {
      assert_true(cl_world_step(w, 1) >= 0);
      if (contacts(s) > 0) landed = step;
    }
    assert_true(landed >= 0);
    const int32_t rounds = (s->iterations - 3) / again;
    print_message("contact_cycles %d: the landing step made %d V-cycles (3 + %d rounds)\n", again, s->iterations,
                  rounds);
    assert_true(s->iterations > 3);
    assert_int_equal((s->iterations - 3) % again, 0);
    cl_world_destroy(w);
  }
}

/* On by default (since the static solve's polish puts a contact at rest on a curved collider where
 * the seeded dynamics put it: docs/solvers/graph_fem.md, "Contact"), one V-cycle a contact round by
 * default. */
static void test_defaults(void **state) {
  (void)state;
  const double lo[3] = {0, 0, 0}, hi[3] = {0.1, 0.1, 0.1};
  cl_mesh *m = NULL;
  assert_int_equal(cl_tet_grid(1, 1, 1, lo, hi, &m), CL_OK);
  cl_world *w = cl_test_world(1e-2, 0.0, 1);
  const cl_id id = cl_test_add_body(w, "graph_fem", m, NULL, 0, NULL, NULL, 0);
  const cl_gfem *s = cl_test_body_solver(w, id);
  assert_true(s->p[GF_CONTACT_SEED] == 1.0); /* on since the static solve polishes its contacts */
  assert_true(s->p[GF_CONTACT_CYCLES] == 1.0);
  cl_mesh_destroy(m);
  cl_world_destroy(w);
}

/* Bad values are refused by name with the allowed range. */
static void test_bad_values(void **state) {
  (void)state;
  const struct {
    const char *name;
    double value;
    const char *range;
  } bad[] = {{"contact_seed", 2.0, "[0, 1]"},    {"contact_seed", NAN, "[0, 1]"},     {"contact_seed", -1.0, "[0, 1]"},
             {"contact_cycles", -1.0, "[0, 1000]"}, {"contact_cycles", 2.5, "[0, 1000]"}, {"contact_cycles", NAN, "[0, 1000]"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    const double lo[3] = {0, 0, 0}, hi[3] = {0.1, 0.1, 0.1};
    cl_mesh *m = NULL;
    assert_int_equal(cl_tet_grid(1, 1, 1, lo, hi, &m), CL_OK);
    cl_world *w = cl_test_world(1e-2, 0.0, 1);
    cl_body_def bd;
    cl_body_def_default(&bd);
    bd.solver = "graph_fem";
    const cl_param p[] = {{bad[i].name, bad[i].value, NULL}};
    bd.params = p;
    bd.param_count = 1;
    cl_id id = 0;
    const cl_status r = cl_world_add_body(w, &bd, m, &id);
    const char *msg = cl_last_error();
    print_message("%s = %g: %.100s\n", bad[i].name, bad[i].value, msg);
    assert_true(r < 0);
    char quoted[64];
    snprintf(quoted, sizeof quoted, "'%s'", bad[i].name);
    assert_non_null(strstr(msg, quoted));
    assert_non_null(strstr(msg, bad[i].range));
    cl_mesh_destroy(m);
    cl_world_destroy(w);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_path_as_unseeded),
      cmocka_unit_test(test_resting_contact_solves_once),
      cmocka_unit_test(test_seed_that_pulls_is_let_go),
      cmocka_unit_test(test_contact_cycles),
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_bad_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
