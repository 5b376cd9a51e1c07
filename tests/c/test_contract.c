/* The simulation contract (src/contract/): fracture events as a tagged union and the world's order
 * of them, capabilities and whether a criterion fits a solver, and the registries' refusal of tables
 * whose capabilities contradict their functions. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "contract/capabilities.h"
#include "contract/events.h"
#include "fracture/criterion.h"
#include "solvers/shape_matching/shape_matching.h"
#include "solvers/solver.h"
#include "support/double_solver.h"

static void test_event_constructors(void **state) {
  (void)state;
  const double n[3] = {0.0, 1.0, 0.0};
  cl_fracture_event a = cl_event_split_node(7, 3, n, 2.0, 20.0);
  assert_int_equal(a.kind, CL_EVENT_SPLIT_NODE);
  assert_int_equal(a.split_node.node, 7);
  assert_int_equal(a.split_node.unit, 3);
  assert_true(a.split_node.normal[1] == 1.0 && a.priority == 2.0 && a.value == 20.0);
  cl_fracture_event b = cl_event_split_unit(5, NULL, 1.0, 1.5);
  assert_int_equal(b.kind, CL_EVENT_SPLIT_UNIT);
  assert_int_equal(b.split_unit.unit, 5);
  assert_true(b.split_unit.normal[0] == 0.0 && b.split_unit.normal[1] == 0.0 && b.split_unit.normal[2] == 0.0);
  cl_fracture_event c = cl_event_damage_edge(1, 2, 9, 0.5, 3.0, 3.0);
  assert_int_equal(c.kind, CL_EVENT_DAMAGE_EDGE);
  assert_true(c.damage_edge.a == 1 && c.damage_edge.b == 2 && c.damage_edge.damage == 0.5);
  assert_int_equal(cl_event_unit(&a), 3);
  assert_int_equal(cl_event_unit(&b), 5);
  assert_int_equal(cl_event_unit(&c), 9);
  assert_string_equal(cl_event_kind_name(CL_EVENT_SPLIT_NODE), "split_node");
  assert_string_equal(cl_event_kind_name(CL_EVENT_CUT_SURFACE), "cut_surface");
  assert_string_equal(cl_unit_kind_name(CL_UNITS_CLUSTERS), "clusters");
}

/* Decreasing priority; ties by unit, then by kind, whatever the order of arrival. */
static void test_event_order(void **state) {
  (void)state;
  const cl_fracture_event in[] = {
      cl_event_split_unit(4, NULL, 1.0, 0.0), cl_event_split_node(0, 2, NULL, 1.0, 0.0),
      cl_event_damage_edge(0, 1, 2, 1.0, 1.0, 0.0), cl_event_split_unit(9, NULL, 5.0, 0.0),
      cl_event_split_unit(1, NULL, 0.5, 0.0),
  };
  const int32_t n = (int32_t)(sizeof in / sizeof in[0]);
  /* expected: (5, unit 9), (1, unit 2, split_node), (1, unit 2, damage_edge), (1, unit 4), (0.5, unit 1) */
  for (int32_t rot = 0; rot < n; ++rot) {
    cl_event_list list = {0};
    for (int32_t i = 0; i < n; ++i) assert_int_equal(cl_event_push(&list, &in[(i + rot) % n]), CL_OK);
    cl_event_list_sort(&list);
    assert_int_equal(list.count, n);
    assert_int_equal(cl_event_unit(&list.items[0]), 9);
    assert_int_equal(list.items[1].kind, CL_EVENT_SPLIT_NODE);
    assert_int_equal(list.items[2].kind, CL_EVENT_DAMAGE_EDGE);
    assert_int_equal(cl_event_unit(&list.items[3]), 4);
    assert_int_equal(cl_event_unit(&list.items[4]), 1);
    cl_event_list_free(&list);
    assert_null(list.items);
  }
  assert_int_equal(cl_event_push(NULL, &in[0]), CL_ERR_INVALID_ARGUMENT);
}

