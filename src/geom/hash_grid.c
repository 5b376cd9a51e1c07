/* Spatial hash grid: counting-sort build, chained dynamic inserts, fixed-radius queries. */
#include "geom/hash_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

/* Cell coordinates are kept well inside int32 so that neighbour offsets never overflow. */
static const double CELL_LIMIT = 1e9;

static uint32_t hash_cell(int32_t i, int32_t j, int32_t k, uint32_t mask) {
  /* the three large primes of Teschner et al. 2003 */
  return (((uint32_t)i * 73856093u) ^ ((uint32_t)j * 19349663u) ^ ((uint32_t)k * 83492791u)) & mask;
}

static uint32_t table_size_for(int32_t n) {
  uint32_t t = 64;
  while (t < 2u * (uint32_t)n && t < (1u << 30)) t <<= 1;
  return t;
}

static cl_status cell_of(const cl_hash_grid *g, const double *p, int32_t *c) {
  for (int k = 0; k < 3; ++k) {
    double f = floor(p[k] * g->inv_cell);
    if (!(fabs(f) < CELL_LIMIT))
      return cl_fail(CL_ERR_INVALID_ARGUMENT,
                     "hash grid: coordinate %g m is not finite or too far for cell size %g m (limit %g cells)", p[k],
                     g->cell, CELL_LIMIT);
    c[k] = (int32_t)f;
  }
  return CL_OK;
}

/* Grow the per-point arrays to `cap` and the table to match; contents are not kept. The static
 * (start) and dynamic (head, next) arrays are grown only for the mode in use. */
static cl_status ensure_capacity(cl_hash_grid *g, int32_t cap, int with_static) {
  if (cap < g->cap) cap = g->cap;
  uint32_t ts = table_size_for(cap);
  if (cap > g->cap || !g->id) {
    CL_TRY(CL_RESIZE(g->id, (size_t)cap, "hash grid point ids"));
    CL_TRY(CL_RESIZE(g->cellc, 3 * (size_t)cap, "hash grid point cells"));
    CL_TRY(CL_RESIZE(g->pos, 3 * (size_t)cap, "hash grid point positions"));
    if (g->bucket || with_static) CL_TRY(CL_RESIZE(g->bucket, (size_t)cap, "hash grid point buckets"));
    if (g->next || !with_static) CL_TRY(CL_RESIZE(g->next, (size_t)cap, "hash grid point chains"));
    g->cap = cap;
  }
  if (with_static && !g->bucket) CL_TRY(CL_RESIZE(g->bucket, (size_t)g->cap, "hash grid point buckets"));
  if (!with_static && !g->next) CL_TRY(CL_RESIZE(g->next, (size_t)g->cap, "hash grid point chains"));
  if (with_static && g->start_len < ts + 1u) {
    CL_TRY(CL_RESIZE(g->start, (size_t)ts + 1, "hash grid table"));
    g->start_len = ts + 1u;
  }
  if (!with_static && g->head_len < ts) {
    CL_TRY(CL_RESIZE(g->head, (size_t)ts, "hash grid table"));
    g->head_len = ts;
  }
  g->mask = ts - 1u;
  return CL_OK;
}

cl_status cl_hash_grid_build(cl_hash_grid *g, const double *xyz, int32_t n, double cell) {
  if (!g || (n > 0 && !xyz)) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_hash_grid_build: NULL argument");
  if (n < 0) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_hash_grid_build: n = %d < 0", n);
  if (!(cell > 0 && isfinite(cell)))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "hash grid cell size = %g m: must be finite and > 0", cell);
  g->dynamic = 0;
  g->n = 0;
  g->cell = cell;
  g->inv_cell = 1.0 / cell;
  CL_TRY(ensure_capacity(g, n > 0 ? n : 1, 1));
  uint32_t ts = g->mask + 1u;
  memset(g->start, 0, sizeof(int32_t) * ((size_t)ts + 1));
  /* pass 1: cell and bucket of every point, bucket counts */
  for (int32_t i = 0; i < n; ++i) {
    int32_t c[3] = {0, 0, 0};
    CL_TRY(cell_of(g, xyz + 3 * (size_t)i, c));
    uint32_t b = hash_cell(c[0], c[1], c[2], g->mask);
    g->bucket[i] = b;
    g->start[b + 1]++;
  }
  for (uint32_t b = 0; b < ts; ++b) g->start[b + 1] += g->start[b];
  /* pass 2: scatter, using start[b] as the cursor, then shift back */
  for (int32_t i = 0; i < n; ++i) {
    int32_t s = g->start[g->bucket[i]]++;
    const double *p = xyz + 3 * (size_t)i;
    g->id[s] = i;
    for (int k = 0; k < 3; ++k) {
      g->pos[3 * (size_t)s + k] = p[k];
      g->cellc[3 * (size_t)s + k] = (int32_t)floor(p[k] * g->inv_cell);
    }
  }
  for (uint32_t b = ts; b > 0; --b) g->start[b] = g->start[b - 1];
  g->start[0] = 0;
  g->n = n;
  return CL_OK;
}

cl_status cl_hash_grid_reset(cl_hash_grid *g, double cell, int32_t capacity) {
  if (!g) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_hash_grid_reset: NULL grid");
  if (!(cell > 0 && isfinite(cell)))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "hash grid cell size = %g m: must be finite and > 0", cell);
  if (capacity < 1) capacity = 1;
  g->dynamic = 1;
  g->n = 0;
  g->cell = cell;
  g->inv_cell = 1.0 / cell;
  CL_TRY(ensure_capacity(g, capacity, 0));
  for (uint32_t b = 0; b <= g->mask; ++b) g->head[b] = -1;
  return CL_OK;
}

