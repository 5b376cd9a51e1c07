/* Cluster-proxy collisions (Jones et al., MIG 2015; paper sec 3.1 "Collision Handling"): not yet
 * implemented in this stage. */
#include "solvers/shape_matching/sm_internal.h"

void cl_sm_self_collide(cl_sm *s, cl_body_state *st, double dt) {
  (void)s;
  (void)st;
  (void)dt;
}
