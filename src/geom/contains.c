/* Inside tests: exact and BVH-accelerated generalised winding numbers. */
#include "geom/contains.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/bvh.h"

static const double FOUR_PI = 12.566370614359172953850573533118;

static cl_status check_surface(const cl_mesh *s, const char *fn) {
  if (!s) return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: surface is NULL", fn);
  if (s->kind != CL_MESH_TRIANGLES)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: the mesh holds %s, a triangle surface is needed", fn,
                   s->kind == CL_MESH_TETS ? "tets" : "points");
  if (s->ncells < 1) return cl_fail(CL_ERR_MESH, "%s: the surface has no triangles", fn);
  return CL_OK;
}

double cl_surface_winding_number(const cl_mesh *s, const double *p) {
  double omega = 0.0;
  for (int32_t t = 0; t < s->ncells; ++t) {
    const int32_t *v = s->cells + 3 * (size_t)t;
    omega += cl_triangle_solid_angle(s->x + 3 * (size_t)v[0], s->x + 3 * (size_t)v[1], s->x + 3 * (size_t)v[2], p);
  }
  return omega / FOUR_PI;
}

cl_status cl_mesh_contains(const cl_mesh *surface, const double *p, int32_t *inside) {
  if (!p || !inside) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_contains: NULL argument");
  *inside = 0;
  CL_TRY(check_surface(surface, "cl_mesh_contains"));
  if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_contains: point (%g, %g, %g) is not finite", p[0], p[1], p[2]);
  *inside = cl_surface_winding_number(surface, p) > 0.5;
  return CL_OK;
}

/* A grid of cells over the root box of the BVH (slightly enlarged so boundary points fall inside). */
typedef struct cell_grid {
  double lo[3], h, inv_h;
  int32_t n[3];
} cell_grid;

static void grid_setup(const cl_bvh *bvh, double target_cells, double cell, cell_grid *g) {
  const cl_bvh_node *root = &bvh->nodes[0];
  double ext[3], diag = 0.0;
  for (int k = 0; k < 3; ++k) {
    ext[k] = root->hi[k] - root->lo[k];
    diag += ext[k] * ext[k];
  }
  diag = sqrt(diag);
  double pad = 1e-9 * diag;
  double vol = 1.0;
  for (int k = 0; k < 3; ++k) {
    ext[k] += 2 * pad;
    vol *= fmax(ext[k], 1e-3 * diag);
  }
  /* cell edge: the caller's, or the one that gives about target_cells cells; never more than
   * 2^22 cells (4 MB of state), never finer than a millionth of the model */
  double h = cell > 0 ? cell : cbrt(vol / fmax(target_cells, 1.0));
  h = fmax(h, 1e-6 * diag);
  while ((ceil(ext[0] / h) + 1) * (ceil(ext[1] / h) + 1) * (ceil(ext[2] / h) + 1) > 4194304.0) h *= 1.25;
  for (int k = 0; k < 3; ++k) {
    g->lo[k] = root->lo[k] - pad;
    /* the loop above bounds the count; an extent that overflowed (coordinates near +-1e308) gives NaN,
     * which must not reach the int cast */
    const double nk = ceil(ext[k] / h);
    g->n[k] = nk >= 1.0 && nk <= 4194304.0 ? (int32_t)nk : 1;
  }
  g->h = h;
  g->inv_h = 1.0 / h;
}

/* Cell index of p, or -1 outside the grid. */
static int64_t grid_cell(const cell_grid *g, const double *p) {
  int64_t idx[3];
  for (int k = 0; k < 3; ++k) {
    double f = floor((p[k] - g->lo[k]) * g->inv_h);
    if (!(f >= 0 && f < g->n[k])) return -1;
    idx[k] = (int64_t)f;
  }
  return (idx[2] * g->n[1] + idx[1]) * g->n[0] + idx[0];
}

