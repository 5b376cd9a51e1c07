#include "geom/morton.h"

#include <math.h>
#include <stdlib.h>

#include "base/error.h"

/* Spread the low 21 bits of v so that two zero bits separate each. */
static uint64_t spread21(uint64_t v) {
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffull;
  v = (v | v << 16) & 0x1f0000ff0000ffull;
  v = (v | v << 8) & 0x100f00f00f00f00full;
  v = (v | v << 4) & 0x10c30c30c30c30c3ull;
  v = (v | v << 2) & 0x1249249249249249ull;
  return v;
}

typedef struct keyed {
  uint64_t key;
  int32_t i;
} keyed;

static int by_key(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

cl_status cl_morton_order(const double *xyz, int32_t n, int32_t *order) {
  if (n <= 0) return CL_OK;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int32_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      lo[k] = fmin(lo[k], xyz[3 * (size_t)i + k]);
      hi[k] = fmax(hi[k], xyz[3 * (size_t)i + k]);
    }
  const double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  const double q = ext > 0.0 ? 2097151.0 / ext : 0.0;
  keyed *kv = malloc(sizeof *kv * (size_t)n);
  if (!kv) return cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory ordering %d points along a Z-order curve", n);
  for (int32_t i = 0; i < n; ++i) {
    uint64_t c[3];
    for (int k = 0; k < 3; ++k) {
      const double t = (xyz[3 * (size_t)i + k] - lo[k]) * q; /* NaN when the extent overflowed: no order then */
      c[k] = t >= 0.0 && t <= 2097151.0 ? (uint64_t)t : 0;
    }
    kv[i].key = spread21(c[0]) | spread21(c[1]) << 1 | spread21(c[2]) << 2;
    kv[i].i = i;
  }
  qsort(kv, (size_t)n, sizeof *kv, by_key);
  for (int32_t j = 0; j < n; ++j) order[j] = kv[j].i;
  free(kv);
  return CL_OK;
}
