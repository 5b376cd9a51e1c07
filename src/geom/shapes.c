/* Procedural shapes: closed, outward-oriented, edge-manifold triangle surfaces in metres, centred at
 * the origin. Prisms (box, plate, Charpy specimen, notched beam) are extrusions of a 2D profile in
 * the xy plane along z; the cylinder and spheres are built directly; the heart is an implicit
 * surface onto which an icosphere is projected radially. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/mesh.h"

static const double PI = 3.14159265358979323846;

/* ---- a growable triangle soup ---------------------------------------------------------------- */

typedef struct builder {
  double *x;
  int32_t *t;
  size_t np, nt, capp, capt;
  cl_status st; /* first failure; later calls do nothing */
} builder;

static int32_t add_point(builder *b, double x, double y, double z) {
  if (b->st < 0) return 0;
  if (b->np >= (size_t)INT32_MAX) {
    b->st = cl_fail(CL_ERR_INVALID_ARGUMENT, "shape has too many points");
    return 0;
  }
  if (cl_reserve((void **)&b->x, &b->capp, 3 * (b->np + 1), sizeof(double))) {
    b->st = CL_ERR_OUT_OF_MEMORY;
    return 0;
  }
  b->x[3 * b->np] = x;
  b->x[3 * b->np + 1] = y;
  b->x[3 * b->np + 2] = z;
  return (int32_t)b->np++;
}

static void add_tri(builder *b, int32_t i, int32_t j, int32_t k) {
  if (b->st < 0) return;
  if (cl_reserve((void **)&b->t, &b->capt, 3 * (b->nt + 1), sizeof(int32_t))) {
    b->st = CL_ERR_OUT_OF_MEMORY;
    return;
  }
  b->t[3 * b->nt] = i;
  b->t[3 * b->nt + 1] = j;
  b->t[3 * b->nt + 2] = k;
  b->nt++;
}

static cl_status builder_finish(builder *b, cl_mesh **out) {
  cl_status st = b->st;
  if (st >= 0) st = cl_mesh_from_arrays(CL_MESH_TRIANGLES, b->x, (int32_t)b->np, b->t, (int32_t)b->nt, out);
  free(b->x);
  free(b->t);
  memset(b, 0, sizeof *b);
  return st;
}

/* ---- a uint64 -> int32 hash map (open addressing), for shared edge vertices ------------------- */

typedef struct edge_map {
  uint64_t *key;
  int32_t *val;
  size_t cap, n; /* cap is a power of two */
} edge_map;

static const uint64_t EMPTY_KEY = ~(uint64_t)0;

static cl_status edge_map_init(edge_map *m, size_t expect) {
  m->cap = 64;
  while (m->cap < 2 * expect) m->cap <<= 1;
  m->n = 0;
  m->key = cl_malloc(sizeof(uint64_t) * m->cap, "edge map");
  m->val = cl_malloc(sizeof(int32_t) * m->cap, "edge map");
  if (!m->key || !m->val) {
    free(m->key);
    free(m->val);
    return CL_ERR_OUT_OF_MEMORY;
  }
  for (size_t i = 0; i < m->cap; ++i) m->key[i] = EMPTY_KEY;
  return CL_OK;
}

static void edge_map_free(edge_map *m) {
  free(m->key);
  free(m->val);
  memset(m, 0, sizeof *m);
}

static size_t edge_slot(const edge_map *m, uint64_t k) {
  uint64_t h = k * 0x9E3779B97F4A7C15ull; /* Fibonacci hashing */
  size_t i = (size_t)(h >> 17) & (m->cap - 1);
  while (m->key[i] != EMPTY_KEY && m->key[i] != k) i = (i + 1) & (m->cap - 1);
  return i;
}

/* The value stored for k, or -1. */
static int32_t edge_map_get(const edge_map *m, uint64_t k) {
  size_t i = edge_slot(m, k);
  return m->key[i] == k ? m->val[i] : -1;
}