cl_status cl_hash_grid_insert(cl_hash_grid *g, const double *p) {
  if (!g || !p || !g->dynamic)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_hash_grid_insert: NULL argument or grid not reset for inserts");
  int32_t c[3] = {0, 0, 0};
  CL_TRY(cell_of(g, p, c));
  if (g->n == g->cap) {
    if (g->cap > INT32_MAX / 2) return cl_fail(CL_ERR_OUT_OF_MEMORY, "hash grid: more than %d points", g->cap);
    uint32_t old_ts = g->mask + 1u;
    CL_TRY(ensure_capacity(g, 2 * g->cap, 0));
    if (g->mask + 1u != old_ts) { /* the table grew: re-chain every stored point */
      for (uint32_t b = 0; b <= g->mask; ++b) g->head[b] = -1;
      for (int32_t s = 0; s < g->n; ++s) {
        const int32_t *cs = g->cellc + 3 * (size_t)s;
        uint32_t b = hash_cell(cs[0], cs[1], cs[2], g->mask);
        g->next[s] = g->head[b];
        g->head[b] = s;
      }
    }
  }
  int32_t s = g->n++;
  uint32_t b = hash_cell(c[0], c[1], c[2], g->mask);
  g->id[s] = s;
  for (int k = 0; k < 3; ++k) {
    g->pos[3 * (size_t)s + k] = p[k];
    g->cellc[3 * (size_t)s + k] = c[k];
  }
  g->next[s] = g->head[b];
  g->head[b] = s;
  return CL_OK;
}

int cl_hash_grid_visit(const cl_hash_grid *g, const double *p, double r, int (*fn)(void *, int32_t, double), void *ctx) {
  if (!g || g->n == 0 || !(r >= 0)) return 0;
  double r2 = r * r;
  int32_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  double ncells = 1.0;
  for (int k = 0; k < 3; ++k) {
    double a = floor((p[k] - r) * g->inv_cell), b = floor((p[k] + r) * g->inv_cell);
    if (!(fabs(a) < CELL_LIMIT && fabs(b) < CELL_LIMIT)) {
      ncells = INFINITY; /* beyond the cell range (or NaN): fall back to the scan below */
      break;
    }
    lo[k] = (int32_t)a;
    hi[k] = (int32_t)b;
    ncells *= b - a + 1.0;
  }
  if (!(p[0] == p[0] && p[1] == p[1] && p[2] == p[2])) return 0;
  if (ncells > (double)g->n) { /* a radius much larger than the cells: scanning every point is cheaper */
    for (int32_t s = 0; s < g->n; ++s) {
      const double *q = g->pos + 3 * (size_t)s;
      double d2 = (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]);
      if (d2 <= r2) {
        int rc = fn(ctx, g->id[s], d2);
        if (rc) return rc;
      }
    }
    return 0;
  }
  for (int32_t i = lo[0]; i <= hi[0]; ++i)
    for (int32_t j = lo[1]; j <= hi[1]; ++j)
      for (int32_t k = lo[2]; k <= hi[2]; ++k) {
        uint32_t b = hash_cell(i, j, k, g->mask);
        /* A bucket may hold other cells that hash alike: compare cell coordinates so that each
         * point is reported once even when two cells of the query box share a bucket. */
        if (g->dynamic) {
          for (int32_t s = g->head[b]; s >= 0; s = g->next[s]) {
            const int32_t *cs = g->cellc + 3 * (size_t)s;
            if (cs[0] != i || cs[1] != j || cs[2] != k) continue;
            const double *q = g->pos + 3 * (size_t)s;
            double d2 = (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]);
            if (d2 <= r2) {
              int rc = fn(ctx, g->id[s], d2);
              if (rc) return rc;
            }
          }
        } else {
          for (int32_t s = g->start[b]; s < g->start[b + 1]; ++s) {
            const int32_t *cs = g->cellc + 3 * (size_t)s;
            if (cs[0] != i || cs[1] != j || cs[2] != k) continue;
            const double *q = g->pos + 3 * (size_t)s;
            double d2 = (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]);
            if (d2 <= r2) {
              int rc = fn(ctx, g->id[s], d2);
              if (rc) return rc;
            }
          }
        }
      }
  return 0;
}

typedef struct collect_ctx {
  int32_t *out;
  int32_t cap, n;
} collect_ctx;

static int collect(void *vctx, int32_t id, double d2) {
  (void)d2;
  collect_ctx *c = vctx;
  if (c->n < c->cap) c->out[c->n] = id;
  c->n++;
  return 0;
}

int32_t cl_hash_grid_query(const cl_hash_grid *g, const double *p, double r, int32_t *out, int32_t capacity) {
  collect_ctx c = {out, out ? capacity : 0, 0};
  cl_hash_grid_visit(g, p, r, collect, &c);
  return c.n;
}

static int stop_at_first(void *ctx, int32_t id, double d2) {
  (void)ctx;
  (void)id;
  (void)d2;
  return 1;
}

int cl_hash_grid_any_within(const cl_hash_grid *g, const double *p, double r) {
  return cl_hash_grid_visit(g, p, r, stop_at_first, NULL);
}

void cl_hash_grid_free(cl_hash_grid *g) {
  if (!g) return;
  free(g->start);
  free(g->head);
  free(g->next);
  free(g->id);
  free(g->cellc);
  free(g->pos);
  free(g->bucket);
  memset(g, 0, sizeof *g);
}
