/* The shape-matching parameter table. Names follow the paper and the scene files of its authors
 * (alpha, omega, gamma = "maxStretch", iterations = "numConstraintIters"), with two deliberate
 * changes of unit so that results depend less on the step size:
 *  - damping is a rate (1/s): velocities relax toward the cluster's mean velocity by the fraction
 *    1 - exp(-damping dt) per step. The authors' "springDamping" f (a fraction per 1/60 s frame)
 *    is damping = -60 ln(1 - f) 1/s (f = 0.1 -> 6.32, 0.5 -> 41.6).
 *  - the hardening variable of eq 14 accumulates ||Sigma^e - I|| dt / hardening_time, so with the
 *    default hardening_time = 1/60 s the hardening constant K keeps the meaning it has in the
 *    authors' scene files at their frame rate, and halving dt no longer doubles the hardening. */
#include "solvers/shape_matching/sm_internal.h"

#include "cleave/mesh.h"

const cl_param_info cl_sm_param_table[SM_P_COUNT] = {
    {"sampling", "1", "particle sampling of a closed surface: 1 = Poisson disk (Bridson 2007), 0 = grid", 1.0, 0.0,
     1.0, 1},
    {"spacing", "m", "sampling spacing (Poisson minimum distance or grid step); 0 = from 'particles'", 0.0, 0.0, 1e6,
     0},
    {"particles", "1", "target particle count when spacing = 0 (surfaces)", 4000.0, 8.0, 1e8, 1},
    {"cluster_count", "1", "number of clusters k; 0 = from the radius, or particles / 40", 0.0, 0.0, 1e7, 1},
    {"cluster_radius", "m", "cluster membership radius r; 0 = the centre spacing (V / k)^(1/3)", 0.0, 0.0, 1e6, 0},
    {"fuzziness", "1", "fuzzy c-means exponent m: weights ~ d^(-2/(m-1)); large m = equal weights", 2.0, 1.05, 1e6,
     0},
    {"cluster_iterations", "1", "fuzzy c-means iterations (at most)", 20.0, 1.0, 1000.0, 1},
    {"alpha", "1", "goal stiffness: fraction of the way to the goal per step (eq 6-8)", 0.5, 0.0, 1.0, 0},
    {"damping", "1/s", "velocity relaxation toward each cluster's mean velocity (or rigid motion, damp_spin = 0)", 0.0,
     0.0, 1e6, 0},
    {"torque_free", "1", "1 = each cluster's corrections carry no net torque (angular momentum conserved); 0 = eq 6 "
     "goals as they are", 1.0, 0.0, 1.0, 1},
    {"damp_spin", "1", "1 = damping also slows a cluster's spin (authors); 0 = spin kept, angular momentum conserved",
     1.0, 0.0, 1.0, 1},
    {"gamma", "1", "strain limit: largest goal distance over cluster width (Bargteil & Jones 2014)", 0.3, 0.0, 1e3,
     0},
    {"iterations", "1", "strain-limiting iterations per step", 4.0, 0.0, 1000.0, 1},
    {"omega", "1", "strain-limiting relaxation per iteration", 0.3, 0.0, 1.0, 0},
    {"pinv_threshold", "1", "A_rr pseudo-inverse: singular values below this fraction of the largest are dropped",
     1e-6, 0.0, 1.0, 0},
    {"hardening_time", "s", "time unit of the hardening variable (eq 14 integrated over dt)", 1.0 / 60.0, 1e-9, 1e9,
     0},
    {"outlier", "1", "a member farther than (1 + gamma) outlier x its rest distance from the centre splits off", 2.0,
     1.0, 1e6, 0},
    {"min_cluster_mass", "1", "clusters lighter than this fraction of the initial mean cluster mass are deleted",
     1e-3, 0.0, 1.0, 0},
    {"self_collisions", "1", "1 = cluster proxies (spheres cut by fracture planes) push other pieces out", 1.0, 0.0,
     1.0, 1},
    {"restitution", "1", "fraction of the proxy projection applied per step", 0.5, 0.0, 1.0, 0},
    {"boundary_planes", "1", "proxy planes where a cluster sphere leaves the body, fraction of r (0 = none)", 0.5,
     0.0, 1e3, 0},
};

void cl_sm_params_read(const double *v, cl_sm_params *p) {
  p->sampling = v[SM_P_SAMPLING] != 0.0 ? CL_SAMPLE_POISSON : CL_SAMPLE_GRID;
  p->spacing = v[SM_P_SPACING];
  p->particles = (int32_t)v[SM_P_PARTICLES];
  p->cluster_count = (int32_t)v[SM_P_CLUSTER_COUNT];
  p->cluster_radius = v[SM_P_CLUSTER_RADIUS];
  p->fuzziness = v[SM_P_FUZZINESS];
  p->cluster_iterations = (int32_t)v[SM_P_CLUSTER_ITERATIONS];
  p->alpha = v[SM_P_ALPHA];
  p->damping = v[SM_P_DAMPING];
  p->damp_spin = v[SM_P_DAMP_SPIN] != 0.0;
  p->torque_free = v[SM_P_TORQUE_FREE] != 0.0;
  p->gamma = v[SM_P_GAMMA];
  p->iterations = (int32_t)v[SM_P_ITERATIONS];
  p->omega = v[SM_P_OMEGA];
  p->pinv_threshold = v[SM_P_PINV_THRESHOLD];
  p->hardening_time = v[SM_P_HARDENING_TIME];
  p->outlier = v[SM_P_OUTLIER];
  p->min_cluster_mass = v[SM_P_MIN_CLUSTER_MASS];
  p->self_collisions = v[SM_P_SELF_COLLISIONS] != 0.0;
  p->restitution = v[SM_P_RESTITUTION];
  p->boundary_planes = v[SM_P_BOUNDARY_PLANES];
}
