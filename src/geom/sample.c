/* Particle sampling inside a closed surface: a cell-centred grid, or Bridson's Poisson disk
 * ("Fast Poisson disk sampling in arbitrary dimensions", SIGGRAPH 2007 sketches), both classified
 * with the fast generalised winding number (geom/bvh.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/progress.h"
#include "geom/bvh.h"
#include "geom/contains.h"
#include "geom/hash_grid.h"
#include "geom/mesh.h"

/* Above this many samples the request is almost surely a unit mistake (mm given as m). */
static const double MAX_SAMPLES = 5e7;
/* Cap on the bounding-box lattice a grid sampling walks through (the inside test costs per point). */
static const double MAX_LATTICE = 4e8;

void cl_sample_def_default(cl_sample_def *def) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->method = CL_SAMPLE_GRID;
  def->spacing = 0.01;
  def->seed = 1;
  def->attempts = 30;
}

/* splitmix64 (Steele, Lea & Flood 2014): a small, well-mixed generator, enough for sampling. */
static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double rng_uniform(uint64_t *s) { return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0); }

typedef struct point_buf {
  double *x;
  size_t n, cap;
} point_buf;

static cl_status push_point(point_buf *b, const double *p) {
  if (b->n >= (size_t)INT32_MAX) return cl_fail(CL_ERR_INVALID_ARGUMENT, "sampling produced more than 2^31 points");
  if (cl_reserve((void **)&b->x, &b->cap, 3 * (b->n + 1), sizeof(double))) return CL_ERR_OUT_OF_MEMORY;
  memcpy(b->x + 3 * b->n, p, 3 * sizeof(double));
  b->n++;
  return CL_OK;
}

/* Cell-centred lattice of step h over the bounding box, centred on it, classified slab by slab. */
typedef struct lattice {
  double origin[3], h;
  int32_t n[3];
} lattice;

static void lattice_point(const lattice *L, int32_t i, int32_t j, int32_t k, double *p) {
  p[0] = L->origin[0] + (i + 0.5) * L->h;
  p[1] = L->origin[1] + (j + 0.5) * L->h;
  p[2] = L->origin[2] + (k + 0.5) * L->h;
}

/* Classify the lattice a chunk of z-slabs at a time (about 2^20 points per chunk) and keep the
 * inside points in lattice order. */
static cl_status inside_lattice(const cl_bvh *bvh, int closed, const lattice *L, point_buf *out,
                                cl_progress *progress) {
  size_t slab = (size_t)L->n[0] * L->n[1];
  int32_t per_chunk = (int32_t)fmax(1.0, floor(1048576.0 / (double)slab));
  if (per_chunk > L->n[2]) per_chunk = L->n[2];
  size_t cap = slab * (size_t)per_chunk;
  double *p = cl_malloc(sizeof(double) * 3 * cap, "grid sampling");
  uint8_t *in = cl_malloc(cap, "grid sampling");
  cl_status st = CL_OK;
  if (!p || !in) st = CL_ERR_OUT_OF_MEMORY;
  for (int32_t k0 = 0; k0 < L->n[2] && st >= 0; k0 += per_chunk) {
    int32_t k1 = k0 + per_chunk < L->n[2] ? k0 + per_chunk : L->n[2];
    size_t m = 0;
    for (int32_t k = k0; k < k1; ++k)
      for (int32_t j = 0; j < L->n[1]; ++j)
        for (int32_t i = 0; i < L->n[0]; ++i) lattice_point(L, i, j, k, p + 3 * m++);
    st = cl_bvh_classify(bvh, closed, p, (int32_t)m, in);
    if (progress) cl_progress_update(progress, (double)k1 * (double)slab, (double)L->n[2] * (double)slab, "lattice points");
    for (size_t q = 0; q < m && st >= 0; ++q)
      if (in[q]) st = push_point(out, p + 3 * q);
  }
  free(p);
  free(in);
  return st;
}

static cl_status make_lattice(const double *lo, const double *hi, double h, lattice *L) {
  double count = 1.0;
  for (int k = 0; k < 3; ++k) {
    double ext = hi[k] - lo[k];
    double n = ceil(ext / h);
    if (n < 1) n = 1;
    count *= n;
    if (!(count <= MAX_LATTICE))
      return cl_fail(CL_ERR_INVALID_ARGUMENT,
                     "sampling spacing = %g m: the bounding box (%g x %g x %g m) would need a lattice of more than %g "
                     "points",
                     h, hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], MAX_LATTICE);
    L->n[k] = (int32_t)n;
    L->origin[k] = 0.5 * (lo[k] + hi[k]) - 0.5 * n * h;
  }
  L->h = h;
  return CL_OK;
}

