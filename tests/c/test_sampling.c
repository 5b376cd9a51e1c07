/* Inside tests and particle sampling: the generalised winding number classifies points around the
 * scanned armadillo and bunny (data/meshes) correctly, its fast BVH version agrees with the exact sum,
 * a Monte-Carlo volume matches the divergence-theorem volume, grid samples have the expected
 * count, Poisson-disk samples keep their minimum distance, stay inside, cover the volume and are
 * reproducible; bad spacings get clear errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleave/mesh.h"
#include "geom/bvh.h"
#include "geom/contains.h"
#include "geom/hash_grid.h"
#include "geom/mesh.h"

#include "support/cl_asserts.h"


static uint64_t rng_state = 777;
static double urand(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static cl_mesh *read_mesh(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/data/meshes/%s", CLEAVE_SOURCE_DIR, name);
  cl_mesh *m = NULL;
  cl_status s = cl_mesh_read(path, &m);
  if (s != CL_OK) fail_msg("reading %s: %s", path, cl_last_error());
  return m;
}

/* Vertex normals weighted by the triangle's angle at the vertex (Thurmer & Wuthrich 1998,
 * "Computing vertex normals from polygonal facets", J. Graphics Tools 3(1)): unlike area weights,
 * they stay inside the cone of inward directions at vertices surrounded by skinny triangles, where
 * area-weighted normals of these scans point outwards at a few vertices. */
static void vertex_normals(const cl_mesh *s, double *nrm, double *min_edge) {
  memset(nrm, 0, sizeof(double) * 3 * (size_t)s->npoints);
  for (int32_t i = 0; i < s->npoints; ++i) min_edge[i] = INFINITY;
  for (int32_t t = 0; t < s->ncells; ++t) {
    const int32_t *v = s->cells + 3 * t;
    double e1[3], e2[3], c[3];
    for (int k = 0; k < 3; ++k) {
      e1[k] = s->x[3 * v[1] + k] - s->x[3 * v[0] + k];
      e2[k] = s->x[3 * v[2] + k] - s->x[3 * v[0] + k];
    }
    c[0] = e1[1] * e2[2] - e1[2] * e2[1];
    c[1] = e1[2] * e2[0] - e1[0] * e2[2];
    c[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double cl = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    for (int a = 0; a < 3; ++a) {
      const double *p = s->x + 3 * v[a], *q = s->x + 3 * v[(a + 1) % 3], *r = s->x + 3 * v[(a + 2) % 3];
      double u[3], w[3];
      for (int k = 0; k < 3; ++k) {
        u[k] = q[k] - p[k];
        w[k] = r[k] - p[k];
      }
      double lu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), lw = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
      double ang = acos(fmax(-1.0, fmin(1.0, (u[0] * w[0] + u[1] * w[1] + u[2] * w[2]) / (lu * lw))));
      for (int k = 0; k < 3; ++k) nrm[3 * v[a] + k] += ang * c[k] / cl;
      min_edge[v[a]] = fmin(min_edge[v[a]], fmin(lu, lw));
    }
  }
  for (int32_t i = 0; i < s->npoints; ++i) {
    double *n = nrm + 3 * i, l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; ++k) n[k] /= l;
  }
}

/* Every vertex pushed inward (a hundredth of its shortest edge) is inside, pushed outward outside,
 * by the batch test for all and by the exact winding number for a subset. */
