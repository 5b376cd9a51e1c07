/* Dynamics assembly of one island (thesis sec 3.2.4 and Alg. 2/3), as a row-wise gather.
 *
 * The system of eq 3.8, with Rayleigh damping C = alpha M + beta K (eq 3.11) and the lumped mass M:
 *   A = M (1 + dt alpha) + (dt^2 + dt beta) K                                   (eq 3.9)
 *   b = M v - dt (K x + f_u - f_ext) = M v + dt (f_el + f_ext + M g)            (eq 3.10)
 * where K = sum_e R_e K_e R_e^T is the warped stiffness and f_el = -sum_e R_e K_e (R_e^T x - X) the
 * elastic force of element.c (K x + f_u of the thesis, with f_u = -R K X as in Alg. 3).
 *
 * Gather instead of scatter: row i of A is written only while visiting node i, which walks the
 * elements around it (the incidence of islands.c) and adds the blocks (corner of i, b) of each.
 * Every row belongs to one thread, so the loop over rows runs in parallel with no colouring and no
 * atomics, the result does not depend on the thread count, and each row's blocks are zeroed and
 * filled while in cache. (Each element block is built twice, once from each end, which is cheaper
 * than the extra memory traffic of storing it: a block is two outer products of the rotated
 * gradients, fem/tet.h.) */
#include <string.h>

#include "fem/tet.h"
#include "solvers/corotational/corot.h"

void cl_corot_assemble_island(const cl_corot *s, const cl_body_state *st, const cl_step_input *in,
                              cl_corot_island *isl) {
  const double dt = in->dt;
  /* statics (static.c): A = K and b = f_el + f_ext + M g (dt = 1, v = 0): one Newton iteration */
  const double ks = s->statics ? 1.0 : dt * dt + dt * s->p[CL_COROT_BETA];
  const double ms = s->statics ? s->static_shift : 1.0 + dt * s->p[CL_COROT_ALPHA];
  const double lam = s->lambda, mu = s->mu;
  const double *g = in->gravity, *fext = in->f_ext;
  cl_bsr *A = isl->sys.A;
  const int32_t nn = isl->nnodes;
#pragma omp parallel for schedule(static) num_threads(s->threads) if (nn > 256)
  for (int32_t li = 0; li < nn; ++li) {
    const int32_t node = isl->nodes[li];
    memset(A->val + 9 * A->row_ptr[li], 0, sizeof(double) * 9 * (size_t)(A->row_ptr[li + 1] - A->row_ptr[li]));
    const double m = st->m[node];
    double *d = A->val + 9 * A->diag[li];
    d[0] += m * ms;
    d[4] += m * ms;
    d[8] += m * ms;
    double fx = 0.0, fy = 0.0, fz = 0.0;
    for (int32_t q = s->inc_ptr[node]; q < s->inc_ptr[node + 1]; ++q) {
      const int32_t e = s->inc[q] >> 2, a = s->inc[q] & 3;
      const double *h = s->h + 12 * (size_t)e, *ha = h + 3 * a;
      const double *fe = s->f + 12 * (size_t)e + 3 * a;
      fx += fe[0];
      fy += fe[1];
      fz += fe[2];
      /* (dt^2 + dt beta) K_ab of the warped stiffness (fem/tet.h): c = ks V */
      const double c = ks * s->vol[e];
      const double la[3] = {c * lam * ha[0], c * lam * ha[1], c * lam * ha[2]};
      const double ma[3] = {c * mu * ha[0], c * mu * ha[1], c * mu * ha[2]};
      const int64_t *slot = s->inc_slot + 4 * (int64_t)q;
      for (int b = 0; b < 4; ++b) cl_fem_stiffness_block_add(la, ma, h + 3 * b, A->val + 9 * slot[b]);
    }
    const double *v = st->v + 3 * (size_t)node;
    double *bi = isl->sys.b + 3 * (size_t)li, *vi = isl->sys.v + 3 * (size_t)li;
    const double fe0 = fext ? fext[3 * (size_t)node] : 0.0;
    const double fe1 = fext ? fext[3 * (size_t)node + 1] : 0.0;
    const double fe2 = fext ? fext[3 * (size_t)node + 2] : 0.0;
    bi[0] = m * v[0] + dt * (fx + fe0 + m * g[0]);
    bi[1] = m * v[1] + dt * (fy + fe1 + m * g[1]);
    bi[2] = m * v[2] + dt * (fz + fe2 + m * g[2]);
    vi[0] = v[0];
    vi[1] = v[1];
    vi[2] = v[2];
  }
  /* r0 = b - A v: the right-hand side of the correction solve A dv = r0 (linsolve.c) */
  cl_bsr_residual(A, isl->sys.b, isl->sys.v, NULL, isl->sys.r0);
}
