/* Assembly of eq 3 of the paper (backward Euler, velocity form) with Rayleigh damping
 * C = alpha M + beta K:
 *     A = M (1 + dt alpha) + (dt^2 + dt beta) K,     b = M v + dt (f_el + f_ext + M g)
 * (in a static iteration, static.c: dt = 1, v = 0, A = K + mu M with the continuation's shift mu)
 * and r0 = b - A v, so that A dv = r0 is the paper's (M + dt^2 K) dv = dt (f_ext - f_int - dt K v)
 * (f_int = -f_el) when alpha = beta = 0. K is the sum of the element stiffnesses of element.c (the
 * model's projected tangent, the warped blocks of tangent = warped, or the degraded element's), so A
 * is symmetric positive definite.
 *
 * Each thread owns a range of rows (split by blocks) and walks the elements in their order, adding
 * the blocks of its rows only: no atomics, and every block receives the mass and then its elements in
 * ascending order whatever the thread count, so A, b and r0 do not depend on it. */
#include <stdint.h>
#include <string.h>

#include "base/error.h"
#include "fem/tet.h"
#include "solvers/graph_fem/gfem.h"

cl_status cl_gfem_build_slots(cl_gfem *s, const cl_body_state *st) {
  const cl_bsr *A = s->sys.A;
  for (int32_t e = 0; e < s->ntets; ++e) {
    const int32_t *t = st->cells + 4 * (size_t)e;
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        const int64_t q = cl_bsr_find(A, t[a], t[b]);
        if (q < 0) return cl_fail(CL_ERR_STATE, "%s: block (%d, %d) missing from the pattern", s->body, t[a], t[b]);
        if (q > INT32_MAX)
          return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: the stiffness matrix has %lld blocks, more than the %d the "
                         "assembly's 32-bit slots address", s->body, (long long)A->nnzb, INT32_MAX);
        s->slot[16 * (size_t)e + 4 * a + b] = (int32_t)q;
      }
  }
  return CL_OK;
}

/* The element's stiffness blocks of row a (corner a of tet e): A(t_a, t_b) += ks K_e(a, b), b = 0..3.
 * C: corner 0's blocks of a Ke (cl_tet_upper_corner0), made once per element by the caller. */
static inline void add_element_row(const cl_gfem *s, int32_t e, int a, double ks, const double *C, double *val) {
  const int32_t *slot = s->slot + 16 * (size_t)e + 4 * a;
  if (!C) { /* the warped blocks from the rotated gradients (warped.c) */
    const double *h = s->h + 12 * (size_t)e, c = ks * s->vol[e];
    const double la[3] = {c * s->lambda0 * h[3 * a], c * s->lambda0 * h[3 * a + 1], c * s->lambda0 * h[3 * a + 2]};
    const double ma[3] = {c * s->mu0 * h[3 * a], c * s->mu0 * h[3 * a + 1], c * s->mu0 * h[3 * a + 2]};
    for (int b = 0; b < 4; ++b) cl_fem_stiffness_block_add(la, ma, h + 3 * b, val + 9 * slot[b]);
    return;
  }
  /* row a of Ke from its upper form (fem/tet.h): the numbers the whole matrix held */
  const double *Ku = s->Ke + CL_TET_UPPER * (size_t)e;
  if (a == 0) {
    for (int b = 0; b < 4; ++b) {
      double *blk = val + 9 * slot[b];
      for (int k = 0; k < 9; ++k) blk[k] += ks * C[9 * b + k];
    }
    return;
  }
  double *blk = val + 9 * slot[0]; /* K_a0 = K_0a^T */
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) blk[3 * r + c] += ks * C[9 * a + 3 * c + r];
  for (int b = 1; b < 4; ++b) {
    blk = val + 9 * slot[b];
    const double *B = Ku + 9 * cl_tet_upper_index(a < b ? a : b, a < b ? b : a);
    if (a <= b)
      for (int k = 0; k < 9; ++k) blk[k] += ks * B[k];
    else
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) blk[3 * r + c] += ks * B[3 * c + r];
  }
}

enum { ASM_PREFETCH = 6 };

/* Rows [lo, hi) of A, b, v and r0 = b - A v. The elements are walked in their order, so their data
 * stream through memory; a node-major walk (node -> its tets -> their arrays) jumped over about 2000
 * tets within one node's list and waited on cache misses most of its time (9.5 ms for 36k tets
 * against 3 here, bench/bench_graph_fem.c). Each block still receives its elements in ascending order
 * after the mass, as in the node-major walk (the incidence lists are sorted), so A is the same to
 * the bit whatever the thread count. r0 holds the elastic forces f of each row until the row's b is
 * made. Without `matrix` (a lagged step, lagged.c) A is left as it is and only b and r0 = b - A v are
 * made, with the A of the last fresh step. */