static cl_status edge_map_put(edge_map *m, uint64_t k, int32_t v) {
  if (2 * (m->n + 1) > m->cap) {
    edge_map bigger;
    CL_TRY(edge_map_init(&bigger, m->cap));
    for (size_t i = 0; i < m->cap; ++i)
      if (m->key[i] != EMPTY_KEY) {
        size_t j = edge_slot(&bigger, m->key[i]);
        bigger.key[j] = m->key[i];
        bigger.val[j] = m->val[i];
        bigger.n++;
      }
    edge_map_free(m);
    *m = bigger;
  }
  size_t i = edge_slot(m, k);
  if (m->key[i] != k) m->n++;
  m->key[i] = k;
  m->val[i] = v;
  return CL_OK;
}

static uint64_t edge_key(int64_t a, int64_t b) {
  return a < b ? ((uint64_t)a << 32) | (uint64_t)b : ((uint64_t)b << 32) | (uint64_t)a;
}

/* ---- extrusion of a simple polygon ----------------------------------------------------------- */

static double cross2(const double *o, const double *a, const double *b) {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/* Triangulate a simple counter-clockwise polygon (2 doubles per vertex) by ear clipping (O(n^2),
 * fine for profiles of a few hundred points). Writes n - 2 triangles of local indices. */
static cl_status ear_clip(const double *p, int32_t n, int32_t *tri) {
  int32_t *idx = cl_malloc(sizeof(int32_t) * (size_t)n, "ear clipping");
  if (!idx) return CL_ERR_OUT_OF_MEMORY;
  for (int32_t i = 0; i < n; ++i) idx[i] = i;
  int32_t m = n, nt = 0, guard = 0;
  while (m > 3) {
    int found = 0;
    for (int32_t i = 0; i < m && !found; ++i) {
      int32_t ia = idx[(i + m - 1) % m], ib = idx[i], ic = idx[(i + 1) % m];
      const double *a = p + 2 * ia, *b = p + 2 * ib, *c = p + 2 * ic;
      if (cross2(a, b, c) <= 0) continue; /* reflex or flat corner: not an ear */
      int empty = 1;
      for (int32_t j = 0; j < m && empty; ++j) {
        int32_t iv = idx[j];
        if (iv == ia || iv == ib || iv == ic) continue;
        const double *q = p + 2 * iv;
        if (cross2(a, b, q) >= 0 && cross2(b, c, q) >= 0 && cross2(c, a, q) >= 0) empty = 0;
      }
      if (!empty) continue;
      tri[3 * nt] = ia;
      tri[3 * nt + 1] = ib;
      tri[3 * nt + 2] = ic;
      ++nt;
      memmove(idx + i, idx + i + 1, sizeof(int32_t) * (size_t)(m - i - 1));
      --m;
      found = 1;
    }
    if (!found || ++guard > n) {
      free(idx);
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "shape profile is not a simple polygon (ear clipping found no ear)");
    }
  }
  tri[3 * nt] = idx[0];
  tri[3 * nt + 1] = idx[1];
  tri[3 * nt + 2] = idx[2];
  free(idx);
  return CL_OK;
}

/* Extrude the counter-clockwise profile p (n points in xy) over z in [-depth/2, depth/2]. */
static cl_status extrude(const double *p, int32_t n, double depth, cl_mesh **out) {
  double area2 = 0.0;
  for (int32_t i = 0; i < n; ++i) {
    const double *a = p + 2 * i, *c = p + 2 * ((i + 1) % n);
    area2 += a[0] * c[1] - a[1] * c[0];
  }
  if (!(area2 > 0)) return cl_fail(CL_ERR_INVALID_ARGUMENT, "shape profile has no positive area (%g m^2)", 0.5 * area2);
  int32_t *cap = cl_malloc(sizeof(int32_t) * 3 * (size_t)(n - 2), "extrusion caps");
  if (!cap) return CL_ERR_OUT_OF_MEMORY;
  cl_status st = ear_clip(p, n, cap);
  if (st < 0) {
    free(cap);
    return st;
  }
  builder b = {0};
  double h = 0.5 * depth;
  for (int32_t i = 0; i < n; ++i) add_point(&b, p[2 * i], p[2 * i + 1], -h); /* back: 0..n-1 */
  for (int32_t i = 0; i < n; ++i) add_point(&b, p[2 * i], p[2 * i + 1], h);  /* front: n..2n-1 */
  for (int32_t t = 0; t < n - 2; ++t) {
    add_tri(&b, n + cap[3 * t], n + cap[3 * t + 1], n + cap[3 * t + 2]); /* front faces +z */
    add_tri(&b, cap[3 * t], cap[3 * t + 2], cap[3 * t + 1]);             /* back faces -z */
  }
  for (int32_t i = 0; i < n; ++i) {
    int32_t j = (i + 1) % n;
    /* the interior is left of the edge i -> j, so (back i, back j, front j) faces outward */
    add_tri(&b, i, j, n + j);
    add_tri(&b, i, n + j, n + i);
  }
  free(cap);
  return builder_finish(&b, out);
}

