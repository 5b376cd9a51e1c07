/* Contact between rigid colliders: dynamic spheres and boxes (free or hinged) against kinematic
 * colliders and against each other (docs/RIGID_BODIES.md, "Contact between rigid bodies"). One call
 * per substep in step.c, after cl_rigid_apply_impulses. */
#ifndef CL_WORLD_RIGID_CONTACT_H
#define CL_WORLD_RIGID_CONTACT_H

#include <stdint.h>

#include "world/world.h"

/* What one call did (summed over its passes). */
typedef struct cl_rigid_contact_stats {
  int32_t pairs;    /* pair resolutions that found at least one contact */
  int32_t contacts; /* contact points handled */
  double max_depth; /* deepest penetration found, m */
  int64_t tested;   /* pairs handed to the narrow phase (all pairs, or the broad phase's candidates) */
} cl_rigid_contact_stats;

/* For the substep of length h ending at t1 (dynamic colliders already predicted to t1 and pushed by
 * the nodes): find every penetrating pair (dynamic, kinematic) and (dynamic, dynamic), apply contact
 * impulses at the contact points (restitution max(e_a, e_b), Coulomb friction sqrt(mu_a mu_b), the
 * angular part with the world-frame inverse inertia; a hinged body through its moment about the
 * hinge) and push the pair apart by the penetration split by inverse mass. Kinematic colliders are
 * taken at their pose at t1 and give their surface velocity at the contact point. out may be NULL.
 * Candidate pairs come from a sweep and prune (rigid_contact.c); its arrays live in the world and grow
 * only with the collider or pair count. */
void cl_rigid_contacts(cl_world *w, double h, double t1, cl_rigid_contact_stats *out);

/* 1 (default): candidate pairs from a sweep and prune over bounding boxes; 0: every pair (tests
 * compare the two). */
extern int cl_rigid_contact_broad_phase;

#endif