static void test_criterion_fits(void **state) {
  (void)state;
  const cl_solver_caps tets = {.units = CL_UNITS_TETS,
                               .applies = CL_EVENT_BIT(CL_EVENT_SPLIT_NODE) | CL_EVENT_BIT(CL_EVENT_SPLIT_UNIT)};
  const cl_solver_caps clusters = {.units = CL_UNITS_CLUSTERS, .applies = CL_EVENT_BIT(CL_EVENT_SPLIT_UNIT)};
  const cl_solver_caps rigid = {.units = CL_UNITS_TETS};
  const cl_criterion_caps node_crit = {.reads = CL_UNIT_BIT(CL_UNITS_TETS), .emits = CL_EVENT_BIT(CL_EVENT_SPLIT_NODE)};
  const cl_criterion_caps any_unit = {.reads = CL_UNIT_BIT(CL_UNITS_TETS) | CL_UNIT_BIT(CL_UNITS_CLUSTERS),
                                      .emits = CL_EVENT_BIT(CL_EVENT_SPLIT_UNIT)};
  const cl_criterion_caps edges = {.reads = CL_UNIT_BIT(CL_UNITS_TETS), .emits = CL_EVENT_BIT(CL_EVENT_DAMAGE_EDGE)};
  char why[256];
  assert_true(cl_criterion_fits(&tets, &node_crit, why, sizeof why));
  assert_true(cl_criterion_fits(&tets, &any_unit, why, sizeof why));
  assert_true(cl_criterion_fits(&clusters, &any_unit, why, sizeof why));
  assert_false(cl_criterion_fits(&clusters, &node_crit, why, sizeof why));
  assert_string_equal(why, "it needs tets and the solver's units are clusters");
  assert_false(cl_criterion_fits(&tets, &edges, why, sizeof why));
  assert_string_equal(why, "it raises damage_edge events and the solver applies split_node or split_unit");
  assert_false(cl_criterion_fits(&rigid, &node_crit, why, sizeof why));
  assert_string_equal(why, "it raises split_node events and the solver applies nothing");
  assert_false(cl_criterion_fits(&rigid, &node_crit, NULL, 0)); /* no reason asked */
}

/* The built-in tables declare what the code does: the world and the criteria rely on it. */
static void test_builtin_capabilities(void **state) {
  (void)state;
  const cl_solver_ops *ops;
  for (int32_t i = 0; i < cl_solver_count(); ++i) {
    ops = cl_solver_at(i);
    assert_true(!ops->caps.applies || ops->fracture);
    assert_true(!ops->contact_bounds == !ops->contact_pair);
  }
  assert_int_equal(cl_solver_find("corotational", &ops), CL_OK);
  assert_int_equal(ops->caps.units, CL_UNITS_TETS);
  assert_int_equal(cl_solver_find("shape_matching", &ops), CL_OK);
  assert_int_equal(ops->caps.units, CL_UNITS_CLUSTERS);
  const cl_criterion_ops *c;
  for (int32_t i = 0; i < cl_criterion_count(); ++i) {
    c = cl_criterion_at(i);
    assert_true(c->caps.reads != 0 && c->caps.emits != 0);
  }
  /* cluster_stretch drives both landed solvers, the node criteria only the tet one */
  const cl_solver_ops *corot, *sm;
  assert_int_equal(cl_solver_find("corotational", &corot), CL_OK);
  assert_int_equal(cl_solver_find("shape_matching", &sm), CL_OK);
  assert_int_equal(cl_criterion_find("cluster_stretch", &c), CL_OK);
  assert_true(cl_criterion_fits(&corot->caps, &c->caps, NULL, 0));
  assert_true(cl_criterion_fits(&sm->caps, &c->caps, NULL, 0));
  assert_int_equal(cl_criterion_find("separation_tensor", &c), CL_OK);
  assert_true(cl_criterion_fits(&corot->caps, &c->caps, NULL, 0));
  assert_false(cl_criterion_fits(&sm->caps, &c->caps, NULL, 0));
}

/* A table whose capabilities contradict its functions is refused with a message. */
static void test_register_checks_capabilities(void **state) {
  (void)state;
  cl_solver_ops copy = *cl_double_solver_ops();
  copy.name = "caps_without_fracture";
  copy.fracture = NULL; /* applies split_unit without a fracture op */
  assert_int_equal(cl_solver_register(&copy), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "no fracture op"));
  copy = *cl_double_solver_ops();
  copy.name = "half_contact";
  copy.contact_bounds = cl_shape_matching_solver_ops.contact_bounds;
  assert_int_equal(cl_solver_register(&copy), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "contact_bounds and contact_pair"));
  copy = *cl_double_solver_ops();
  copy.name = "bad_units";
  copy.caps.units = CL_UNIT_KIND_COUNT;
  assert_int_equal(cl_solver_register(&copy), CL_ERR_INVALID_ARGUMENT);
  cl_criterion_ops ccopy = *cl_double_recorder_ops();
  ccopy.name = "emits_nothing";
  ccopy.caps.emits = 0;
  assert_int_equal(cl_criterion_register(&ccopy), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "caps"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_event_constructors),   cmocka_unit_test(test_event_order),
      cmocka_unit_test(test_criterion_fits),       cmocka_unit_test(test_builtin_capabilities),
      cmocka_unit_test(test_register_checks_capabilities),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
