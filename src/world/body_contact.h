/* Contact between different bodies: the world's broad phase and the solvers' pair ops
 * (solver.h, contact_bounds and contact_pair of cl_solver_ops). One phase of the step pipeline (step.c), run inside each
 * substep after every body's solver step. */
#ifndef CL_WORLD_BODY_CONTACT_H
#define CL_WORLD_BODY_CONTACT_H

#include <stdint.h>

#include "world/world.h"

/* What one call did: bodies that have contact ops, pairs whose boxes overlapped (pair op called),
 * and the sum of the pair ops' reports. */
typedef struct cl_body_contact_stats {
  int32_t bodies;
  int32_t pairs;
  int32_t contacts;
  double max_depth; /* m */
} cl_body_contact_stats;

/* For the substep of length h just solved: ask every body whose solver has contact ops for its
 * bounds (which also refreshes its collision geometry), sweep the boxes along x, and call the pair
 * op on every two bodies of the same solver whose boxes overlap, in increasing body-slot
 * order. With fewer than two such bodies nothing is called. out may be NULL. Errors name the
 * bodies; a non-finite position or velocity after a pair op is CL_ERR_NUMERICAL. */
cl_status cl_world_body_contacts(cl_world *w, double h, cl_body_contact_stats *out);

#endif
