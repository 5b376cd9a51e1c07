/* Per-unit measures: the one layout fracture criteria and probes read, whatever the solver. Part of
 * the simulation contract (src/contract/). */
#ifndef CL_CONTRACT_UNITS_H
#define CL_CONTRACT_UNITS_H

#include <stdint.h>

/* What a solver's integration units are. A criterion that needs a kind of unit (the separation
 * tensor needs tets: it turns element stresses into nodal forces) says so in its capabilities
 * (contract/capabilities.h); one that only reads F and stress works on every kind. */
typedef enum cl_unit_kind {
  CL_UNITS_TETS = 0,      /* linear tetrahedra; unit i is cell i of the state (cell_size 4) */
  CL_UNITS_CLUSTERS = 1,  /* clusters of particles (shape matching) */
  CL_UNITS_PARTICLES = 2, /* one unit per particle (oriented particles, meshless) */
  CL_UNIT_KIND_COUNT
} cl_unit_kind;

/* Name of a unit kind ("tets", "clusters", "particles") for messages. */
const char *cl_unit_kind_name(cl_unit_kind kind);

/* All matrices are 3x3 row-major. The world owns the arrays (sized by the solver's unit_count
 * before measure is called). */
typedef struct cl_unit_fields {
  int32_t count;     /* units filled */
  double *F;         /* 9 count deformation gradients */
  double *stress;    /* 9 count Cauchy stress, Pa */
  double *plastic;   /* 9 count plastic strain (zero without plasticity) */
  double *center;    /* 3 count current centres, m */
  double *volume;    /* count rest volumes, m^3 */
  double *damage;    /* count damage in [0, 1] (the world zeroes it before measure; solvers with a
                      * damage variable fill it: graph_fem's largest edge damage of the tet) */
} cl_unit_fields;

#endif
