/* A body state and unit fields without a world or a solver, for tests of fracture criteria: the
 * criteria read the state's rest positions and cells and the per-unit fields (contract/units.h,
 * cl_unit_fields), so a test can set those fields to exactly the stress or strain it needs.
 * Failures are cmocka failures (the test stops). */
#ifndef CL_TEST_UNIT_FIXTURE_H
#define CL_TEST_UNIT_FIXTURE_H

#include <stdint.h>

#include "fracture/criterion.h"

typedef struct cl_test_unit_fixture {
  cl_body_state st;
  cl_unit_fields u;
} cl_test_unit_fixture;

/* One tet grid (geom/tet_grid.h): the box [lo, hi] cut n[0] x n[1] x n[2] cells of 6 tets. */
typedef struct cl_test_grid {
  int32_t n[3];
  double lo[3], hi[3];
} cl_test_grid;

/* The state of `count` tet grids side by side (nodes and tets numbered grid after grid, so each
 * grid is its own island when they do not touch): x = X = the grid points, 1 kg per node,
 * topology_version 1; unit fields for every tet, zero except F = I. */
void cl_test_unit_fixture_init(cl_test_unit_fixture *f, const cl_test_grid *grids, int count);
void cl_test_unit_fixture_free(cl_test_unit_fixture *f);

/* The capabilities of a tet solver that splits nodes, for criterion bind inputs. */
static const cl_solver_caps k_tet_caps = {.units = CL_UNITS_TETS, .applies = CL_EVENT_BIT(CL_EVENT_SPLIT_NODE)};
/* ... and of one that damages edges (graph_fem). */
static const cl_solver_caps k_edge_caps = {.units = CL_UNITS_TETS, .applies = CL_EVENT_BIT(CL_EVENT_DAMAGE_EDGE)};

/* The registered criterion `name`. */
const cl_criterion_ops *cl_test_criterion(const char *name);

#endif
