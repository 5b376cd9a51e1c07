/* Clustered shape matching with plasticity and ductile fracture (Jones, Martin, Levine, Shinar and
 * Bargteil, "Ductile Fracture for Clustered Shape Matching", I3D 2016; docs/solvers/shape_matching.md
 * gives the method with its equations). This header is what the rest of cleave sees: the solver
 * table (registered in solvers/registry.c) and a statistics query for benchmarks, tests and logs.
 *
 * The library never prints: the cluster count and radius the clustering actually used, the particle
 * spacing and the per-phase timings (Table 1 of the paper: dynamics, plasticity, fracture) are read
 * through cl_shape_matching_stats. */
#ifndef CL_SOLVERS_SHAPE_MATCHING_H
#define CL_SOLVERS_SHAPE_MATCHING_H

#include <stdint.h>

#include "solvers/solver.h"

extern const cl_solver_ops cl_shape_matching_solver_ops;

typedef struct cl_sm_stats {
  /* set at bind */
  int32_t sampled_particles;  /* particles made from the input (before fracture) */
  double spacing;             /* m, the sampling spacing used (0 for tet meshes) */
  double particle_volume;     /* m^3, rest volume of one sample (mean for tet meshes) */
  int32_t cluster_count;      /* clusters the fuzzy c-means produced */
  double cluster_radius;      /* m, the membership radius used */
  int32_t clustering_iterations;
  /* now */
  int32_t particles;          /* state nodes (grows with fracture) */
  int32_t debris;             /* particles left in no cluster (fly freely, keep their mass) */
  int32_t clusters;           /* live clusters */
  int32_t units;              /* cluster slots (live + deleted), the solver's unit count */
  int64_t memberships;        /* sum over live clusters of their member counts */
  double mean_clusters_per_particle; /* memberships / particles in clusters */
  int64_t fractures;          /* cluster splits so far */
  int64_t particle_splits;    /* particles created by eq 15 propagation and outlier splits */
  int64_t clusters_deleted;
  /* wall time, ms: the last step, and the sum over all steps */
  double dynamics_ms, plasticity_ms, collision_ms, fracture_ms;
  double dynamics_ms_total, plasticity_ms_total, collision_ms_total, fracture_ms_total;
  int32_t strain_limit_iterations; /* iterations the last step ran (early exit when nothing clamps) */
  int32_t cluster_pieces;     /* pieces that hold clusters (clusters joined by shared particles,
                               * debris left out): what the authors' code counts, since it deletes
                               * particles left in no cluster */
} cl_sm_stats;

/* Statistics of a bound shape-matching solver (the `solver` pointer of a body whose ops are
 * cl_shape_matching_solver_ops). Returns CL_ERR_INVALID_ARGUMENT for NULL pointers. */
cl_status cl_shape_matching_stats(const void *solver, cl_sm_stats *out);

/* Cluster membership of particle `node` (for tests and tools): the number of live clusters it
 * belongs to, or -1 for an index out of range. */
int32_t cl_shape_matching_particle_clusters(const void *solver, int32_t node);

#endif