static void check_pushed_vertices(const char *name) {
  cl_mesh *s = read_mesh(name);
  assert_ok(cl_mesh_check_closed(s));
  int32_t n = s->npoints;
  double *nrm = malloc(sizeof(double) * 3 * (size_t)n), *me = malloc(sizeof(double) * (size_t)n);
  double *pin = malloc(sizeof(double) * 3 * (size_t)n), *pout = malloc(sizeof(double) * 3 * (size_t)n);
  uint8_t *in = malloc((size_t)n), *out = malloc((size_t)n);
  vertex_normals(s, nrm, me);
  for (int32_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      pin[3 * i + k] = s->x[3 * i + k] - 0.01 * me[i] * nrm[3 * i + k];
      pout[3 * i + k] = s->x[3 * i + k] + 0.01 * me[i] * nrm[3 * i + k];
    }
  assert_ok(cl_surface_contains_many(s, pin, n, in));
  assert_ok(cl_surface_contains_many(s, pout, n, out));
  for (int32_t i = 0; i < n; ++i) {
    if (!in[i]) fail_msg("%s: vertex %d pushed inward is classified outside", name, i);
    if (out[i]) fail_msg("%s: vertex %d pushed outward is classified inside", name, i);
  }
  for (int32_t i = 0; i < n; i += 61) {
    int32_t a = 0, b = 1;
    assert_ok(cl_mesh_contains(s, pin + 3 * i, &a));
    assert_ok(cl_mesh_contains(s, pout + 3 * i, &b));
    assert_int_equal(a, 1);
    assert_int_equal(b, 0);
  }
  free(nrm);
  free(me);
  free(pin);
  free(pout);
  free(in);
  free(out);
  cl_mesh_destroy(s);
}

static void test_inside_armadillo(void **state) {
  (void)state;
  check_pushed_vertices("armadillo_6k.off");
}

static void test_inside_bunny(void **state) {
  (void)state;
  check_pushed_vertices("bunny.off");
}

/* The fraction of random points of the bounding box found inside, times the box volume, is the
 * enclosed volume (divergence theorem, cl_mesh_get_info) within 2% (the Monte-Carlo standard error
 * here is about 0.5%). */
static void check_monte_carlo_volume(const char *name, int32_t n) {
  cl_mesh *s = read_mesh(name);
  cl_mesh_info info;
  assert_ok(cl_mesh_get_info(s, &info));
  double *p = malloc(sizeof(double) * 3 * (size_t)n);
  uint8_t *in = malloc((size_t)n);
  for (int32_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) p[3 * i + k] = info.lo[k] + (info.hi[k] - info.lo[k]) * urand();
  assert_ok(cl_surface_contains_many(s, p, n, in));
  int32_t count = 0;
  for (int32_t i = 0; i < n; ++i) count += in[i];
  double box = (info.hi[0] - info.lo[0]) * (info.hi[1] - info.lo[1]) * (info.hi[2] - info.lo[2]);
  double mc = box * count / n;
  assert_near(mc, info.measure, 0.02 * info.measure);
  free(p);
  free(in);
  cl_mesh_destroy(s);
}

static void test_monte_carlo_volume(void **state) {
  (void)state;
  check_monte_carlo_volume("armadillo_6k.off", 150000);
  check_monte_carlo_volume("bunny.off", 100000);
}

/* The BVH winding number (dipole expansion beyond 2 node radii) against the exact sum over all
 * triangles, at random points in and around the box, and the batch classification against both. */