/* ---- shapes ---------------------------------------------------------------------------------- */

static cl_status check_size3(const char *what, const double *size) {
  for (int k = 0; k < 3; ++k)
    if (!(size[k] > 0 && isfinite(size[k])))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s size[%d] = %g m: must be finite and > 0", what, k, size[k]);
  return CL_OK;
}

static cl_status build_box(const double *size, const char *what, cl_mesh **out) {
  CL_TRY(check_size3(what, size));
  double hx = 0.5 * size[0], hy = 0.5 * size[1];
  double p[8] = {-hx, -hy, hx, -hy, hx, hy, -hx, hy};
  return extrude(p, 4, size[2], out);
}

static cl_status build_cylinder(const cl_shape_def *d, cl_mesh **out) {
  CL_TRY(cl_check_positive("cylinder radius (m)", d->radius));
  CL_TRY(cl_check_positive("cylinder height (m)", d->height));
  if (d->segments < 3 || d->segments > 100000)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cylinder segments = %d: must be in [3, 100000]", d->segments);
  builder b = {0};
  int32_t n = d->segments;
  double h = 0.5 * d->height;
  int32_t bot = add_point(&b, 0, 0, -h), top = add_point(&b, 0, 0, h);
  for (int32_t i = 0; i < n; ++i) {
    double a = 2.0 * PI * i / n;
    add_point(&b, d->radius * cos(a), d->radius * sin(a), -h); /* 2 + 2i */
    add_point(&b, d->radius * cos(a), d->radius * sin(a), h);  /* 3 + 2i */
  }
  for (int32_t i = 0; i < n; ++i) {
    int32_t j = (i + 1) % n;
    int32_t bi = 2 + 2 * i, bj = 2 + 2 * j, ti = 3 + 2 * i, tj = 3 + 2 * j;
    add_tri(&b, top, ti, tj); /* counter-clockwise seen from +z */
    add_tri(&b, bot, bj, bi);
    add_tri(&b, bi, bj, tj);
    add_tri(&b, bi, tj, ti);
  }
  return builder_finish(&b, out);
}

/* Icosphere: the icosahedron with each triangle split in four `levels` times, vertices pushed to
 * the sphere. flip != 0 reverses every triangle (an inner shell facing its cavity). */
