/* Spatial queries and topology: the hash grid against brute force (static and dynamic, rebuilt
 * without reallocation), union-find components, boundary faces of tet meshes (orientation, area,
 * speed on 160k tets), and carving spheres out of tet meshes and point sets. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cleave/mesh.h"
#include "geom/boundary.h"
#include "geom/components.h"
#include "geom/hash_grid.h"
#include "geom/mesh.h"

#include "support/cl_asserts.h"

static uint64_t rng_state = 12345;
static double urand(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* ids within r of p by brute force, sorted; returns the count */
static int32_t brute(const double *x, int32_t n, const double *p, double r, int32_t *out) {
  int32_t m = 0;
  for (int32_t i = 0; i < n; ++i) {
    double d2 = 0;
    for (int k = 0; k < 3; ++k) d2 += (x[3 * i + k] - p[k]) * (x[3 * i + k] - p[k]);
    if (d2 <= r * r) out[m++] = i;
  }
  return m;
}

static void check_against_brute(const cl_hash_grid *g, const double *x, int32_t n, double r, int nq) {
  int32_t *a = malloc(sizeof(int32_t) * (size_t)n), *b = malloc(sizeof(int32_t) * (size_t)n);
  for (int q = 0; q < nq; ++q) {
    double p[3] = {urand() * 1.2 - 0.1, urand() * 1.2 - 0.1, urand() * 1.2 - 0.1};
    if (q == 0) memcpy(p, x, sizeof p); /* a query exactly at a stored point finds it */
    int32_t na = cl_hash_grid_query(g, p, r, a, n), nb = brute(x, n, p, r, b);
    assert_int_equal(na, nb);
    qsort(a, (size_t)na, sizeof *a, cmp_i32);
    for (int32_t i = 0; i < na; ++i) assert_int_equal(a[i], b[i]);
    assert_int_equal(cl_hash_grid_any_within(g, p, r), nb > 0);
  }
  free(a);
  free(b);
}

static void test_hash_grid_static(void **state) {
  (void)state;
  enum { N = 4000 };
  double *x = malloc(sizeof(double) * 3 * N);
  for (int i = 0; i < 3 * N; ++i) x[i] = urand();
  cl_hash_grid g = {0};
  assert_ok(cl_hash_grid_build(&g, x, N, 0.05));
  assert_int_equal(g.n, N);
  check_against_brute(&g, x, N, 0.05, 300);
  check_against_brute(&g, x, N, 0.13, 100); /* radius larger than a cell */
  check_against_brute(&g, x, N, 3.0, 5);    /* radius covering everything: the scan path */
  /* a capacity smaller than the result: the count is still the total */
  int32_t few[3];
  double c[3] = {0.5, 0.5, 0.5};
  int32_t tot = cl_hash_grid_query(&g, c, 0.2, few, 3);
  int32_t *all = malloc(sizeof(int32_t) * N);
  assert_int_equal(tot, brute(x, N, c, 0.2, all));
  assert_true(tot > 3);
  /* rebuilding with fewer points reuses the buffers (no allocation in a simulation step) */
  int32_t *id0 = g.id, *start0 = g.start;
  double *pos0 = g.pos;
  for (int i = 0; i < 3 * N; ++i) x[i] = urand();
  assert_ok(cl_hash_grid_build(&g, x, N / 2, 0.05));
  assert_ptr_equal(g.id, id0);
  assert_ptr_equal(g.start, start0);
  assert_ptr_equal(g.pos, pos0);
  check_against_brute(&g, x, N / 2, 0.07, 100);
  /* negative coordinates and coincident points */
  for (int i = 0; i < 3 * N; ++i) x[i] = urand() * 2 - 1;
  memcpy(x + 3, x, 3 * sizeof(double));
  assert_ok(cl_hash_grid_build(&g, x, N, 0.1));
  check_against_brute(&g, x, N, 0.1, 100);
  /* bad input */
  assert_error(cl_hash_grid_build(&g, x, N, 0.0), CL_ERR_INVALID_ARGUMENT, "cell size = 0");
  assert_error(cl_hash_grid_build(&g, x, N, NAN), CL_ERR_INVALID_ARGUMENT, "cell size");
  x[5] = NAN;
  assert_error(cl_hash_grid_build(&g, x, N, 0.1), CL_ERR_INVALID_ARGUMENT, "not finite");
  cl_hash_grid_free(&g);
  free(all);
  free(x);
}

