/* 3-vectors of doubles, passed and returned by value (internal only: the public API never passes
 * structs by value, but inside the core a 24-byte struct in registers is the cheapest form).
 * Per-node data is stored as structure-of-arrays `double x[3 * n]`; cl_vec3_load/store move one
 * entry in and out of such an array. */
#ifndef CL_BASE_VEC3_H
#define CL_BASE_VEC3_H

#include <math.h>
#include <stdint.h>

typedef struct cl_vec3 {
  double x, y, z;
} cl_vec3;

static inline cl_vec3 cl_vec3_make(double x, double y, double z) {
  cl_vec3 r = {x, y, z};
  return r;
}

static inline cl_vec3 cl_vec3_zero(void) { return cl_vec3_make(0.0, 0.0, 0.0); }

static inline cl_vec3 cl_vec3_add(cl_vec3 a, cl_vec3 b) { return cl_vec3_make(a.x + b.x, a.y + b.y, a.z + b.z); }

static inline cl_vec3 cl_vec3_sub(cl_vec3 a, cl_vec3 b) { return cl_vec3_make(a.x - b.x, a.y - b.y, a.z - b.z); }

static inline cl_vec3 cl_vec3_scale(cl_vec3 a, double s) { return cl_vec3_make(a.x * s, a.y * s, a.z * s); }

/* a + s * b (the axpy of explicit integrators). */
static inline cl_vec3 cl_vec3_madd(cl_vec3 a, double s, cl_vec3 b) {
  return cl_vec3_make(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}

static inline cl_vec3 cl_vec3_neg(cl_vec3 a) { return cl_vec3_make(-a.x, -a.y, -a.z); }

static inline double cl_vec3_dot(cl_vec3 a, cl_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

static inline cl_vec3 cl_vec3_cross(cl_vec3 a, cl_vec3 b) {
  return cl_vec3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static inline double cl_vec3_norm2(cl_vec3 a) { return cl_vec3_dot(a, a); }

static inline double cl_vec3_norm(cl_vec3 a) { return sqrt(cl_vec3_dot(a, a)); }

/* Unit vector along a. The zero vector (or one whose squared norm underflows, below ~1e-154) has
 * no direction: the result is the zero vector rather than NaN, and callers that need a direction
 * must test for it. */
static inline cl_vec3 cl_vec3_normalize(cl_vec3 a) {
  double n2 = cl_vec3_dot(a, a);
  if (!(n2 > 0.0)) return cl_vec3_zero();
  return cl_vec3_scale(a, 1.0 / sqrt(n2));
}

/* Entry i of a structure-of-arrays position array laid out as a[3*i+0..2]. */
static inline cl_vec3 cl_vec3_load(const double *a, int32_t i) {
  const double *p = a + 3 * (int64_t)i;
  return cl_vec3_make(p[0], p[1], p[2]);
}

static inline void cl_vec3_store(double *a, int32_t i, cl_vec3 v) {
  double *p = a + 3 * (int64_t)i;
  p[0] = v.x;
  p[1] = v.y;
  p[2] = v.z;
}

/* Component k (0, 1, 2) of v. */
static inline double cl_vec3_get(cl_vec3 v, int k) { return k == 0 ? v.x : k == 1 ? v.y : v.z; }

static inline int cl_vec3_isfinite(cl_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

#endif