static void assemble_rows(cl_gfem *s, const cl_body_state *st, const cl_step_input *in, double ks, double ms,
                          int32_t lo, int32_t hi, int matrix) {
  cl_bsr *A = s->sys.A;
  double *val = A->val, *f = s->sys.r0;
  if (matrix) memset(val + 9 * A->row_ptr[lo], 0, sizeof(double) * 9 * (size_t)(A->row_ptr[hi] - A->row_ptr[lo]));
  memset(f + 3 * (size_t)lo, 0, sizeof(double) * 3 * (size_t)(hi - lo));
  for (int32_t i = lo; i < hi && matrix; ++i) {
    double *d = val + 9 * A->diag[i];
    const double mi = st->m[i] * ms;
    d[0] += mi;
    d[4] += mi;
    d[8] += mi;
  }
  const int32_t *cells = st->cells;
  for (int32_t e = 0; e < s->ntets; ++e) {
    const int32_t *t = cells + 4 * (size_t)e;
    if (matrix && e + ASM_PREFETCH < s->ntets) { /* A's blocks of a tet ahead, in this part's rows */
      const int32_t *tp = t + 4 * ASM_PREFETCH;
      const int32_t *sp = s->slot + 16 * (size_t)(e + ASM_PREFETCH);
      for (int a = 0; a < 4; ++a)
        if (tp[a] >= lo && tp[a] < hi)
          for (int b = 0; b < 4; ++b) { /* a block is 72 bytes: most span two cache lines */
            __builtin_prefetch(val + 9 * sp[4 * a + b], 1, 3);
            __builtin_prefetch(val + 9 * sp[4 * a + b] + 8, 1, 3);
          }
    }
    int mine = 0;
    for (int a = 0; a < 4; ++a) mine |= t[a] >= lo && t[a] < hi;
    if (!mine) continue;
    double C[36]; /* a Ke's corner-0 blocks, once for the rows of this part */
    const int warped = s->use_h && !s->dmg[e] && s->hk[e];
    if (matrix && !warped) cl_tet_upper_corner0(s->Ke + CL_TET_UPPER * (size_t)e, s->kform[e], C);
    for (int a = 0; a < 4; ++a) {
      if (t[a] < lo || t[a] >= hi) continue;
      const double *fe = s->fe + 12 * (size_t)e + 3 * a;
      double *fi = f + 3 * (size_t)t[a];
      for (int c = 0; c < 3; ++c) fi[c] += fe[c];
      if (matrix) add_element_row(s, e, a, ks, warped ? NULL : C, val);
    }
  }
  const double dt = in->dt, *g = in->gravity, *fext = in->f_ext;
  for (int32_t i = lo; i < hi; ++i) {
    const double m = st->m[i], *v = st->v + 3 * (size_t)i;
    double bi[3];
    for (int c = 0; c < 3; ++c) {
      const double fx = fext ? fext[3 * (size_t)i + c] : 0.0;
      bi[c] = m * v[c] + dt * (f[3 * (size_t)i + c] + fx + m * g[c]);
      s->sys.b[3 * i + c] = bi[c];
      s->sys.v[3 * i + c] = v[c];
    }
    double t[3] = {0.0, 0.0, 0.0}; /* (A v)_i, summed as spmv.c's rows are */
    for (int64_t q = A->row_ptr[i]; q < A->row_ptr[i + 1]; ++q)
      cl_bsr_block_mul_add(val + 9 * q, st->v + 3 * (int64_t)A->col[q], t);
    double *r0 = s->sys.r0 + 3 * (size_t)i;
    for (int c = 0; c < 3; ++c) r0[c] = bi[c] - t[c];
  }
}

/* The first row of part k of nparts, splitting A's blocks evenly (the gather's work is per block). */
static int32_t part_start(const cl_bsr *A, int k, int nparts) {
  if (k <= 0) return 0;
  if (k >= nparts) return A->n;
  const int64_t target = A->row_ptr[A->n] / nparts * k;
  int32_t lo = 0, hi = A->n; /* first row with row_ptr >= target */
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (A->row_ptr[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Each thread owns a range of rows and writes nothing else, so no atomics. */
void cl_gfem_assemble(cl_gfem *s, const cl_body_state *st, const cl_step_input *in, int matrix) {
  const double dt = in->dt;
  const int statics = s->sys.statics;
  const double ks = statics ? 1.0 : dt * dt + dt * s->p[GF_BETA];
  const double ms = statics ? s->static_shift : 1.0 + dt * s->p[GF_ALPHA];
  const int nt = s->nnodes > 1024 ? s->threads : 1;
#pragma omp parallel for schedule(static, 1) num_threads(nt)
  for (int k = 0; k < nt; ++k)
    assemble_rows(s, st, in, ks, ms, part_start(s->sys.A, k, nt), part_start(s->sys.A, k + 1, nt), matrix);
}