static void test_fast_winding_number(void **state) {
  (void)state;
  cl_mesh *s = read_mesh("armadillo_2500.off");
  cl_mesh_info info;
  assert_ok(cl_mesh_get_info(s, &info));
  cl_bvh bvh;
  assert_ok(cl_bvh_build(s->x, s->cells, s->ncells, 1, &bvh));
  enum { N = 800 };
  double *p = malloc(sizeof(double) * 3 * N);
  uint8_t *in = malloc(N);
  double max_err = 0, sum_err = 0;
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < 3; ++k) {
      double e = info.hi[k] - info.lo[k];
      p[3 * i + k] = info.lo[k] - 0.1 * e + 1.2 * e * urand();
    }
  assert_ok(cl_surface_contains_many(s, p, N, in));
  for (int i = 0; i < N; ++i) {
    double exact = cl_surface_winding_number(s, p + 3 * i);
    double fast = cl_bvh_winding_number(&bvh, p + 3 * i, CL_WINDING_BETA);
    double err = fabs(fast - exact);
    max_err = fmax(max_err, err);
    sum_err += err;
    /* a closed surface: exactly 0 or 1 away from it */
    assert_true(fabs(exact) < 1e-9 || fabs(exact - 1) < 1e-9);
    assert_int_equal(in[i], exact > 0.5);
    if (i % 10 == 0) {
      int32_t one = -1;
      assert_ok(cl_mesh_contains(s, p + 3 * i, &one));
      assert_int_equal(one, exact > 0.5);
    }
  }
  assert_true(max_err < 0.05);      /* far below the 1/2 that would flip a classification */
  assert_true(sum_err / N < 0.005); /* about 3e-3 on average at beta = 2 */
  /* the expansion converges: beta = 4 is several times more accurate */
  double max4 = 0;
  for (int i = 0; i < 200; ++i)
    max4 = fmax(max4, fabs(cl_bvh_winding_number(&bvh, p + 3 * i, 4.0) - cl_surface_winding_number(s, p + 3 * i)));
  assert_true(max4 < 0.01);
  cl_bvh_free(&bvh);
  /* an open surface (one triangle removed) still gives a sensible answer far from the hole */
  cl_mesh *open = NULL;
  assert_ok(cl_mesh_from_arrays(CL_MESH_TRIANGLES, s->x, s->npoints, s->cells + 3, s->ncells - 1, &open));
  assert_ok(cl_surface_contains_many(open, p, N, in));
  int32_t agree = 0;
  for (int i = 0; i < N; ++i) agree += in[i] == (cl_surface_winding_number(s, p + 3 * i) > 0.5);
  assert_true(agree >= N - 2);
  cl_mesh_destroy(open);
  /* bad input */
  double bad[3] = {NAN, 0, 0};
  int32_t flag = 0;
  assert_error(cl_mesh_contains(s, bad, &flag), CL_ERR_INVALID_ARGUMENT, "not finite");
  assert_error(cl_surface_contains_many(s, bad, 1, in), CL_ERR_INVALID_ARGUMENT, "point 0");
  free(p);
  free(in);
  cl_mesh_destroy(s);
}

static cl_mesh *shape(cl_shape_kind kind) {
  cl_shape_def d;
  cl_shape_def_default(&d, kind);
  cl_mesh *s = NULL;
  assert_ok(cl_shape_build(&d, &s));
  return s;
}

static void test_grid_sampling(void **state) {
  (void)state;
  cl_sample_def d;
  cl_sample_def_default(&d);
  assert_int_equal(d.method, CL_SAMPLE_GRID);
  assert_int_equal(d.attempts, 30);
  /* unit box, step 0.1: exactly the 10^3 cell centres */
  cl_mesh *s = shape(CL_SHAPE_BOX), *p = NULL;
  d.spacing = 0.1;
  assert_ok(cl_mesh_sample(s, &d, &p));
  assert_int_equal(p->kind, CL_MESH_POINTS);
  assert_int_equal(p->npoints, 1000);
  for (int32_t i = 0; i < p->npoints; ++i)
    for (int k = 0; k < 3; ++k) {
      double u = (p->x[3 * i + k] + 0.5) / 0.1 - 0.5; /* an integer at a cell centre */
      assert_near(u, round(u), 1e-9);
    }
  cl_mesh_destroy(p);
  cl_mesh_destroy(s);
  /* the armadillo: count * h^3 is the volume to a few percent */
  s = read_mesh("armadillo_6k.off");
  cl_mesh_info info;
  assert_ok(cl_mesh_get_info(s, &info));
  d.spacing = (info.hi[1] - info.lo[1]) / 60;
  assert_ok(cl_mesh_sample(s, &d, &p));
  double h3 = d.spacing * d.spacing * d.spacing;
  assert_near(p->npoints * h3, info.measure, 0.03 * info.measure);
  for (int32_t i = 0; i < p->npoints; i += 211) {
    int32_t one = 0;
    assert_ok(cl_mesh_contains(s, p->x + 3 * i, &one));
    assert_int_equal(one, 1);
  }
  cl_mesh_destroy(p);
  cl_mesh_destroy(s);
}

