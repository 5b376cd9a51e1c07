/* cleave bench core: the figures of the foundation issue.
 *   1. ns per 3x3 SVD, polar decomposition and symmetric eigen-decomposition (random matrices,
 *      half of them inverted);
 *   2. block-SpMV throughput on the armadillo meshed to ~150k tets (TetGen -pq2.0), as GB/s of the
 *      minimal memory traffic, next to the copy bandwidth measured in the same run;
 *   3. CHOLMOD analyse / factorize / solve ms on the Charpy specimen meshed to ~28k tets.
 * Every figure is the median of several runs. Options: --quick (smaller sizes, for a smoke test),
 * --threads N (default: 1 and all). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "base/mat3.h"
#include "base/rng.h"
#include "base/timer.h"
#include "cleave/cleave.h"
#include "geom/mesh.h"
#include "linalg/bsr.h"
#include "linalg/cholmod_solver.h"
#include "support/elastic_assembly.h"

static int g_quick = 0;

static void die(const char *what) {
  fprintf(stderr, "cleave bench core: %s: %s\n", what, cl_last_error());
  exit(1);
}

/* ---- 3x3 kernels ---------------------------------------------------------------------------- */

enum { NMAT = 4096 };
typedef struct {
  cl_mat3 A[NMAT];
  int reps;
  double sink;
} mat_ctx;

static void run_svd(void *p) {
  mat_ctx *c = p;
  cl_mat3 U, V;
  cl_vec3 s;
  double acc = 0;
  for (int r = 0; r < c->reps; ++r)
    for (int i = 0; i < NMAT; ++i) {
      cl_svd3(&c->A[i], &U, &s, &V);
      acc += s.z;
    }
  c->sink += acc;
}

static void run_polar(void *p) {
  mat_ctx *c = p;
  cl_mat3 R, S;
  double acc = 0;
  for (int r = 0; r < c->reps; ++r)
    for (int i = 0; i < NMAT; ++i) {
      cl_polar3(&c->A[i], &R, &S);
      acc += R.m[0];
    }
  c->sink += acc;
}

static void run_eig(void *p) {
  mat_ctx *c = p;
  cl_mat3 Q;
  cl_vec3 l;
  double acc = 0;
  for (int r = 0; r < c->reps; ++r)
    for (int i = 0; i < NMAT; ++i) {
      cl_eig_sym3(&c->A[i], &l, &Q);
      acc += l.x;
    }
  c->sink += acc;
}

static void bench_kernels(void) {
  mat_ctx *c = calloc(1, sizeof *c);
  cl_rng rng;
  cl_rng_seed(&rng, 42);
  for (int i = 0; i < NMAT; ++i) {
    for (int k = 0; k < 9; ++k) c->A[i].m[k] = cl_rng_normal(&rng);
    if (i % 2 && cl_mat3_det(&c->A[i]) > 0)
      for (int k = 0; k < 3; ++k) c->A[i].m[k] = -c->A[i].m[k]; /* inverted: det < 0 */
  }
  c->reps = g_quick ? 5 : 50;
  double n = (double)NMAT * c->reps;
  double svd = cl_bench_median_ms(7, run_svd, c) * 1e6 / n;
  double polar = cl_bench_median_ms(7, run_polar, c) * 1e6 / n;
  /* The corotational FEM case: F = R (I + G) with a small strain G, det > 0, well conditioned. */
  mat_ctx *fem = calloc(1, sizeof *fem);
  fem->reps = c->reps;
  for (int i = 0; i < NMAT; ++i) {
    cl_mat3 R = cl_rng_rotation(&rng), G;
    for (int k = 0; k < 9; ++k) G.m[k] = (k % 4 == 0 ? 1.0 : 0.0) + 0.05 * cl_rng_normal(&rng);
    fem->A[i] = cl_mat3_mul(&R, &G);
  }
  double polar_fem = cl_bench_median_ms(7, run_polar, fem) * 1e6 / n;
  free(fem);
  /* eigen-decomposition of the symmetric part A^T A, the separation tensor's use */
  for (int i = 0; i < NMAT; ++i) {
    cl_mat3 At = cl_mat3_transpose(&c->A[i]);
    c->A[i] = cl_mat3_mul(&At, &c->A[i]);
  }
  double eig = cl_bench_median_ms(7, run_eig, c) * 1e6 / n;
  printf("3x3 kernels (%d random matrices x %d, half inverted, median of 7, 1 thread):\n", NMAT, c->reps);
  printf("  svd3 (signed, rotations U, V)   %8.1f ns\n", svd);
  printf("  polar3, general / inverted       %8.1f ns\n", polar);
  printf("  polar3, F = R (I + G), |G| ~ 0.05 %7.1f ns  (the FEM case)\n", polar_fem);
  printf("  eig_sym3                        %8.1f ns\n", eig);
  free(c);
}

