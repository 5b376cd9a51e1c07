/* Deterministic random numbers: xoshiro256** (Blackman and Vigna 2018) seeded through splitmix64,
 * so a 64-bit seed gives the same stream on every platform and compiler. The state is a plain
 * struct the caller owns (one per thread or per worker; no globals, no allocation). */
#ifndef CL_BASE_RNG_H
#define CL_BASE_RNG_H

#include <stdint.h>

#include "base/mat3.h"
#include "base/vec3.h"

typedef struct cl_rng {
  uint64_t s[4];
  double spare;   /* second normal deviate of the last polar-method pair */
  int has_spare;
} cl_rng;

/* Seed the state from any 64-bit value (0 included). */
void cl_rng_seed(cl_rng *r, uint64_t seed);
/* Next 64 random bits. */
uint64_t cl_rng_u64(cl_rng *r);
/* Uniform integer in [0, n); n = 0 gives 0. Unbiased (Lemire 2019, multiply and reject). */
uint64_t cl_rng_below(cl_rng *r, uint64_t n);
/* Uniform double in [0, 1) with 53 random bits. */
double cl_rng_uniform(cl_rng *r);
/* Uniform double in [lo, hi). */
double cl_rng_range(cl_rng *r, double lo, double hi);
/* Standard normal deviate (Marsaglia polar method: no trigonometry). */
double cl_rng_normal(cl_rng *r);
/* Uniformly distributed point on the unit sphere (a normalised Gaussian 3-vector). */
cl_vec3 cl_rng_unit_vector(cl_rng *r);
/* Rotation matrix uniformly distributed over SO(3) (Haar measure), from a normalised Gaussian
 * quaternion (Shoemake 1992); proper and orthonormal to rounding. */
cl_mat3 cl_rng_rotation(cl_rng *r);

#endif