/* state[c] = 1 for every cell that the bounding box of some triangle touches. */
static void mark_surface_cells(const cl_bvh *bvh, const cell_grid *g, uint8_t *state) {
  double pad = 1e-6 * g->h;
  for (int32_t t = 0; t < bvh->ntris; ++t) {
    const int32_t *v = bvh->tris + 3 * (size_t)t;
    int32_t lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
      double a = fmin(fmin(bvh->x[3 * v[0] + k], bvh->x[3 * v[1] + k]), bvh->x[3 * v[2] + k]) - pad;
      double b = fmax(fmax(bvh->x[3 * v[0] + k], bvh->x[3 * v[1] + k]), bvh->x[3 * v[2] + k]) + pad;
      lo[k] = (int32_t)fmax(0.0, floor((a - g->lo[k]) * g->inv_h));
      hi[k] = (int32_t)fmin((double)g->n[k] - 1, floor((b - g->lo[k]) * g->inv_h));
    }
    for (int32_t k = lo[2]; k <= hi[2]; ++k)
      for (int32_t j = lo[1]; j <= hi[1]; ++j)
        for (int32_t i = lo[0]; i <= hi[0]; ++i) state[((size_t)k * g->n[1] + j) * g->n[0] + i] = 1;
  }
}

/* Closed surfaces: give every cell not touched by the surface the state (2 inside, 3 outside) of
 * its face-connected region. Two face-neighbours that the surface touches neither of are joined by
 * a segment the surface does not cross, so they lie on the same side. */
static cl_status flood_fill_cells(const cl_bvh *bvh, const cell_grid *g, uint8_t *state) {
  size_t ncell = (size_t)g->n[0] * g->n[1] * g->n[2];
  int32_t *queue = cl_malloc(sizeof(int32_t) * ncell, "flood fill queue");
  if (!queue) return CL_ERR_OUT_OF_MEMORY;
  const int64_t nx = g->n[0], ny = g->n[1], nz = g->n[2];
  for (size_t seed = 0; seed < ncell; ++seed) {
    if (state[seed] != 0) continue;
    int64_t si = (int64_t)seed % nx, sj = ((int64_t)seed / nx) % ny, sk = (int64_t)seed / (nx * ny);
    double p[3] = {g->lo[0] + (si + 0.5) * g->h, g->lo[1] + (sj + 0.5) * g->h, g->lo[2] + (sk + 0.5) * g->h};
    uint8_t label = cl_bvh_winding_number(bvh, p, CL_WINDING_BETA) > 0.5 ? 2 : 3;
    size_t head = 0, tail = 0;
    state[seed] = label;
    queue[tail++] = (int32_t)seed;
    while (head < tail) {
      int64_t c = queue[head++];
      int64_t i = c % nx, j = (c / nx) % ny, k = c / (nx * ny);
      int64_t nb[6] = {i > 0 ? c - 1 : -1, i + 1 < nx ? c + 1 : -1, j > 0 ? c - nx : -1, j + 1 < ny ? c + nx : -1,
                       k > 0 ? c - nx * ny : -1, k + 1 < nz ? c + nx * ny : -1};
      for (int q = 0; q < 6; ++q)
        if (nb[q] >= 0 && state[nb[q]] == 0) {
          state[nb[q]] = label;
          queue[tail++] = (int32_t)nb[q];
        }
    }
  }
  free(queue);
  return CL_OK;
}

cl_status cl_bvh_classify(const cl_bvh *bvh, int closed, const double *pts, int32_t n, uint8_t *inside) {
  if (n <= 0) return CL_OK;
  cell_grid g;
  /* closed: about one point per cell keeps the crossed shell thin, and the rest costs nothing;
   * otherwise about 8 points share each evaluation */
  grid_setup(bvh, closed ? n : n / 8.0, 0.0, &g);
  size_t ncell = (size_t)g.n[0] * g.n[1] * g.n[2];
  int32_t *start = cl_calloc(ncell + 1, sizeof(int32_t), "inside test cells");
  int32_t *order = cl_malloc(sizeof(int32_t) * (size_t)n, "inside test cells");
  int64_t *cell = cl_malloc(sizeof(int64_t) * (size_t)n, "inside test cells");
  uint8_t *state = cl_calloc(ncell, 1, "inside test cells");
  cl_status st = CL_OK;
  if (!start || !order || !cell || !state) {
    st = CL_ERR_OUT_OF_MEMORY;
    goto done;
  }
  mark_surface_cells(bvh, &g, state);
  if (closed) {
    st = flood_fill_cells(bvh, &g, state);
    if (st < 0) goto done;
  }
  /* counting sort of the points by cell; points outside the grid are outside the surface */
  for (int32_t i = 0; i < n; ++i) {
    cell[i] = grid_cell(&g, pts + 3 * (size_t)i);
    if (cell[i] < 0) inside[i] = 0;
    else start[cell[i] + 1]++;
  }
  for (size_t c = 0; c < ncell; ++c) start[c + 1] += start[c];
  for (int32_t i = 0; i < n; ++i)
    if (cell[i] >= 0) order[start[cell[i]]++] = i;
  for (size_t c = ncell; c > 0; --c) start[c] = start[c - 1];
  start[0] = 0;
  int64_t nc = (int64_t)ncell;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64)