static void test_hash_grid_dynamic(void **state) {
  (void)state;
  enum { N = 3000 };
  double *x = malloc(sizeof(double) * 3 * N);
  for (int i = 0; i < 3 * N; ++i) x[i] = urand();
  cl_hash_grid g = {0};
  assert_ok(cl_hash_grid_reset(&g, 0.04, 16)); /* grows 16 -> 4096 while inserting */
  for (int i = 0; i < N; ++i) {
    assert_ok(cl_hash_grid_insert(&g, x + 3 * i));
    if (i == 500) check_against_brute(&g, x, 501, 0.04, 50);
  }
  check_against_brute(&g, x, N, 0.04, 200);
  check_against_brute(&g, x, N, 0.1, 50);
  /* a static build after dynamic use, and back */
  assert_ok(cl_hash_grid_build(&g, x, N, 0.06));
  check_against_brute(&g, x, N, 0.06, 50);
  assert_ok(cl_hash_grid_reset(&g, 0.04, 8));
  assert_int_equal(g.n, 0);
  for (int i = 0; i < 100; ++i) assert_ok(cl_hash_grid_insert(&g, x + 3 * i));
  check_against_brute(&g, x, 100, 0.2, 50);
  cl_hash_grid_free(&g);
  cl_hash_grid g2 = {0};
  assert_ok(cl_hash_grid_build(&g2, x, 10, 0.1));
  assert_error(cl_hash_grid_insert(&g2, x), CL_ERR_INVALID_ARGUMENT, "not reset for inserts");
  cl_hash_grid_free(&g2);
  free(x);
}

static void test_components(void **state) {
  (void)state;
  /* points 0..9; triangles join {0, 1, 2, 5} and {7, 8, 9}; 3, 4, 6 are alone: 5 components */
  int32_t cells[] = {0, 1, 2, 2, 5, 1, 7, 8, 9};
  int32_t label[10], count = 0;
  assert_ok(cl_components(10, cells, 3, 3, label, &count));
  assert_int_equal(count, 5);
  int32_t expect[10] = {0, 0, 0, 1, 2, 0, 3, 4, 4, 4}; /* numbered in order of first appearance */
  for (int i = 0; i < 10; ++i) assert_int_equal(label[i], expect[i]);
  assert_ok(cl_components(10, cells, 3, 3, NULL, &count));
  assert_int_equal(count, 5);
  /* a long chain merges into one */
  int32_t chain[2 * 999];
  for (int i = 0; i < 999; ++i) {
    chain[2 * i] = 999 - i;
    chain[2 * i + 1] = 998 - i;
  }
  assert_ok(cl_components(1000, chain, 999, 2, NULL, &count));
  assert_int_equal(count, 1);
  int32_t bad[] = {0, 1, 12};
  assert_error(cl_components(10, bad, 1, 3, label, &count), CL_ERR_MESH, "point 12");
  /* the public wrapper: a point set has one component per point */
  double x[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  cl_mesh *m = NULL;
  assert_ok(cl_mesh_from_arrays(CL_MESH_POINTS, x, 4, NULL, 0, &m));
  assert_ok(cl_mesh_components(m, &count));
  assert_int_equal(count, 4);
  cl_mesh_destroy(m);
  int32_t tet[4] = {0, 1, 2, 3};
  assert_ok(cl_mesh_from_arrays(CL_MESH_TETS, x, 4, tet, 1, &m));
  assert_ok(cl_mesh_components(m, &count));
  assert_int_equal(count, 1);
  cl_mesh_destroy(m);
}

/* n^3 cubes of edge 1/n over [0,1]^3, each split into 6 positive tets around its main diagonal. */
static cl_mesh *tet_grid(int n) {
  int np = (n + 1) * (n + 1) * (n + 1);
  double *x = malloc(sizeof(double) * 3 * (size_t)np);
  int32_t *t = malloc(sizeof(int32_t) * 24 * (size_t)n * n * n);
  for (int k = 0; k <= n; ++k)
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i) {
        int id = (k * (n + 1) + j) * (n + 1) + i;
        x[3 * id] = (double)i / n;
        x[3 * id + 1] = (double)j / n;
        x[3 * id + 2] = (double)k / n;
      }
  static const int PERM[6][2] = {{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}};
  size_t nt = 0;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        for (int p = 0; p < 6; ++p) {
          int corner[4] = {0, 1 << PERM[p][0], (1 << PERM[p][0]) | (1 << PERM[p][1]), 7};
          int32_t *v = t + 4 * nt++;
          for (int c = 0; c < 4; ++c)
            v[c] = ((k + ((corner[c] >> 2) & 1)) * (n + 1) + j + ((corner[c] >> 1) & 1)) * (n + 1) + i + (corner[c] & 1);
          const double *a = x + 3 * v[0], *b = x + 3 * v[1], *c = x + 3 * v[2], *d = x + 3 * v[3];
          double u[3], w[3], z[3];
          for (int q = 0; q < 3; ++q) {
            u[q] = b[q] - a[q];
            w[q] = c[q] - a[q];
            z[q] = d[q] - a[q];
          }
          double det = u[0] * (w[1] * z[2] - w[2] * z[1]) - u[1] * (w[0] * z[2] - w[2] * z[0]) + u[2] * (w[0] * z[1] - w[1] * z[0]);
          if (det < 0) {
            int32_t tmp = v[2];
            v[2] = v[3];
            v[3] = tmp;
          }
        }
  cl_mesh *m = NULL;
  assert_ok(cl_mesh_from_arrays(CL_MESH_TETS, x, np, t, (int32_t)nt, &m));
  free(x);
  free(t);
  return m;
}

