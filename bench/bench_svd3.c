/* `cleave bench svd3`: the 3x3 decompositions the solvers call once per cluster or element and
 * step, in ns per call: cl_svd3 (one-sided Jacobi from V = I), cl_svd3_fast (closed-form start from
 * A^T A, then the same one-sided Jacobi), cl_polar3 (Newton's polar iteration, SVD fallback) and
 * cl_polar3_near (Newton-Schulz, taken for ||A^T A - I||_F <= 0.2 and det A > 0; the column times it
 * as the shape-matching solver calls it, with cl_svd3_fast for the inputs it refuses).
 *
 * Inputs, 4096 per category from a fixed seed: near-rotations R (I + s G) with G standard normal at
 * strains s = 1e-4 .. 0.2 (the deformation gradients of clusters and elements), inverted
 * near-rotations, standard normal matrices, nearly repeated singular values (1 + 1e-8), an exact
 * uniaxial stretch (1.01, 1, 1) and pure rotations. Each figure is the median of 7 passes over the
 * category. Options: --passes N (default 7). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mat3.h"
#include "base/rng.h"
#include "bench_util.h"

enum { N_IN = 4096, N_CAT = 9 };

static cl_mat3 inputs[N_IN];
static volatile double sink;

typedef cl_status (*svd_fn)(const cl_mat3 *, cl_mat3 *, cl_vec3 *, cl_mat3 *);

typedef struct pass {
  svd_fn svd; /* NULL: a polar decomposition */
  int near;   /* with svd NULL: 1 cl_polar3_near (else cl_svd3_fast), 0 cl_polar3 */
} pass;

static void run_pass(void *ctx) {
  const pass *p = ctx;
  double acc = 0.0;
  for (int i = 0; i < N_IN; ++i) {
    cl_mat3 U, V;
    cl_vec3 s = cl_vec3_zero();
    if (p->svd) {
      p->svd(&inputs[i], &U, &s, &V);
    } else if (!p->near) {
      cl_polar3(&inputs[i], &U, NULL);
      V = U;
    } else if (cl_polar3_near(&inputs[i], &U, &s.x)) {
      V = U;
    } else {
      cl_svd3_fast(&inputs[i], &U, &s, &V);
    }
    acc += s.x + U.m[0] + V.m[4];
  }
  sink = acc;
}

/* The i-th input of category c. */
static cl_mat3 make_input(int c, cl_rng *r) {
  static const double strain[4] = {1e-4, 1e-2, 0.05, 0.2};
  const cl_mat3 R = cl_rng_rotation(r);
  if (c < 4) {
    cl_mat3 E;
    for (int k = 0; k < 9; ++k) E.m[k] = (k % 4 == 0 ? 1.0 : 0.0) + strain[c] * cl_rng_normal(r);
    return cl_mat3_mul(&R, &E);
  }
  if (c == 5) {
    cl_mat3 A;
    for (int k = 0; k < 9; ++k) A.m[k] = cl_rng_normal(r);
    return A;
  }
  cl_vec3 s;
  if (c == 4) { /* inverted: one negative singular value */
    s = cl_vec3_make(1.0 + 0.05 * cl_rng_normal(r), 1.0 + 0.05 * cl_rng_normal(r), -(1.0 + 0.05 * cl_rng_normal(r)));
  } else if (c == 6) {
    const double a = cl_rng_range(r, 1.0, 1.3);
    s = cl_vec3_make(a, a * (1.0 + 1e-8), 0.5);
  } else if (c == 7) {
    s = cl_vec3_make(1.01, 1.0, 1.0);
  } else {
    s = cl_vec3_make(1.0, 1.0, 1.0);
  }
  const cl_mat3 Q = cl_rng_rotation(r), D = cl_mat3_diag(s), T = cl_mat3_mul(&R, &D);
  return cl_mat3_mul_nt(&T, &Q);
}

int main(int argc, char **argv) {
  int passes = 7;
  const cl_bench_opt opts[] = {{"--passes", CL_BENCH_INT, &passes, 1, 64, "N"}};
  if (!cl_bench_parse_options("cleave bench svd3", opts, 1, argc, argv)) return 2;
  static const char *names[N_CAT] = {"near-rotation, strain 1e-4", "near-rotation, strain 1e-2",
                                     "near-rotation, strain 0.05", "near-rotation, strain 0.2",
                                     "inverted near-rotation",     "standard normal",
                                     "nearly repeated (1 + 1e-8)", "uniaxial (1.01, 1, 1)",
                                     "pure rotation"};
  cl_bench_print_machine();
  printf("ns per call, median of %d passes over %d inputs per category\n", passes, N_IN);
  printf("%-28s %10s %10s %8s %10s %11s\n", "inputs", "cl_svd3", "svd3_fast", "speedup", "cl_polar3", "polar3_near");
  cl_rng r;
  cl_rng_seed(&r, 20261122);
  for (int c = 0; c < N_CAT; ++c) {
    for (int i = 0; i < N_IN; ++i) inputs[i] = make_input(c, &r);
    pass ref = {cl_svd3, 0}, fast = {cl_svd3_fast, 0}, polar = {NULL, 0}, near = {NULL, 1};
    const double scale = 1e6 / N_IN; /* ms per pass -> ns per call */
    const double a = cl_bench_median_ms(passes, run_pass, &ref) * scale;
    const double b = cl_bench_median_ms(passes, run_pass, &fast) * scale;
    const double p = cl_bench_median_ms(passes, run_pass, &polar) * scale;
    const double q = cl_bench_median_ms(passes, run_pass, &near) * scale;
    printf("%-28s %10.1f %10.1f %7.2fx %10.1f %11.1f\n", names[c], a, b, a / b, p, q);
  }
  return 0;
}