#endif
  for (int64_t c = 0; c < nc; ++c) {
    int32_t s0 = start[c], s1 = start[c + 1];
    if (s0 == s1) continue;
    if (state[c] == 1) {
      for (int32_t s = s0; s < s1; ++s)
        inside[order[s]] = cl_bvh_winding_number(bvh, pts + 3 * (size_t)order[s], CL_WINDING_BETA) > 0.5;
    } else {
      uint8_t in = state[c] == 2 ? 1
                   : state[c] == 3 ? 0
                                   : cl_bvh_winding_number(bvh, pts + 3 * (size_t)order[s0], CL_WINDING_BETA) > 0.5;
      for (int32_t s = s0; s < s1; ++s) inside[order[s]] = in;
    }
  }
done:
  free(start);
  free(order);
  free(cell);
  free(state);
  return st;
}

cl_status cl_inside_cache_init(cl_inside_cache *c, const cl_bvh *bvh, int closed, double cell) {
  memset(c, 0, sizeof *c);
  cell_grid g;
  grid_setup(bvh, 0.0, cell, &g);
  size_t ncell = (size_t)g.n[0] * g.n[1] * g.n[2];
  c->state = cl_calloc(ncell, 1, "inside test cache");
  if (!c->state) return CL_ERR_OUT_OF_MEMORY;
  mark_surface_cells(bvh, &g, c->state);
  if (closed) {
    cl_status st = flood_fill_cells(bvh, &g, c->state);
    if (st < 0) {
      cl_inside_cache_free(c);
      return st;
    }
  }
  c->bvh = bvh;
  memcpy(c->lo, g.lo, sizeof c->lo);
  memcpy(c->n, g.n, sizeof c->n);
  c->h = g.h;
  return CL_OK;
}

int cl_inside_cache_test(cl_inside_cache *c, const double *p) {
  cell_grid g;
  memcpy(g.lo, c->lo, sizeof g.lo);
  memcpy(g.n, c->n, sizeof g.n);
  g.h = c->h;
  g.inv_h = 1.0 / c->h;
  int64_t cell = grid_cell(&g, p);
  if (cell < 0) return 0;
  uint8_t st = c->state[cell];
  if (st == 1) return cl_bvh_winding_number(c->bvh, p, CL_WINDING_BETA) > 0.5;
  if (st == 0) {
    st = cl_bvh_winding_number(c->bvh, p, CL_WINDING_BETA) > 0.5 ? 2 : 3;
    c->state[cell] = st;
  }
  return st == 2;
}

void cl_inside_cache_free(cl_inside_cache *c) {
  if (!c) return;
  free(c->state);
  memset(c, 0, sizeof *c);
}

int cl_surface_is_closed(const cl_mesh *surface) {
  int closed = cl_mesh_check_closed(surface) == CL_OK;
  if (!closed) cl_clear_error();
  return closed;
}

cl_status cl_surface_contains_many(const cl_mesh *surface, const double *pts, int32_t n, uint8_t *inside) {
  CL_TRY(check_surface(surface, "cl_surface_contains_many"));
  if (n < 0 || (n > 0 && (!pts || !inside)))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_surface_contains_many: NULL array or negative count %d", n);
  for (int32_t i = 0; i < n; ++i) {
    const double *p = pts + 3 * (size_t)i;
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_surface_contains_many: point %d (%g, %g, %g) is not finite", i, p[0],
                     p[1], p[2]);
  }
  if (n == 0) return CL_OK;
  cl_bvh bvh;
  CL_TRY(cl_bvh_build(surface->x, surface->cells, surface->ncells, 1, &bvh));
  cl_status st = cl_bvh_classify(&bvh, cl_surface_is_closed(surface), pts, n, inside);
  cl_bvh_free(&bvh);
  return st;
}