static void add_icosphere(builder *b, double radius, int levels, int flip, edge_map *em) {
  const double t = (1.0 + sqrt(5.0)) / 2.0;
  static const int F[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                               {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                               {3, 8, 9},  {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  const double V[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                           {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  int32_t base = (int32_t)b->np;
  for (int i = 0; i < 12; ++i) {
    double l = sqrt(V[i][0] * V[i][0] + V[i][1] * V[i][1] + V[i][2] * V[i][2]);
    add_point(b, radius * V[i][0] / l, radius * V[i][1] / l, radius * V[i][2] / l);
  }
  size_t first_tri = b->nt;
  for (int f = 0; f < 20; ++f) add_tri(b, base + F[f][0], base + F[f][1], base + F[f][2]);
  for (int lev = 0; lev < levels && b->st >= 0; ++lev) {
    size_t nt0 = b->nt;
    em->n = 0;
    for (size_t i = 0; i < em->cap; ++i) em->key[i] = EMPTY_KEY;
    for (size_t f = first_tri; f < nt0 && b->st >= 0; ++f) {
      int32_t v[3] = {b->t[3 * f], b->t[3 * f + 1], b->t[3 * f + 2]}, mid[3];
      for (int e = 0; e < 3; ++e) {
        int32_t a = v[e], c = v[(e + 1) % 3];
        uint64_t key = edge_key(a, c);
        int32_t m = edge_map_get(em, key);
        if (m < 0) {
          double q[3];
          for (int k = 0; k < 3; ++k) q[k] = 0.5 * (b->x[3 * a + k] + b->x[3 * c + k]);
          double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
          m = add_point(b, radius * q[0] / l, radius * q[1] / l, radius * q[2] / l);
          if (b->st >= 0 && edge_map_put(em, key, m) < 0) b->st = CL_ERR_OUT_OF_MEMORY;
        }
        mid[e] = m;
      }
      if (b->st < 0) break;
      /* the corner triangles are appended; the parent becomes the middle one */
      add_tri(b, v[0], mid[0], mid[2]);
      add_tri(b, v[1], mid[1], mid[0]);
      add_tri(b, v[2], mid[2], mid[1]);
      b->t[3 * f] = mid[0];
      b->t[3 * f + 1] = mid[1];
      b->t[3 * f + 2] = mid[2];
    }
  }
  if (flip && b->st >= 0)
    for (size_t f = first_tri; f < b->nt; ++f) {
      int32_t tmp = b->t[3 * f + 1];
      b->t[3 * f + 1] = b->t[3 * f + 2];
      b->t[3 * f + 2] = tmp;
    }
}

static cl_status build_spheres(const cl_shape_def *d, int hollow, cl_mesh **out) {
  CL_TRY(cl_check_positive("sphere radius (m)", d->radius));
  if (d->subdivisions < 0 || d->subdivisions > 7)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "icosphere subdivisions = %d: must be in [0, 7]", d->subdivisions);
  if (hollow && !(d->inner_radius > 0 && d->inner_radius < d->radius))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "hollow sphere inner_radius = %g m: must be in (0, radius = %g)",
                   d->inner_radius, d->radius);
  edge_map em;
  CL_TRY(edge_map_init(&em, 30u << (2 * d->subdivisions)));
  builder b = {0};
  add_icosphere(&b, d->radius, d->subdivisions, 0, &em);
  if (hollow) add_icosphere(&b, d->inner_radius, d->subdivisions, 1, &em);
  edge_map_free(&em);
  return builder_finish(&b, out);
}

/* Profile of a prism of length L (x) and height H (y) with a notch cut from the top face (y = H/2)
 * at x = 0: a rectangular slot of width w, or (w == 0) a V of opening `angle` degrees whose root
 * is a circular arc of radius rho tangent to both flanks, resolved by `segments` points, rounded up to odd (a sharp
 * tip when rho == 0). The notch depth D runs from the top face to the lowest point of the root.
 * *p_out is malloc'd, 2 doubles per point, counter-clockwise. */
static cl_status notched_profile(double L, double H, double D, double w, double angle, double rho, int32_t segments,
                                 double **p_out, int32_t *n_out) {
  if (!(D > 0 && D < H)) return cl_fail(CL_ERR_INVALID_ARGUMENT, "notch_depth = %g m: must be in (0, height = %g)", D, H);
  if (!(w >= 0 && w < L)) return cl_fail(CL_ERR_INVALID_ARGUMENT, "notch_width = %g m: must be in [0, length = %g)", w, L);
  int32_t n_root = 0;
  double alpha = 0.0, xt = 0.0, yc = 0.0;
  if (w == 0) {
    if (!(angle > 0 && angle < 180))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "notch_angle = %g degrees: must be in (0, 180)", angle);
    if (!(rho >= 0 && isfinite(rho)))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "notch_root_radius = %g m: must be >= 0", rho);
    alpha = 0.5 * angle * PI / 180.0; /* half the opening: each flank leans alpha from vertical */
    double yb = 0.5 * H - D;          /* lowest point of the root */
    yc = yb + rho;                    /* centre of the root circle */
    /* the arc meets the flanks at (+-rho cos a, yc - rho sin a); it must stay below the top face */
    double yt = yc - rho * sin(alpha);
    if (!(yt < 0.5 * H))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "notch_root_radius = %g m is too large for notch_depth = %g m", rho, D);
    xt = rho * cos(alpha) + (0.5 * H - yt) * tan(alpha); /* half width of the notch at the top face */
    if (!(xt < 0.5 * L))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "notch is %g m wide at the top, wider than the length %g m", 2 * xt, L);
    if (rho > 0) {
      if (segments < 2 || segments > 10000)
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "notch root segments = %d: must be in [2, 10000]", segments);
      /* an odd count puts a vertex at the lowest point, so the notch depth is exact */
      n_root = segments % 2 ? segments : segments + 1;
    } else {
      n_root = 1;
    }
  } else {
    n_root = 2;
  }
  int32_t n = 6 + n_root + (w > 0 ? 2 : 0); /* an upper bound */
  double *p = cl_malloc(sizeof(double) * 2 * (size_t)n, "notch profile");
  if (!p) return CL_ERR_OUT_OF_MEMORY;
  int32_t k = 0;
