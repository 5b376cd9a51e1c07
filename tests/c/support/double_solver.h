/* Test doubles for the solver and criterion interfaces (never shipped as solvers):
 *
 * "test_double": explicit (symplectic Euler) St. Venant-Kirchhoff elasticity on linear tets with
 *   lumped mass, exact constraints with reported reactions, colliders, gravity, external forces,
 *   optional mass-proportional damping, and a topology operation that detaches a tet from its
 *   neighbours (node replication), so the whole fracture path of the world can be exercised.
 * "test_recorder": a criterion that splits nothing by itself but records what it was asked and,
 *   when told to, raises one event on a chosen unit. */
#ifndef CL_TEST_DOUBLE_SOLVER_H
#define CL_TEST_DOUBLE_SOLVER_H

#include <stdint.h>

#include "fracture/criterion.h"
#include "solvers/solver.h"

/* Register "test_double" and "test_recorder" (idempotent). */
cl_status cl_double_register(void);
const cl_solver_ops *cl_double_solver_ops(void);
const cl_criterion_ops *cl_double_recorder_ops(void);

/* What the recorder saw, over all recorder instances since the last reset. */
typedef struct cl_double_record {
  int32_t binds;          /* bind calls */
  int32_t calls;          /* evaluate calls */
  int32_t units;          /* units->count at the last call */
  int32_t nodes;          /* state->n at the last call */
  double dt;              /* dt at the last call, s */
  double F0[9];           /* deformation gradient of unit 0 at the last call */
  double stress0[9];      /* stress of unit 0 at the last call */
  double raise_unit;      /* the parameter value seen at bind */
  char solver[64];        /* solver name seen at bind */
  int32_t raised;         /* events raised */
} cl_double_record;
cl_double_record *cl_double_recorder_log(void);
void cl_double_recorder_reset(void);

/* Add a box body [lo, hi] meshed by cl_tet_grid(nx, ny, nz) with the given solver, Young's modulus
 * (Pa), density (kg/m^3), Poisson 0.3 and solver parameters. */
cl_status cl_double_add_box(cl_world *world, const char *solver, const char *name, int32_t nx, int32_t ny,
                            int32_t nz, const double *lo, const double *hi, double young, double density,
                            const cl_param *params, int32_t nparams, cl_id *body);

/* Sum over nodes of m v (3) and m x cross v (3, about the origin) of a state. */
void cl_double_momentum(const cl_body_state *s, double *p, double *l);

#endif