/* Minimum pairwise distance of a point set, via the hash grid. */
static double min_distance(const cl_mesh *p, double r) {
  cl_hash_grid g = {0};
  assert_ok(cl_hash_grid_build(&g, p->x, p->npoints, r));
  double best = INFINITY;
  int32_t ids[256];
  for (int32_t i = 0; i < p->npoints; ++i) {
    int32_t m = cl_hash_grid_query(&g, p->x + 3 * i, r, ids, 256);
    for (int32_t j = 0; j < m && j < 256; ++j) {
      if (ids[j] == i) continue;
      double d2 = 0;
      for (int k = 0; k < 3; ++k) d2 += (p->x[3 * i + k] - p->x[3 * ids[j] + k]) * (p->x[3 * i + k] - p->x[3 * ids[j] + k]);
      best = fmin(best, sqrt(d2));
    }
  }
  cl_hash_grid_free(&g);
  return best;
}

static void test_poisson_sampling(void **state) {
  (void)state;
  cl_mesh *s = read_mesh("bunny.off");
  cl_mesh_info info;
  assert_ok(cl_mesh_get_info(s, &info));
  cl_sample_def d;
  cl_sample_def_default(&d);
  d.method = CL_SAMPLE_POISSON;
  d.spacing = (info.hi[1] - info.lo[1]) / 25;
  d.seed = 42;
  cl_mesh *p = NULL, *q = NULL;
  assert_ok(cl_mesh_sample(s, &d, &p));
  double r = d.spacing, v = info.measure / (r * r * r);
  /* a maximal Poisson-disk set in 3D holds about 0.6-0.7 V / r^3 points */
  assert_true(p->npoints > 0.45 * v && p->npoints < 0.9 * v);
  assert_true(min_distance(p, r) >= r);
  uint8_t *in = malloc((size_t)p->npoints);
  assert_ok(cl_surface_contains_many(s, p->x, p->npoints, in));
  for (int32_t i = 0; i < p->npoints; ++i) assert_int_equal(in[i], 1);
  free(in);
  /* coverage: every inside point has a sample within 2r (otherwise one more could be placed) */
  cl_hash_grid g = {0};
  assert_ok(cl_hash_grid_build(&g, p->x, p->npoints, 2 * r));
  enum { M = 20000 };
  double *x = malloc(sizeof(double) * 3 * M);
  uint8_t *xin = malloc(M);
  for (int i = 0; i < 3 * M; ++i) x[i] = info.lo[i % 3] + (info.hi[i % 3] - info.lo[i % 3]) * urand();
  assert_ok(cl_surface_contains_many(s, x, M, xin));
  int tested = 0;
  for (int i = 0; i < M; ++i)
    if (xin[i]) {
      assert_true(cl_hash_grid_any_within(&g, x + 3 * i, 2 * r));
      ++tested;
    }
  assert_true(tested > 1000);
  free(x);
  free(xin);
  cl_hash_grid_free(&g);
  /* reproducible: the same seed gives the same points, another seed other points */
  assert_ok(cl_mesh_sample(s, &d, &q));
  assert_int_equal(q->npoints, p->npoints);
  assert_memory_equal(q->x, p->x, sizeof(double) * 3 * (size_t)p->npoints);
  cl_mesh_destroy(q);
  d.seed = 43;
  assert_ok(cl_mesh_sample(s, &d, &q));
  assert_true(q->npoints != p->npoints || memcmp(q->x, p->x, sizeof(double) * 3 * (size_t)p->npoints) != 0);
  cl_mesh_destroy(q);
  cl_mesh_destroy(p);
  cl_mesh_destroy(s);
}

