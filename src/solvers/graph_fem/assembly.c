/* Assembly of eq 3 of the paper (backward Euler, velocity form) with Rayleigh damping
 * C = alpha M + beta K:
 *     A = M (1 + dt alpha) + (dt^2 + dt beta) K,     b = M v + dt (f_el + f_ext + M g)
 * (in a static iteration, static.c: dt = 1, v = 0, A = K + mu M with the continuation's shift mu)
 * and r0 = b - A v, so that A dv = r0 is the paper's (M + dt^2 K) dv = dt (f_ext - f_int - dt K v)
 * (f_int = -f_el) when alpha = beta = 0. K is the sum of the element stiffnesses of element.c (the
 * model's projected tangent, or the degraded element's), so A is symmetric positive definite.
 *
 * A row-wise gather, as in the corotational solver: row i of A is written only while visiting node i
 * (its incident elements' stored 12x12 matrices), so rows run in parallel with no atomics and the
 * result does not depend on the thread count. */
#include <string.h>

#include "base/error.h"
#include "solvers/graph_fem/gfem.h"

cl_status cl_gfem_build_slots(cl_gfem *s, const cl_body_state *st) {
  const cl_bsr *A = s->sys.A;
  for (int32_t e = 0; e < s->ntets; ++e) {
    const int32_t *t = st->cells + 4 * (size_t)e;
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        const int64_t q = cl_bsr_find(A, t[a], t[b]);
        if (q < 0) return cl_fail(CL_ERR_STATE, "%s: block (%d, %d) missing from the pattern", s->body, t[a], t[b]);
        s->slot[16 * (size_t)e + 4 * a + b] = q;
      }
  }
  return CL_OK;
}

void cl_gfem_assemble(cl_gfem *s, const cl_body_state *st, const cl_step_input *in) {
  const double dt = in->dt;
  const int statics = s->sys.statics;
  const double ks = statics ? 1.0 : dt * dt + dt * s->p[GF_BETA];
  const double ms = statics ? s->static_shift : 1.0 + dt * s->p[GF_ALPHA];
  const double *g = in->gravity, *fext = in->f_ext;
  cl_bsr *A = s->sys.A;
  const int32_t nn = s->nnodes;
#pragma omp parallel for schedule(static) num_threads(s->threads) if (nn > 1024)
  for (int32_t i = 0; i < nn; ++i) {
    memset(A->val + 9 * A->row_ptr[i], 0, sizeof(double) * 9 * (size_t)(A->row_ptr[i + 1] - A->row_ptr[i]));
    const double m = st->m[i];
    double *d = A->val + 9 * A->diag[i];
    d[0] += m * ms;
    d[4] += m * ms;
    d[8] += m * ms;
    double f[3] = {0.0, 0.0, 0.0};
    for (int32_t q = s->inc_ptr[i]; q < s->inc_ptr[i + 1]; ++q) {
      const int32_t e = s->inc[q] >> 2, a = s->inc[q] & 3;
      const double *fe = s->fe + 12 * (size_t)e + 3 * a, *K = s->Ke + 144 * (size_t)e;
      for (int c = 0; c < 3; ++c) f[c] += fe[c];
      for (int b = 0; b < 4; ++b) {
        double *blk = A->val + 9 * s->slot[16 * (size_t)e + 4 * a + b];
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) blk[3 * r + c] += ks * K[12 * (3 * a + r) + 3 * b + c];
      }
    }
    const double *v = st->v + 3 * (size_t)i;
    for (int c = 0; c < 3; ++c) {
      const double fx = fext ? fext[3 * (size_t)i + c] : 0.0;
      s->sys.b[3 * i + c] = m * v[c] + dt * (f[c] + fx + m * g[c]);
      s->sys.v[3 * i + c] = v[c];
    }
  }
  cl_bsr_residual(A, s->sys.b, s->sys.v, NULL, s->sys.r0);
}