#define PUT(X, Y) (p[2 * k] = (X), p[2 * k + 1] = (Y), ++k)
  PUT(-0.5 * L, -0.5 * H);
  PUT(0.5 * L, -0.5 * H);
  PUT(0.5 * L, 0.5 * H);
  if (w > 0) {
    PUT(0.5 * w, 0.5 * H);
    PUT(0.5 * w, 0.5 * H - D);
    PUT(-0.5 * w, 0.5 * H - D);
    PUT(-0.5 * w, 0.5 * H);
  } else {
    PUT(xt, 0.5 * H);
    if (rho > 0) {
      /* from the right tangent point (angle -alpha) through the bottom (-pi/2) to the left one */
      for (int32_t i = 0; i < n_root; ++i) {
        double phi = -alpha - (PI - 2.0 * alpha) * i / (n_root - 1);
        PUT(rho * cos(phi), yc + rho * sin(phi));
      }
    } else {
      PUT(0.0, 0.5 * H - D);
    }
    PUT(-xt, 0.5 * H);
  }
  PUT(-0.5 * L, 0.5 * H);
#undef PUT
  *p_out = p;
  *n_out = k;
  return CL_OK;
}

static cl_status build_notched(const cl_shape_def *d, double scale, cl_mesh **out) {
  double size[3] = {d->size[0] * scale, d->size[1] * scale, d->size[2] * scale};
  CL_TRY(check_size3(d->kind == CL_SHAPE_CHARPY ? "Charpy specimen" : "notched beam", size));
  double *p = NULL;
  int32_t n = 0;
  CL_TRY(notched_profile(size[0], size[1], d->notch_depth * scale, d->notch_width * scale, d->notch_angle,
                         d->notch_root_radius * scale, d->segments, &p, &n));
  cl_status st = extrude(p, n, size[2], out);
  free(p);
  return st;
}

/* ---- heart ----------------------------------------------------------------------------------- */

/* Taubin's heart surface, (x^2 + 9/4 y^2 + z^2 - 1)^3 - x^2 z^3 - 9/80 y^2 z^3 = 0, negative inside,
 * with its z axis (the heart's up) mapped to our y and its y (the thin direction) to our z. */
static double heart_f(double X, double Y, double Z) {
  double x = X, y = Z, z = Y;
  double a = x * x + 2.25 * y * y + z * z - 1.0;
  return a * a * a - x * x * z * z * z - (9.0 / 80.0) * y * y * z * z * z;
}

/* The heart is star-shaped about the origin (checked on 320,000 rays: each crosses the surface
 * once), so an icosphere maps onto it radially: each vertex direction u moves to the root of
 * f(r u) = 0, found by bisection between r = 0 (inside) and r = 2 (outside). The flat triangle
 * between three such points stays inside the cone of its three rays, and cones of distinct
 * triangles are disjoint, so the surface cannot self-intersect; orientation carries over from the
 * sphere. The icosphere gives well-shaped triangles, which keeps TetGen's refinement cheap (marching
 * tetrahedra on a grid gave slivers and several times as many tets). `segments` sets the level:
 * the smallest whose great circle has at least `segments` edges (5 * 2^level), capped to [1, 7]. */