typedef struct poisson {
  cl_inside_cache inside;
  cl_hash_grid grid;
  point_buf pts;
  int32_t *active;
  size_t nactive, cap_active;
  double r, lo[3], hi[3];
  int32_t attempts;
  uint64_t rng;
  cl_progress *progress; /* the caller's progress line (cl_set_progress) */
  double estimate;       /* about how many points the run makes, for the progress line */
} poisson;

static cl_status poisson_add(poisson *P, const double *p) {
  CL_TRY(push_point(&P->pts, p));
  CL_TRY(cl_hash_grid_insert(&P->grid, p));
  if (cl_reserve((void **)&P->active, &P->cap_active, P->nactive + 1, sizeof(int32_t))) return CL_ERR_OUT_OF_MEMORY;
  P->active[P->nactive++] = (int32_t)(P->pts.n - 1);
  return CL_OK;
}

/* Bridson's loop: pick a random active sample, try `attempts` candidates uniformly distributed in
 * the spherical shell r..2r around it; accept the first that is inside the surface and farther than
 * r from every sample; retire the active sample when all attempts fail. */
static cl_status poisson_run(poisson *P) {
  const double r = P->r;
  for (uint32_t round = 0; P->nactive > 0; ++round) {
    if ((round & 4095u) == 0) cl_progress_update(P->progress, (double)P->pts.n, P->estimate, "points");
    size_t a = (size_t)(rng_uniform(&P->rng) * (double)P->nactive);
    if (a >= P->nactive) a = P->nactive - 1;
    double c[3];
    memcpy(c, P->pts.x + 3 * (size_t)P->active[a], sizeof c);
    int accepted = 0;
    for (int32_t t = 0; t < P->attempts && !accepted; ++t) {
      /* uniform direction (Marsaglia-free: normalised z and azimuth), radius uniform in volume */
      double z = 2.0 * rng_uniform(&P->rng) - 1.0, phi = 6.283185307179586 * rng_uniform(&P->rng);
      double s = sqrt(fmax(0.0, 1.0 - z * z));
      double rad = r * cbrt(1.0 + 7.0 * rng_uniform(&P->rng)); /* r^3 .. (2r)^3 uniformly */
      double q[3] = {c[0] + rad * s * cos(phi), c[1] + rad * s * sin(phi), c[2] + rad * z};
      if (q[0] < P->lo[0] || q[0] > P->hi[0] || q[1] < P->lo[1] || q[1] > P->hi[1] || q[2] < P->lo[2] || q[2] > P->hi[2])
        continue;
      if (cl_hash_grid_any_within(&P->grid, q, r)) continue;
      if (!cl_inside_cache_test(&P->inside, q)) continue;
      CL_TRY(poisson_add(P, q));
      accepted = 1;
    }
    if (!accepted) P->active[a] = P->active[--P->nactive];
  }
  return CL_OK;
}

static cl_status sample_poisson(const cl_bvh *bvh, int closed, const double *lo, const double *hi,
                                const cl_sample_def *def, double estimate, cl_progress *progress, point_buf *out) {
  /* Seeds: the inside points of a lattice of step r. Bridson's front grows from one seed through
   * connected space; restarting from every seed not yet covered reaches disconnected parts too. */
  lattice L;
  CL_TRY(make_lattice(lo, hi, def->spacing, &L));
  point_buf seeds = {0};
  CL_TRY(inside_lattice(bvh, closed, &L, &seeds, NULL));
  poisson P;
  memset(&P, 0, sizeof P);
  P.r = def->spacing;
  P.attempts = def->attempts;
  P.rng = def->seed;
  P.progress = progress;
  P.estimate = estimate;
  memcpy(P.lo, lo, sizeof P.lo);
  memcpy(P.hi, hi, sizeof P.hi);
  cl_status st = cl_inside_cache_init(&P.inside, bvh, closed, def->spacing);
  if (st >= 0) st = cl_hash_grid_reset(&P.grid, def->spacing, (int32_t)(seeds.n > 16 ? seeds.n : 16));
  if (st >= 0 && seeds.n > 0) {
    size_t first = (size_t)(rng_uniform(&P.rng) * (double)seeds.n);
    if (first >= seeds.n) first = seeds.n - 1;
    st = poisson_add(&P, seeds.x + 3 * first);
    if (st >= 0) st = poisson_run(&P);
    for (size_t i = 0; i < seeds.n && st >= 0; ++i) {
      const double *q = seeds.x + 3 * i;
      if (cl_hash_grid_any_within(&P.grid, q, P.r)) continue;
      st = poisson_add(&P, q);
      if (st >= 0) st = poisson_run(&P);
    }
  }
  free(seeds.x);
  free(P.active);
  cl_inside_cache_free(&P.inside);
  cl_hash_grid_free(&P.grid);
  if (st < 0) {
    free(P.pts.x);
    return st;
  }
  *out = P.pts;
  return CL_OK;
}