/* ---- memory bandwidth and SpMV --------------------------------------------------------------- */

typedef struct {
  double *a, *b;
  int64_t n;
} copy_ctx;

static void run_copy(void *p) {
  copy_ctx *c = p;
  double *restrict a = c->a;
  const double *restrict b = c->b;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < c->n; ++i) a[i] = b[i];
}

typedef struct {
  cl_bsr *A;
  double *x, *y;
  int reps;
} spmv_ctx;

static void run_spmv(void *p) {
  spmv_ctx *c = p;
  for (int r = 0; r < c->reps; ++r) cl_bsr_spmv(c->A, c->x, c->y);
}

/* Cold-cache SpMV: before each timed product, stream a buffer larger than the last-level cache
 * (this VM reports 105 MiB of L3, so a 39 MB matrix would otherwise stay cached between products). */
static double spmv_cold_ms(spmv_ctx *s, copy_ctx *evict, int runs) {
  double t[64];
  if (runs > 64) runs = 64;
  for (int r = 0; r < runs; ++r) {
    run_copy(evict);
    double t0 = cl_time_ms();
    cl_bsr_spmv(s->A, s->x, s->y);
    t[r] = cl_time_ms() - t0;
  }
  for (int i = 1; i < runs; ++i) /* insertion sort: runs is small */
    for (int j = i; j > 0 && t[j] < t[j - 1]; --j) {
      double tmp = t[j];
      t[j] = t[j - 1];
      t[j - 1] = tmp;
    }
  return t[runs / 2];
}

static void bench_spmv(int threads_max) {
  printf("block SpMV y = A x, 3x3 blocks (median of 7):\n");
  cl_mesh *mesh = cl_bench_armadillo_tets(g_quick);
  if (!mesh) die("meshing the armadillo");
  cl_bsr *A;
  int64_t *slots;
  if (cl_test_elastic_system(mesh, 1e5, 0.45, 1.0, &A, &slots) < 0) die("assembling");
  int64_t n = A->n;
  spmv_ctx s = {A, malloc(sizeof(double) * 3 * (size_t)n), malloc(sizeof(double) * 3 * (size_t)n), 0};
  for (int64_t i = 0; i < 3 * n; ++i) s.x[i] = sin((double)i), s.y[i] = 0;
  /* minimal traffic: every block, its column index, the row pointers, x once, y once */
  double bytes = (double)A->nnzb * (72.0 + 4.0) + 8.0 * (double)(n + 1) + 2.0 * 24.0 * (double)n;
  s.reps = g_quick ? 5 : 50;

  copy_ctx c;
  c.n = g_quick ? (1 << 22) : (1 << 25); /* 256 MiB per array: far beyond cache */
  c.a = malloc(sizeof(double) * (size_t)c.n);
  c.b = malloc(sizeof(double) * (size_t)c.n);
  for (int64_t i = 0; i < c.n; ++i) c.a[i] = 0, c.b[i] = (double)i;
  printf("  matrix: %lld block rows, %lld blocks, %.1f MB of matrix data per product\n", (long long)n,
         (long long)A->nnzb, bytes / 1e6);
  for (int t = 1; t <= threads_max; t *= 2) {
    cl_bench_set_threads(t);
    double copy_ms = cl_bench_median_ms(7, run_copy, &c);
    double copy_gbs = 2.0 * 8.0 * (double)c.n / (copy_ms * 1e6);
    double ms = cl_bench_median_ms(7, run_spmv, &s) / s.reps;
    double cold = spmv_cold_ms(&s, &c, g_quick ? 5 : 15);
    double gbs = bytes / (ms * 1e6), cold_gbs = bytes / (cold * 1e6);
    printf("  %d thread%s: copy bandwidth %6.2f GB/s | SpMV warm %7.3f ms = %6.2f GB/s (ratio %.2f) | "
           "cold cache %7.3f ms = %6.2f GB/s (ratio %.2f)\n",
           t, t > 1 ? "s" : " ", copy_gbs, ms, gbs, gbs / copy_gbs, cold, cold_gbs, cold_gbs / copy_gbs);
    if (t == threads_max) break;
    if (t * 2 > threads_max) t = threads_max / 2;
  }
  free(c.a);
  free(c.b);
  free(s.x);
  free(s.y);
  free(slots);
  cl_bsr_destroy(A);
  cl_mesh_destroy(mesh);
}

/* ---- CHOLMOD on the Charpy specimen ---------------------------------------------------------- */

typedef struct {
  cl_cholmod *chol;
  cl_bsr *A;
  double *b, *x;
} chol_ctx;

