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

/* Indexed by the SM_P_* order in which the values reach the solver. The "sampling" names follow
 * cl_sampling (grid 0, poisson 1). */
const cl_param_info cl_sm_param_table[SM_P_COUNT] = {
    [SM_P_SAMPLING] = {.name = "sampling", .unit = "1",
                       .help = "particle sampling of a closed surface: poisson = Poisson disk (Bridson 2007); grid "
                               "= a cell-centred grid",
                       .value = CL_SAMPLE_POISSON, .min = 0.0, .max = 1.0, .kind = CL_PARAM_CHOICE,
                       .choices = "grid|poisson"},
    [SM_P_SPACING] = {.name = "spacing", .unit = "m",
                      .help = "sampling spacing (Poisson minimum distance or grid step); 0 = from 'particles'",
                      .value = 0.0, .min = 0.0, .max = 1e6},
    [SM_P_PARTICLES] = {.name = "particles", .unit = "1", .help = "target particle count when spacing = 0 (surfaces)",
                        .value = 4000.0, .min = 8.0, .max = 1e8, .kind = CL_PARAM_INTEGER},
    [SM_P_CLUSTER_COUNT] = {.name = "cluster_count", .unit = "1",
                            .help = "number of clusters k; 0 = from the radius, or particles / 40", .value = 0.0,
                            .min = 0.0, .max = 1e7, .kind = CL_PARAM_INTEGER},
    [SM_P_CLUSTER_RADIUS] = {.name = "cluster_radius", .unit = "m",
                             .help = "cluster membership radius r; 0 = the centre spacing (V / k)^(1/3)", .value = 0.0,
                             .min = 0.0, .max = 1e6},
    [SM_P_FUZZINESS] = {.name = "fuzziness", .unit = "1",
                        .help = "fuzzy c-means exponent m: weights ~ d^(-2/(m-1)); large m = equal weights",
                        .value = 2.0, .min = 1.05, .max = 1e6},
    [SM_P_CLUSTER_ITERATIONS] = {.name = "cluster_iterations", .unit = "1", .help = "fuzzy c-means iterations (at most)",
                                 .value = 20.0, .min = 1.0, .max = 1000.0, .kind = CL_PARAM_INTEGER},
    [SM_P_ALPHA] = {.name = "alpha", .unit = "1", .help = "goal stiffness: fraction of the way to the goal per step (eq 6-8)",
                    .value = 0.5, .min = 0.0, .max = 1.0},
    [SM_P_DAMPING] = {.name = "damping", .unit = "1/s",
                      .help = "velocity relaxation toward each cluster's mean velocity (or rigid motion, damp_spin = "
                              "false)",
                      .value = 0.0, .min = 0.0, .max = 1e6},
    [SM_P_TORQUE_FREE] = {.name = "torque_free", .unit = "1",
                          .help = "each cluster's corrections carry no net torque (angular momentum conserved); false "
                                  "= eq 6 goals as they are",
                          .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN},
    [SM_P_DAMP_SPIN] = {.name = "damp_spin", .unit = "1",
                        .help = "damping also slows a cluster's spin (authors); false = spin kept, angular momentum "
                                "conserved",
                        .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN},
    [SM_P_GAMMA] = {.name = "gamma", .unit = "1",
                    .help = "strain limit: largest goal distance over cluster width (Bargteil & Jones 2014)",
                    .value = 0.3, .min = 0.0, .max = 1e3},
    [SM_P_ITERATIONS] = {.name = "iterations", .unit = "1", .help = "strain-limiting iterations per step", .value = 4.0,
                         .min = 0.0, .max = 1000.0, .kind = CL_PARAM_INTEGER},
    [SM_P_OMEGA] = {.name = "omega", .unit = "1", .help = "strain-limiting relaxation per iteration", .value = 0.3,
                    .min = 0.0, .max = 1.0},
    [SM_P_PINV_THRESHOLD] = {.name = "pinv_threshold", .unit = "1",
                             .help = "A_rr pseudo-inverse: singular values below this fraction of the largest are "
                                     "dropped",
                             .value = 1e-6, .min = 0.0, .max = 1.0},
    [SM_P_HARDENING_TIME] = {.name = "hardening_time", .unit = "s",
                             .help = "time unit of the hardening variable (eq 14 integrated over dt)",
                             .value = 1.0 / 60.0, .min = 1e-9, .max = 1e9},
    [SM_P_OUTLIER] = {.name = "outlier", .unit = "1",
                      .help = "a member farther than (1 + gamma) outlier x its rest distance from the centre splits "
                              "off",
                      .value = 2.0, .min = 1.0, .max = 1e6},
    [SM_P_MIN_CLUSTER_MASS] = {.name = "min_cluster_mass", .unit = "1",
                               .help = "clusters lighter than this fraction of the initial mean cluster mass are "
                                       "deleted",
                               .value = 1e-3, .min = 0.0, .max = 1.0},
    [SM_P_SELF_COLLISIONS] = {.name = "self_collisions", .unit = "1",
                              .help = "cluster proxies (spheres cut by fracture planes) push other pieces out",
                              .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN},
    [SM_P_RESTITUTION] = {.name = "restitution", .unit = "1", .help = "fraction of the proxy projection applied per step",
                          .value = 0.5, .min = 0.0, .max = 1.0},
    [SM_P_BOUNDARY_PLANES] = {.name = "boundary_planes", .unit = "1",
                              .help = "proxy planes where a cluster sphere leaves the body, fraction of r (0 = none)",
                              .value = 0.5, .min = 0.0, .max = 1e3},
    [SM_P_PROXY_ORIGINS] = {.name = "proxy_origins", .unit = "1",
                            .help = "clusters that hold copies of one original particle (neighbours across a crack) do "
                                    "not collide, as in the authors' code; false = only the two halves of a split",
                            .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN},
    [SM_P_PROXY_WHOLE] = {.name = "proxy_whole", .unit = "1",
                          .help = "proxies also act between clusters of one piece (the authors' code, intact bodies "
                                  "included); false = between pieces only",
                          .value = 0.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN},
    [SM_P_PROXY_VELOCITY] = {.name = "proxy_velocity", .unit = "1",
                             .help = "a proxy push also changes the particle's velocity by displacement / dt; false = "
                                     "position only, as in the authors' code (it does not stop an approach)",
                             .value = 1.0, .min = 0.0, .max = 1.0, .kind = CL_PARAM_BOOLEAN},
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
  p->proxy_origins = v[SM_P_PROXY_ORIGINS] != 0.0;
  p->proxy_whole = v[SM_P_PROXY_WHOLE] != 0.0;
  p->proxy_velocity = v[SM_P_PROXY_VELOCITY] != 0.0;
}