static cl_status build_heart(const cl_shape_def *d, cl_mesh **out) {
  CL_TRY(check_size3("heart", d->size));
  if (d->segments < 3 || d->segments > 640)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "heart segments = %d: must be in [3, 640] (edges around)", d->segments);
  int level = 1;
  while (level < 7 && (5 << level) < d->segments) ++level;
  edge_map em;
  CL_TRY(edge_map_init(&em, 30u << (2 * level)));
  builder b = {0};
  add_icosphere(&b, 1.0, level, 0, &em);
  edge_map_free(&em);
  for (size_t i = 0; i < b.np && b.st >= 0; ++i) {
    double *p = b.x + 3 * i, lo = 0.0, hi = 2.0;
    for (int it = 0; it < 64; ++it) {
      double mid = 0.5 * (lo + hi);
      if (heart_f(mid * p[0], mid * p[1], mid * p[2]) < 0) lo = mid;
      else hi = mid;
    }
    double r = 0.5 * (lo + hi);
    for (int q = 0; q < 3; ++q) p[q] *= r;
  }
  if (b.st >= 0 && b.np > 0) { /* fit the bounding box to size, centred at the origin */
    double blo[3] = {INFINITY, INFINITY, INFINITY}, bhi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < b.np; ++i)
      for (int q = 0; q < 3; ++q) {
        blo[q] = fmin(blo[q], b.x[3 * i + q]);
        bhi[q] = fmax(bhi[q], b.x[3 * i + q]);
      }
    for (size_t i = 0; i < b.np; ++i)
      for (int q = 0; q < 3; ++q)
        b.x[3 * i + q] = (b.x[3 * i + q] - 0.5 * (blo[q] + bhi[q])) * d->size[q] / (bhi[q] - blo[q]);
  }
  return builder_finish(&b, out);
}

/* ---- public ---------------------------------------------------------------------------------- */

void cl_shape_def_default(cl_shape_def *def, cl_shape_kind kind) {
  if (!def) return;
  memset(def, 0, sizeof *def);
  def->kind = kind;
  def->scale = 1.0;
  def->size[0] = def->size[1] = def->size[2] = 1.0;
  def->radius = 0.5;
  def->inner_radius = 0.4;
  def->height = 1.0;
  def->segments = 32;
  def->subdivisions = 3;
  def->notch_angle = 45.0;
  switch (kind) {
    case CL_SHAPE_PLATE:
      def->size[2] = 0.02;
      break;
    case CL_SHAPE_CHARPY: /* ISO 148-1 V-notch: 55 x 10 x 10 mm, 2 mm deep, 45 degrees, 0.25 mm root */
      def->size[0] = 0.055;
      def->size[1] = 0.010;
      def->size[2] = 0.010;
      def->notch_depth = 0.002;
      def->notch_width = 0.0;
      def->notch_angle = 45.0;
      def->notch_root_radius = 0.00025;
      def->segments = 8;
      break;
    case CL_SHAPE_NOTCHED_BEAM: /* Gregoire et al. 2013, D = 50 mm: 175 x 50 x 50 mm, 25 mm notch */
      def->size[0] = 0.175;
      def->size[1] = 0.050;
      def->size[2] = 0.050;
      def->notch_depth = 0.025;
      def->notch_width = 0.002; /* a sawn slot; its width is our choice, not from the paper */
      def->notch_root_radius = 0.0;
      def->segments = 8;
      break;
    case CL_SHAPE_HEART:
      def->size[0] = 0.10;
      def->size[1] = 0.10;
      def->size[2] = 0.06;
      break;
    default:
      break;
  }
}

cl_status cl_shape_build(const cl_shape_def *def, cl_mesh **surface_out) {
  if (!surface_out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_shape_build: surface_out is NULL");
  *surface_out = NULL;
  if (!def) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_shape_build: def is NULL (fill it with cl_shape_def_default)");
  switch (def->kind) {
    case CL_SHAPE_BOX:
      return build_box(def->size, "box", surface_out);
    case CL_SHAPE_PLATE:
      return build_box(def->size, "plate", surface_out);
    case CL_SHAPE_CYLINDER:
      return build_cylinder(def, surface_out);
    case CL_SHAPE_ICOSPHERE:
      return build_spheres(def, 0, surface_out);
    case CL_SHAPE_HOLLOW_SPHERE:
      return build_spheres(def, 1, surface_out);
    case CL_SHAPE_CHARPY:
      if (!(def->scale > 0 && isfinite(def->scale)))
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "Charpy scale = %g: must be finite and > 0", def->scale);
      return build_notched(def, def->scale, surface_out);
    case CL_SHAPE_NOTCHED_BEAM:
      return build_notched(def, 1.0, surface_out);
    case CL_SHAPE_HEART:
      return build_heart(def, surface_out);
  }
  return cl_fail(CL_ERR_INVALID_ARGUMENT, "shape kind %d is not one of 0 (box) .. 7 (heart)", (int)def->kind);
}