static void run_analyse_factor(void *p) {
  chol_ctx *c = p;
  cl_cholmod_invalidate_analysis(c->chol);
  if (cl_cholmod_factorize(c->chol, c->A) != CL_OK) die("CHOLMOD factorisation");
}
static void run_factor(void *p) {
  chol_ctx *c = p;
  if (cl_cholmod_factorize(c->chol, c->A) != CL_OK) die("CHOLMOD factorisation");
}
static void run_solve(void *p) {
  chol_ctx *c = p;
  if (cl_cholmod_solve(c->chol, c->b, c->x) != CL_OK) die("CHOLMOD solve");
}

static void bench_cholmod(void) {
  printf("CHOLMOD on the Charpy specimen (scale 10: 0.55 m; E = 1e5 Pa, nu = 0.45, K + M/dt^2 with "
         "dt = 1/60, density 1000):\n");
  cl_mesh *mesh = cl_bench_charpy_tets(g_quick ? 3000.0 : 10400.0);
  if (!mesh) die("meshing the Charpy specimen");
  cl_bsr *A;
  int64_t *slots;
  if (cl_test_elastic_system(mesh, 1e5, 0.45, 1000.0 * 3600.0, &A, &slots) < 0) die("assembling");
  chol_ctx c = {NULL, A, malloc(sizeof(double) * 3 * (size_t)A->n), malloc(sizeof(double) * 3 * (size_t)A->n)};
  for (int64_t i = 0; i < 3 * A->n; ++i) c.b[i] = cos((double)i);
  if (cl_cholmod_create(A, NULL, &c.chol) < 0) die("CHOLMOD set-up");
  double af = cl_bench_median_ms(5, run_analyse_factor, &c);
  double f = cl_bench_median_ms(5, run_factor, &c);
  double s = cl_bench_median_ms(7, run_solve, &c);
  cl_cholmod_stats st;
  cl_cholmod_get_stats(c.chol, &st);
  printf("  analyse %8.2f ms   factorize %8.2f ms   (n = %lld, nnz(L) = %.3g, %s)\n", af - f, f, (long long)st.n,
         st.nnz_l, st.supernodal ? "supernodal" : "simplicial");
  /* the ways of applying the factor (cl_cholmod_solve_mode, and threads for cleave's sweeps), with
   * the relative residual ||b - A x|| / ||b|| each leaves */
  static const struct {
    cl_cholmod_solve_mode mode;
    int threads;
    const char *what;
  } k_modes[] = {{CL_CHOLMOD_SOLVE_CHOLMOD, 1, "CHOLMOD cholmod_l_solve2"},
                 {CL_CHOLMOD_SOLVE_DOUBLE, 1, "cleave sweeps, double, 1 thread"},
                 {CL_CHOLMOD_SOLVE_DOUBLE, 2, "cleave sweeps, double, 2 threads"},
                 {CL_CHOLMOD_SOLVE_SINGLE, 1, "cleave sweeps, single, 1 thread"},
                 {CL_CHOLMOD_SOLVE_SINGLE, 2, "cleave sweeps, single, 2 threads"}};
  const int64_t n3 = 3 * (int64_t)A->n;
  double *res = malloc(sizeof(double) * (size_t)n3);
  for (size_t k = 0; k < sizeof k_modes / sizeof k_modes[0]; ++k) {
    if (k_modes[k].threads > cl_bench_max_threads()) continue;
    if (cl_cholmod_set_solve_mode(c.chol, k_modes[k].mode, k_modes[k].threads) < 0) die("solve mode");
    run_factor(&c);
    double sm = k == 0 ? s : cl_bench_median_ms(9, run_solve, &c);
    run_solve(&c);
    double rn = cl_bsr_residual(A, c.b, c.x, NULL, res), bn = 0.0;
    for (int64_t i = 0; i < n3; ++i) bn += c.b[i] * c.b[i];
    printf("  solve (%-34s) %7.2f ms   relative residual %.2g\n", k_modes[k].what, sm, sqrt(rn / bn));
  }
  free(res);
  cl_cholmod_destroy(c.chol);
  free(c.b);
  free(c.x);
  free(slots);
  cl_bsr_destroy(A);
  cl_mesh_destroy(mesh);
}

int main(int argc, char **argv) {
  int threads = 0;
  const cl_bench_opt opts[] = {
      {"--quick", CL_BENCH_FLAG, &g_quick, 1, 0, NULL},
      {"--threads", CL_BENCH_INT, &threads, 1, 256, "N"},
  };
  if (!cl_bench_parse_options("cleave bench core", opts, (int)(sizeof opts / sizeof opts[0]), argc, argv)) return 2;
  int tmax = threads > 0 ? threads : cl_bench_max_threads();
  printf("cleave bench core  (cleave %s, git %s%s)\n", cl_version(), cl_git_revision(),
         g_quick ? ", --quick: reduced sizes, not for the record" : "");
  cl_bench_print_machine();
  bench_kernels();
  bench_spmv(tmax);
  bench_cholmod();
  return 0;
}
