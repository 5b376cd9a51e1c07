/* xoshiro256** with splitmix64 seeding; algorithms as published by Blackman and Vigna
 * (https://prng.di.unimi.it/), written here from their description. */
#include "base/rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void cl_rng_seed(cl_rng *r, uint64_t seed) {
  /* splitmix64 never yields four zero words in a row, so the xoshiro state is never all zero. */
  uint64_t x = seed;
  for (int i = 0; i < 4; ++i) r->s[i] = splitmix64(&x);
  r->spare = 0.0;
  r->has_spare = 0;
}

uint64_t cl_rng_u64(cl_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t cl_rng_below(cl_rng *r, uint64_t n) {
  if (n == 0) return 0;
  /* The high 64 bits of x * n are uniform in [0, n) once the low part is outside the biased
   * zone; 128-bit product split into 32-bit halves to stay within C11. */
  uint64_t threshold = (0 - n) % n; /* 2^64 mod n */
  for (;;) {
    uint64_t x = cl_rng_u64(r);
    uint64_t xl = x & 0xffffffffULL, xh = x >> 32, nl = n & 0xffffffffULL, nh = n >> 32;
    uint64_t ll = xl * nl, lh = xl * nh, hl = xh * nl, hh = xh * nh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffULL) + (hl & 0xffffffffULL);
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    uint64_t lo = (mid << 32) | (ll & 0xffffffffULL);
    if (lo >= threshold) return hi;
  }
}

double cl_rng_uniform(cl_rng *r) { return (double)(cl_rng_u64(r) >> 11) * 0x1.0p-53; }

double cl_rng_range(cl_rng *r, double lo, double hi) { return lo + (hi - lo) * cl_rng_uniform(r); }

double cl_rng_normal(cl_rng *r) {
  if (r->has_spare) {
    r->has_spare = 0;
    return r->spare;
  }
  double u, v, s;
  do {
    u = 2.0 * cl_rng_uniform(r) - 1.0;
    v = 2.0 * cl_rng_uniform(r) - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  double f = sqrt(-2.0 * log(s) / s);
  r->spare = v * f;
  r->has_spare = 1;
  return u * f;
}

cl_vec3 cl_rng_unit_vector(cl_rng *r) {
  for (;;) {
    cl_vec3 g = cl_vec3_make(cl_rng_normal(r), cl_rng_normal(r), cl_rng_normal(r));
    double n2 = cl_vec3_norm2(g);
    if (n2 > 1e-20) return cl_vec3_scale(g, 1.0 / sqrt(n2));
  }
}

cl_mat3 cl_rng_rotation(cl_rng *r) {
  /* A 4D standard Gaussian is rotation invariant, so its direction is a uniform unit quaternion,
   * and unit quaternions cover SO(3) twice with the Haar measure. */
  double w, x, y, z, n2;
  do {
    w = cl_rng_normal(r), x = cl_rng_normal(r), y = cl_rng_normal(r), z = cl_rng_normal(r);
    n2 = w * w + x * x + y * y + z * z;
  } while (n2 < 1e-20);
  double k = 1.0 / sqrt(n2);
  w *= k, x *= k, y *= k, z *= k;
  cl_mat3 R = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  return R;
}