cl_status cl_mesh_sample(const cl_mesh *surface, const cl_sample_def *def, cl_mesh **points_out) {
  if (!points_out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_sample: points_out is NULL");
  *points_out = NULL;
  if (!surface || !def) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_sample: NULL surface or def");
  if (surface->kind != CL_MESH_TRIANGLES)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_sample: the mesh holds %s, a closed triangle surface is needed",
                   surface->kind == CL_MESH_TETS ? "tets" : "points");
  if (def->method != CL_SAMPLE_GRID && def->method != CL_SAMPLE_POISSON)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "sampling method = %d: must be 0 (grid) or 1 (Poisson disk)", (int)def->method);
  if (!(def->spacing > 0 && isfinite(def->spacing)))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "sampling spacing = %g m: must be finite and > 0", def->spacing);
  if (def->method == CL_SAMPLE_POISSON && (def->attempts < 1 || def->attempts > 1000))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "Poisson attempts = %d: must be in [1, 1000] (Bridson uses 30)", def->attempts);
  cl_mesh_info info;
  CL_TRY(cl_mesh_get_info(surface, &info));
  if (surface->ncells < 4 || !(info.measure > 0))
    return cl_fail(CL_ERR_MESH,
                   "cl_mesh_sample: the surface encloses a volume of %g m^3 (%d triangles); it must be closed and "
                   "counter-clockwise seen from outside",
                   info.measure, surface->ncells);
  for (int k = 0; k < 3; ++k)
    if (!isfinite(info.lo[k]) || !isfinite(info.hi[k]))
      return cl_fail(CL_ERR_MESH, "cl_mesh_sample: the surface has non-finite coordinates");
  /* a grid gives V / h^3 points; a maximal Poisson-disk set of radius r about 0.7 V / r^3, so
   * V / r^3 bounds both */
  double estimate = info.measure / (def->spacing * def->spacing * def->spacing);
  if (!(estimate <= MAX_SAMPLES))
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "sampling spacing = %g m would give about %.3g samples for a volume of %g m^3 (limit %.0e); "
                   "is the spacing in metres?",
                   def->spacing, estimate, info.measure, MAX_SAMPLES);
  cl_bvh bvh;
  CL_TRY(cl_bvh_build(surface->x, surface->cells, surface->ncells, 1, &bvh));
  point_buf pts = {0};
  cl_status st;
  int closed = cl_surface_is_closed(surface);
  cl_progress progress;
  cl_progress_begin(&progress, def->method == CL_SAMPLE_GRID ? "grid sampling" : "Poisson sampling");
  if (def->method == CL_SAMPLE_GRID) {
    lattice L;
    st = make_lattice(info.lo, info.hi, def->spacing, &L);
    if (st >= 0) st = inside_lattice(&bvh, closed, &L, &pts, &progress);
  } else {
    /* a maximal Poisson-disk set of radius r holds about 0.7 V / r^3 points */
    st = sample_poisson(&bvh, closed, info.lo, info.hi, def, 0.7 * estimate, &progress, &pts);
  }
  if (st >= 0) {
    char summary[64];
    snprintf(summary, sizeof summary, "%zu points", pts.n);
    cl_progress_end(&progress, summary);
  }
  cl_bvh_free(&bvh);
  if (st >= 0 && pts.n == 0)
    st = cl_fail(CL_ERR_INVALID_ARGUMENT,
                 "sampling spacing = %g m is too coarse: no sample falls inside the surface (bounding box %g x %g x %g m)",
                 def->spacing, info.hi[0] - info.lo[0], info.hi[1] - info.lo[1], info.hi[2] - info.lo[2]);
  if (st >= 0) st = cl_mesh_from_arrays(CL_MESH_POINTS, pts.x, (int32_t)pts.n, NULL, 0, points_out);
  free(pts.x);
  return st;
}
