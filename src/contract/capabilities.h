/* What a solver can do and what a criterion needs, declared in their tables, so that the world,
 * the criteria and the tests decide from capabilities and never from a solver's name. Part of the
 * simulation contract (src/contract/). */
#ifndef CL_CONTRACT_CAPABILITIES_H
#define CL_CONTRACT_CAPABILITIES_H

#include <stddef.h>
#include <stdint.h>

#include "contract/events.h"
#include "contract/units.h"

/* Bit of a unit kind in a mask. */
#define CL_UNIT_BIT(kind) (1u << (unsigned)(kind))

typedef struct cl_solver_caps {
  cl_unit_kind units;        /* what its integration units (measure, unit_count) are */
  uint32_t applies;          /* CL_EVENT_BIT mask of the event kinds its fracture op applies; 0 = it
                              * cannot take a fracture criterion */
  /* 1: free flight conserves angular momentum to rounding (symplectic or exact projections);
   * 0: only approximately (e.g. backward Euler with the stiffness of the step start damps spin). */
  int32_t conserves_angular_momentum;
  /* 1: measure fills cl_unit_fields.damage (a damage variable per unit, e.g. graph_fem's edges) */
  int32_t reports_damage;
  /* 1: the material's young and poisson feed only its stress and energy read-outs, not its dynamics
   * (shape matching: the stiffness comes from alpha and the iterations); 0: they set its stiffness. */
  int32_t moduli_readouts_only;
} cl_solver_caps;

typedef struct cl_criterion_caps {
  uint32_t reads;            /* CL_UNIT_BIT mask of the unit kinds it can evaluate */
  uint32_t emits;            /* CL_EVENT_BIT mask of the event kinds it raises (non-zero) */
} cl_criterion_caps;

/* The names of the event kinds in a CL_EVENT_BIT mask, "damage_edge or cut_surface" ("nothing" for
 * none), into buf. */
void cl_event_kinds_list(uint32_t mask, char *buf, size_t size);

/* 1 if a criterion with `crit` can drive a solver with `solver`: it reads the solver's units and the
 * solver applies every kind the criterion raises. Otherwise 0, and `why` (if not NULL) says which
 * part fails, e.g. "it needs tets and the solver's units are clusters". */
int cl_criterion_fits(const cl_solver_caps *solver, const cl_criterion_caps *crit, char *why, size_t why_size);

#endif
