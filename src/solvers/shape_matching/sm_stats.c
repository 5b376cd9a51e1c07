/* The statistics op of the shape-matching solver: what clustering actually chose (issue 4: "log the
 * cluster count and radius actually used", which are automatic by default: sm_cluster.c derives them
 * from the particle count and spacing) and how the clusters evolved, as the solver-agnostic
 * name/value pairs of cl_body_copy_stats. The values come from cl_shape_matching_stats
 * (sm_solver.c), so this file only names them. */
#include "solvers/shape_matching/sm_stats.h"

#include "base/error.h"
#include "solvers/shape_matching/shape_matching.h"

/* Order and names are part of the interface (docs/LUA_API.md, body:stats()). */
enum {
  ST_PARTICLES,
  ST_DEBRIS,
  ST_CLUSTERS,
  ST_CLUSTER_SLOTS,
  ST_CLUSTERS_AT_BIND,
  ST_CLUSTER_RADIUS,
  ST_CLUSTERING_ITERATIONS,
  ST_MEMBERSHIPS,
  ST_CLUSTERS_PER_PARTICLE,
  ST_SPACING,
  ST_PARTICLE_VOLUME,
  ST_FRACTURES,
  ST_PARTICLE_SPLITS,
  ST_CLUSTERS_DELETED,
  ST_STRAIN_LIMIT_ITERATIONS,
  ST_CLUSTER_PIECES,
  ST_DYNAMICS_MS,
  ST_PLASTICITY_MS,
  ST_COLLISION_MS,
  ST_COUNT
};

static const cl_stat_info k_names[ST_COUNT] = {
    [ST_PARTICLES] = {"particles", "", "particles now (grows with fracture)"},
    [ST_DEBRIS] = {"debris", "", "particles left in no cluster (they fly freely)"},
    [ST_CLUSTERS] = {"clusters", "", "live clusters now"},
    [ST_CLUSTER_SLOTS] = {"cluster_slots", "", "cluster slots, live and deleted: the unit count"},
    [ST_CLUSTERS_AT_BIND] = {"clusters_at_bind", "", "clusters fuzzy c-means produced (cluster_count used)"},
    [ST_CLUSTER_RADIUS] = {"cluster_radius", "m", "membership radius used by the clustering"},
    [ST_CLUSTERING_ITERATIONS] = {"clustering_iterations", "", "fuzzy c-means iterations at bind"},
    [ST_MEMBERSHIPS] = {"memberships", "", "sum over live clusters of their member counts"},
    [ST_CLUSTERS_PER_PARTICLE] = {"clusters_per_particle", "1", "mean memberships per clustered particle"},
    [ST_SPACING] = {"spacing", "m", "particle sampling spacing (0 for a tet mesh input)"},
    [ST_PARTICLE_VOLUME] = {"particle_volume", "m^3", "rest volume of one particle (mean for tet input)"},
    [ST_FRACTURES] = {"fractures", "", "cluster splits so far"},
    [ST_PARTICLE_SPLITS] = {"particle_splits", "", "particles created by splits so far"},
    [ST_CLUSTERS_DELETED] = {"clusters_deleted", "", "clusters deleted as too small so far"},
    [ST_STRAIN_LIMIT_ITERATIONS] = {"strain_limit_iterations", "", "strain-limiting iterations of the last step"},
    [ST_CLUSTER_PIECES] = {"cluster_pieces", "", "pieces holding clusters (joined by shared particles; debris not counted)"},
    [ST_DYNAMICS_MS] = {"dynamics_ms", "ms", "the last step minus its plasticity: shape matching, strain limiting, colliders, proxies"},
    [ST_PLASTICITY_MS] = {"plasticity_ms", "ms", "plastic flow (eqs 9-14) of the last step"},
    [ST_COLLISION_MS] = {"collision_ms", "ms", "cluster-proxy collisions of the last step (part of dynamics_ms)"},
};

cl_status cl_sm_stats_op(const void *solver, const cl_body_state *state, cl_body_stat *out, int32_t capacity,
                         int32_t *count) {
  (void)state;
  cl_sm_stats st;
  CL_TRY(cl_shape_matching_stats(solver, &st));
  double v[ST_COUNT];
  v[ST_PARTICLES] = st.particles;
  v[ST_DEBRIS] = st.debris;
  v[ST_CLUSTERS] = st.clusters;
  v[ST_CLUSTER_SLOTS] = st.units;
  v[ST_CLUSTERS_AT_BIND] = st.cluster_count;
  v[ST_CLUSTER_RADIUS] = st.cluster_radius;
  v[ST_CLUSTERING_ITERATIONS] = st.clustering_iterations;
  v[ST_MEMBERSHIPS] = (double)st.memberships;
  v[ST_CLUSTERS_PER_PARTICLE] = st.mean_clusters_per_particle;
  v[ST_SPACING] = st.spacing;
  v[ST_PARTICLE_VOLUME] = st.particle_volume;
  v[ST_FRACTURES] = (double)st.fractures;
  v[ST_PARTICLE_SPLITS] = (double)st.particle_splits;
  v[ST_CLUSTERS_DELETED] = (double)st.clusters_deleted;
  v[ST_STRAIN_LIMIT_ITERATIONS] = st.strain_limit_iterations;
  v[ST_CLUSTER_PIECES] = st.cluster_pieces;
  v[ST_DYNAMICS_MS] = st.dynamics_ms;
  v[ST_PLASTICITY_MS] = st.plasticity_ms;
  v[ST_COLLISION_MS] = st.collision_ms;
  return cl_solver_stats_copy("shape_matching", k_names, v, ST_COUNT, out, capacity, count);
}