static void test_poisson_two_pieces(void **state) {
  (void)state;
  /* two disjoint spheres: Bridson's front cannot walk from one to the other; the restart from
   * uncovered seeds fills both */
  cl_shape_def sd;
  cl_shape_def_default(&sd, CL_SHAPE_ICOSPHERE);
  sd.radius = 0.1;
  sd.subdivisions = 2;
  cl_mesh *a = NULL, *b = NULL, *s = NULL, *p = NULL;
  assert_ok(cl_shape_build(&sd, &a));
  assert_ok(cl_shape_build(&sd, &b));
  int32_t np = a->npoints, nt = a->ncells;
  double *x = malloc(sizeof(double) * 6 * (size_t)np);
  int32_t *t = malloc(sizeof(int32_t) * 6 * (size_t)nt);
  memcpy(x, a->x, sizeof(double) * 3 * (size_t)np);
  for (int32_t i = 0; i < np; ++i) {
    x[3 * (np + i)] = b->x[3 * i] + 0.5;
    x[3 * (np + i) + 1] = b->x[3 * i + 1];
    x[3 * (np + i) + 2] = b->x[3 * i + 2];
  }
  memcpy(t, a->cells, sizeof(int32_t) * 3 * (size_t)nt);
  for (int32_t i = 0; i < 3 * nt; ++i) t[3 * nt + i] = b->cells[i] + np;
  assert_ok(cl_mesh_from_arrays(CL_MESH_TRIANGLES, x, 2 * np, t, 2 * nt, &s));
  cl_sample_def d;
  cl_sample_def_default(&d);
  d.method = CL_SAMPLE_POISSON;
  d.spacing = 0.02;
  assert_ok(cl_mesh_sample(s, &d, &p));
  int32_t left = 0, right = 0;
  for (int32_t i = 0; i < p->npoints; ++i) {
    if (p->x[3 * i] < 0.25) ++left;
    else ++right;
  }
  assert_true(left > 100 && right > 100);
  assert_true(abs(left - right) < 0.2 * (left + right));
  cl_mesh_destroy(p);
  cl_mesh_destroy(s);
  cl_mesh_destroy(a);
  cl_mesh_destroy(b);
  free(x);
  free(t);
}

static void test_bad_sampling(void **state) {
  (void)state;
  cl_mesh *s = shape(CL_SHAPE_BOX), *p = (cl_mesh *)1;
  cl_sample_def d;
  cl_sample_def_default(&d);
  d.spacing = 0;
  assert_error(cl_mesh_sample(s, &d, &p), CL_ERR_INVALID_ARGUMENT, "spacing = 0");
  assert_null(p);
  d.spacing = -0.1;
  assert_error(cl_mesh_sample(s, &d, &p), CL_ERR_INVALID_ARGUMENT, "spacing = -0.1");
  d.spacing = NAN;
  assert_error(cl_mesh_sample(s, &d, &p), CL_ERR_INVALID_ARGUMENT, "spacing");
  d.spacing = 1e-4; /* 1e12 samples in a unit box */
  assert_error(cl_mesh_sample(s, &d, &p), CL_ERR_INVALID_ARGUMENT, "about 1e+12 samples");
  d.method = CL_SAMPLE_POISSON;
  assert_error(cl_mesh_sample(s, &d, &p), CL_ERR_INVALID_ARGUMENT, "about 1e+12 samples");
  d.spacing = 0.1;
  d.attempts = 0;
  assert_error(cl_mesh_sample(s, &d, &p), CL_ERR_INVALID_ARGUMENT, "attempts = 0");
  d.attempts = 30;
  d.method = (cl_sampling)5;
  assert_error(cl_mesh_sample(s, &d, &p), CL_ERR_INVALID_ARGUMENT, "method = 5");
  d.method = CL_SAMPLE_GRID;
  d.spacing = 10; /* no cell centre inside... the single centre is the box centre: one sample */
  assert_ok(cl_mesh_sample(s, &d, &p));
  assert_int_equal(p->npoints, 1);
  cl_mesh_destroy(p);
  cl_mesh *pts = NULL;
  assert_ok(cl_mesh_from_arrays(CL_MESH_POINTS, s->x, s->npoints, NULL, 0, &pts));
  assert_error(cl_mesh_sample(pts, &d, &p), CL_ERR_INVALID_ARGUMENT, "closed triangle surface is needed");
  cl_mesh_destroy(pts);
  assert_error(cl_mesh_sample(s, NULL, &p), CL_ERR_INVALID_ARGUMENT, "NULL");
  cl_mesh_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_inside_armadillo),  cmocka_unit_test(test_inside_bunny),
      cmocka_unit_test(test_monte_carlo_volume), cmocka_unit_test(test_fast_winding_number),
      cmocka_unit_test(test_grid_sampling),      cmocka_unit_test(test_poisson_sampling),
      cmocka_unit_test(test_poisson_two_pieces), cmocka_unit_test(test_bad_sampling),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
