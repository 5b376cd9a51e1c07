/* The corotational solver's contact seeds (parameter contact_seed, on by default; cl_fem_seed_contacts
 * in src/fem/system.c, shared with graph_fem: docs/solvers/graph_fem.md, "Contact: the seeded active
 * set"). What must hold:
 *   - with a converged solve the path is the one without seeds: a block dropped on a frictionless
 *     floor, landing, resting and launched off it again (the seeds meet the same conditions on the
 *     active set as found contacts);
 *   - with friction, the same path within the rounds' friction tolerance;
 *   - in a resting contact a seeded step solves once, an unseeded one twice (the contact-free solve,
 *     then the round that holds the contacts) or more (friction): fewer CG iterations a step;
 *   - a seed that would pull is let go: a block launched upwards leaves the floor in that step;
 *   - on by default; a bad value is refused by name with its range. */
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
#include "solvers/corotational/corot.h"
#include "support/test_worlds.h"
#include "world/world.h"

/* The contact tests' block (support/test_worlds.h) with the corotational solver, seeded or not, pcg to
 * 1e-12, on a floor of friction mu. */
static cl_body *block_on_floor(cl_world **w, double gap, int seed, double mu) {
  const cl_param p[] = {{"contact_seed", seed, NULL}, {"linear_solver", 0, NULL}, {"tolerance", 1e-12, NULL},
                        {"max_iterations", 5000, NULL}};
  return cl_test_block_on_floor(w, "corotational", gap, mu, p, 4);
}

static int contacts(const cl_corot *s) {
  int c = 0;
  for (int32_t k = 0; k < s->nislands; ++k) {
    const cl_fem_system *sys = &s->islands[k].sys;
    for (int32_t l = 0; l < sys->n; ++l) c += sys->role[l] == CL_FEM_CONTACT && sys->contact[l] != 0;
  }
  return c;
}

static void launch(cl_body *b, double vy) {
  for (int32_t i = 0; i < b->state.n; ++i) b->state.v[3 * i + 1] = vy;
}

/* Seeded and unseeded runs side by side: the same path through landing, rest and lift-off (to
 * rounding without friction; with friction 0.5 within what the rounds' friction fixed point leaves:
 * they stop once no contact's friction changes by more than a thousandth), the same contacts every
 * step; at rest the seeded steps need fewer CG iterations (one solve; with friction a sliding seed
 * keeps its friction load, where a restart from sticking took about 1,000 iterations a step against
 * 250 unseeded), and the launched block leaves the floor in the launch step either way. */
static void same_path(double mu, double bound) {
  cl_world *w[2];
  cl_body *b[2];
  for (int k = 0; k < 2; ++k) b[k] = block_on_floor(&w[k], 2e-3, k, mu);
  double worst = 0.0;
  int touching = 0;
  int64_t rest_it[2] = {0, 0};
  for (int step = 0; step < 80; ++step) {
    if (step == 60)
      for (int k = 0; k < 2; ++k) launch(b[k], 0.5);
    for (int k = 0; k < 2; ++k) assert_true(cl_world_step(w[k], 1) >= 0);
    const cl_corot *s0 = b[0]->solver, *s1 = b[1]->solver;
    assert_int_equal(contacts(s0), contacts(s1));
    touching += contacts(s1) > 0;
    if (step >= 40 && step < 60)
      for (int k = 0; k < 2; ++k) rest_it[k] += ((const cl_corot *)b[k]->solver)->timing.iterations;
    if (step == 60) assert_int_equal(contacts(s1), 0); /* the seeds would pull: let go */
    for (int32_t i = 0; i < 3 * b[0]->state.n; ++i) worst = fmax(worst, fabs(b[0]->state.x[i] - b[1]->state.x[i]));
  }
  print_message("corotational, seeded against unseeded, converged, friction %g: %d steps in contact, largest "
                "position difference %.3g m; CG iterations over 20 resting steps %lld unseeded, %lld seeded\n", mu,
                touching, worst, (long long)rest_it[0], (long long)rest_it[1]);
  assert_true(touching > 40);
  assert_true(worst < bound);
  assert_true(rest_it[1] < rest_it[0]);
  for (int k = 0; k < 2; ++k) cl_world_destroy(w[k]);
}

static void test_same_path_fewer_solves(void **state) {
  (void)state;
  same_path(0.0, 1e-12);
  same_path(0.5, 1e-4);
}

static void test_default_and_bad_value(void **state) {
  (void)state;
  const double lo[3] = {0, 0, 0}, hi[3] = {0.1, 0.1, 0.1};
  cl_mesh *m = NULL;
  assert_int_equal(cl_tet_grid(1, 1, 1, lo, hi, &m), CL_OK);
  cl_world *w = cl_test_world(1e-2, 0.0, 1);
  const cl_id id = cl_test_add_body(w, "corotational", m, NULL, 0, NULL, NULL, 0);
  const cl_corot *s = cl_test_body_solver(w, id);
  assert_true(s->p[CL_COROT_CONTACT_SEED] == 1.0);
  cl_world_destroy(w);
  w = cl_test_world(1e-2, 0.0, 1);
  const cl_param bad[] = {{"contact_seed", 2.0, NULL}};
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.solver = "corotational";
  bd.params = bad;
  bd.param_count = 1;
  cl_id bid;
  assert_true(cl_world_add_body(w, &bd, m, &bid) < 0);
  const char *msg = cl_last_error();
  print_message("%s\n", msg);
  assert_non_null(strstr(msg, "contact_seed"));
  assert_non_null(strstr(msg, "[0, 1]"));
  cl_world_destroy(w);
  cl_mesh_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_path_fewer_solves),
      cmocka_unit_test(test_default_and_bad_value),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