static void test_boundary_faces(void **state) {
  (void)state;
  /* one tet: four faces, each facing away from the opposite vertex */
  const double x[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  const int32_t tet[4] = {0, 1, 2, 3};
  int32_t *tris = NULL, nt = 0;
  assert_ok(cl_boundary_faces(1, tet, &tris, &nt));
  assert_int_equal(nt, 4);
  for (int f = 0; f < 4; ++f) {
    const int32_t *v = tris + 3 * f;
    int opp = 0 + 1 + 2 + 3 - v[0] - v[1] - v[2];
    double e1[3], e2[3], n[3], d[3];
    for (int k = 0; k < 3; ++k) {
      e1[k] = x[3 * v[1] + k] - x[3 * v[0] + k];
      e2[k] = x[3 * v[2] + k] - x[3 * v[0] + k];
      d[k] = x[3 * opp + k] - x[3 * v[0] + k];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    assert_true(n[0] * d[0] + n[1] * d[1] + n[2] * d[2] < 0);
  }
  free(tris);
  /* two tets sharing face (1, 2, 3): six faces remain */
  const int32_t two[8] = {0, 1, 2, 3, 4, 1, 3, 2};
  assert_ok(cl_boundary_faces(2, two, &tris, &nt));
  assert_int_equal(nt, 6);
  for (int i = 0; i < 3 * nt; i += 3) assert_false(tris[i] != 0 && tris[i] != 4 && tris[i + 1] != 0 && tris[i + 1] != 4 &&
                                                   tris[i + 2] != 0 && tris[i + 2] != 4);
  free(tris);
  /* three tets on one face is not a manifold mesh */
  const int32_t three[12] = {0, 1, 2, 3, 4, 1, 3, 2, 5, 1, 2, 3};
  assert_error(cl_boundary_faces(3, three, &tris, &nt), CL_ERR_MESH, "shared by 3 tets");
  assert_null(tris);
  /* no tets: no faces */
  assert_ok(cl_boundary_faces(0, NULL, &tris, &nt));
  assert_int_equal(nt, 0);
  free(tris);
}

static void test_boundary_of_grid(void **state) {
  (void)state;
  cl_mesh *m = tet_grid(30); /* 162,000 tets */
  assert_int_equal(m->ncells, 162000);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int32_t *tris = NULL, nt = 0;
  assert_ok(cl_boundary_faces(m->ncells, m->cells, &tris, &nt));
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ms = 1e3 * (t1.tv_sec - t0.tv_sec) + 1e-6 * (t1.tv_nsec - t0.tv_nsec);
  printf("boundary faces of %d tets: %d triangles in %.1f ms\n", m->ncells, nt, ms);
  assert_int_equal(nt, 6 * 30 * 30 * 2);
  assert_true(ms < 2000); /* tens of ms in practice; generous for a loaded machine */
  free(tris);
  cl_mesh *b = NULL;
  assert_ok(cl_mesh_boundary(m, &b));
  assert_int_equal(b->kind, CL_MESH_TRIANGLES);
  assert_int_equal(b->npoints, m->npoints); /* same numbering */
  assert_ok(cl_mesh_check_closed(b));
  cl_mesh_info info;
  assert_ok(cl_mesh_get_info(b, &info));
  assert_near(info.measure, 1.0, 1e-12); /* outward: positive enclosed volume */
  double area = 0;
  for (int32_t t = 0; t < b->ncells; ++t) {
    const int32_t *v = b->cells + 3 * t;
    double e1[3], e2[3];
    for (int k = 0; k < 3; ++k) {
      e1[k] = b->x[3 * v[1] + k] - b->x[3 * v[0] + k];
      e2[k] = b->x[3 * v[2] + k] - b->x[3 * v[0] + k];
    }
    double n0 = e1[1] * e2[2] - e1[2] * e2[1], n1 = e1[2] * e2[0] - e1[0] * e2[2], n2 = e1[0] * e2[1] - e1[1] * e2[0];
    area += 0.5 * sqrt(n0 * n0 + n1 * n1 + n2 * n2);
  }
  assert_near(area, 6.0, 1e-9);
  cl_mesh_destroy(b);
  assert_error(cl_mesh_boundary(b = NULL, &b), CL_ERR_INVALID_ARGUMENT, "NULL");
  cl_mesh *pts = NULL;
  assert_ok(cl_mesh_from_arrays(CL_MESH_POINTS, m->x, 4, NULL, 0, &pts));
  assert_error(cl_mesh_boundary(pts, &b), CL_ERR_INVALID_ARGUMENT, "tets are needed");
  cl_mesh_destroy(pts);
  cl_mesh_destroy(m);
}

static void test_carve(void **state) {
  (void)state;
  cl_mesh *m = tet_grid(20);
  /* a point field equal to x, and a cell field equal to the cell index, to follow the compaction */
  double *px = malloc(sizeof(double) * (size_t)m->npoints), *ci = malloc(sizeof(double) * (size_t)m->ncells);
  for (int32_t i = 0; i < m->npoints; ++i) px[i] = m->x[3 * i];
  for (int32_t c = 0; c < m->ncells; ++c) ci[c] = c;
  assert_ok(cl_mesh_set_field(m, "x", CL_FIELD_POINT, 1, px, m->npoints));
  assert_ok(cl_mesh_set_field(m, "cell", CL_FIELD_CELL, 1, ci, m->ncells));
  cl_mesh *orig = NULL;
  assert_ok(cl_mesh_copy(m, &orig));
  const double centers[6] = {0.5, 0.5, 0.5, 0.0, 0.0, 0.0};
  const double radii[2] = {0.3, 0.25};
  assert_ok(cl_mesh_carve_spheres(m, centers, radii, 2));
  cl_mesh_info info;
  assert_ok(cl_mesh_get_info(m, &info));
  double removed = 4.0 / 3.0 * 3.14159265358979323846 * (0.027 + 0.125 * 0.015625); /* the corner sphere is one eighth inside */
  assert_near(info.measure, 1.0 - removed, 0.02);
  assert_ok(cl_mesh_validate(m, "carved"));
  /* no tet centroid inside a sphere; every point used; fields follow their points and cells */
  char *used = calloc((size_t)m->npoints, 1);
  for (int32_t c = 0; c < m->ncells; ++c) {
    double g[3] = {0, 0, 0};
    for (int k = 0; k < 4; ++k) {
      used[m->cells[4 * c + k]] = 1;
      for (int q = 0; q < 3; ++q) g[q] += 0.25 * m->x[3 * m->cells[4 * c + k] + q];
    }
    for (int s = 0; s < 2; ++s) {
      double d2 = 0;
      for (int q = 0; q < 3; ++q) d2 += (g[q] - centers[3 * s + q]) * (g[q] - centers[3 * s + q]);
      assert_true(d2 >= radii[s] * radii[s]);
    }
    /* cell field: the original cell with the same corners */
    int32_t oc = (int32_t)m->fields[1].values[c];
    for (int k = 0; k < 4; ++k)
      for (int q = 0; q < 3; ++q)
        assert_true(orig->x[3 * orig->cells[4 * oc + k] + q] == m->x[3 * m->cells[4 * c + k] + q]);
  }
  for (int32_t i = 0; i < m->npoints; ++i) {
    assert_true(used[i]);
    assert_true(m->fields[0].values[i] == m->x[3 * i]);
  }
  free(used);
  /* points: removed by position */
  cl_mesh *p = NULL;
  assert_ok(cl_mesh_from_arrays(CL_MESH_POINTS, orig->x, orig->npoints, NULL, 0, &p));
  assert_ok(cl_mesh_carve_spheres(p, centers, radii, 1));
  int32_t expect = 0;
  for (int32_t i = 0; i < orig->npoints; ++i) {
    double d2 = 0;
    for (int q = 0; q < 3; ++q) d2 += (orig->x[3 * i + q] - 0.5) * (orig->x[3 * i + q] - 0.5);
    expect += d2 >= 0.09;
  }
  assert_int_equal(p->npoints, expect);
  for (int32_t i = 0; i < p->npoints; ++i) {
    double d2 = 0;
    for (int q = 0; q < 3; ++q) d2 += (p->x[3 * i + q] - 0.5) * (p->x[3 * i + q] - 0.5);
    assert_true(d2 >= 0.09);
  }
  /* errors leave the mesh as it was */
  int32_t np = p->npoints;
  const double big[1] = {10.0};
  assert_error(cl_mesh_carve_spheres(p, centers, big, 1), CL_ERR_MESH, "remove the whole mesh");
  assert_int_equal(p->npoints, np);
  const double zero[1] = {0.0};
  assert_error(cl_mesh_carve_spheres(p, centers, zero, 1), CL_ERR_INVALID_ARGUMENT, "radius = 0");
  const double nanc[3] = {NAN, 0, 0};
  assert_error(cl_mesh_carve_spheres(p, nanc, radii, 1), CL_ERR_INVALID_ARGUMENT, "not finite");
  assert_error(cl_mesh_carve_spheres(p, centers, radii, -1), CL_ERR_INVALID_ARGUMENT, "count = -1");
  assert_ok(cl_mesh_carve_spheres(p, NULL, NULL, 0)); /* nothing to carve */
  assert_int_equal(p->npoints, np);
  cl_mesh *s = NULL;
  cl_shape_def sd;
  cl_shape_def_default(&sd, CL_SHAPE_BOX);
  assert_ok(cl_shape_build(&sd, &s));
  assert_error(cl_mesh_carve_spheres(s, centers, radii, 1), CL_ERR_INVALID_ARGUMENT, "triangle surface is not supported");
  cl_mesh_destroy(s);
  cl_mesh_destroy(p);
  cl_mesh_destroy(orig);
  cl_mesh_destroy(m);
  free(px);
  free(ci);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hash_grid_static), cmocka_unit_test(test_hash_grid_dynamic),
      cmocka_unit_test(test_components),       cmocka_unit_test(test_boundary_faces),
      cmocka_unit_test(test_boundary_of_grid), cmocka_unit_test(test_carve),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
