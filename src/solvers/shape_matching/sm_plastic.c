/* Plasticity per cluster (paper sec 3.2, after Bargteil, Wojtan, Hodgins and Turk 2007), from the
 * SVD F^e = U Sigma V^T of the step (eq 9: F^e = F (F^p)^-1, decomposed in eq 5):
 *   F*    = det(Sigma)^(-1/3) Sigma                                   (eq 10, volume preserving)
 *   flow when ||F* - I||_F > lambda + K alpha                          (eq 11, with hardening)
 *   gamma = min(nu (||F* - I||_F - lambda - K alpha) / ||F* - I||_F, 1) (eq 13), nu = k dt
 *   F^p  <- (F*)^gamma V^T F^p                                         (eq 12)
 *   alpha += ||Sigma - I||_F dt / t_h                                  (eq 14)
 * The flow rate: the paper's nu is a fraction per step (its scene files give it per 1/60 s frame);
 * cleave's material.plastic_flow is a rate k in 1/s in every solver, and nu = k dt. Why: with the
 * deformation F held, eq 12 leaves F^e the singular values det(Sigma)^(1/3) (F*)^(1 - gamma), so
 * the elastic log-stretch L = ||ln F*||_F becomes (1 - gamma) L, and with eq 13's gamma (and
 * ||F* - I|| ~ L for small strain) the excess e = L - lambda_eff becomes (1 - nu) e: nu is the
 * fraction of the excess that flows per step. A law that does not depend on the step is
 * de/dt = -k e (relaxation at the rate k); nu = k dt is its forward-Euler step, right to first order
 * in k dt, and it is the corotational solver's rule (eps_p += min(1, creep dt) of the excess,
 * corotational/plasticity.c; the two agree while k dt <= 1). The exact step nu = 1 - exp(-k dt)
 * is not used: it cannot express the authors' common nu = 1 (the whole excess every frame) with a
 * finite k, whereas nu = k dt converts their values exactly, k = nu / (1/60 s): nu = 1 -> 60 1/s.
 * Above k dt = 1, eq 13's min(., 1) caps the step as it caps the paper's nu > 1.
 * Notes on the reading:
 *  - eq 12 prints "(F*)^gamma V F^p"; the factor that maps F^p into the frame of Sigma is V^T
 *    (F^e V = U Sigma), which is what the authors' code applies. Left rotations are dropped as the
 *    paper says (they vanish in the polar decomposition of the next step).
 *  - eq 14 prints ||F^e - I||_F, which would grow under a rigid rotation; the rotation-free
 *    ||F^e - R||_F = ||Sigma - I||_F is used, as in the authors' code.
 *  - the authors add ||Sigma - I|| once per frame; here the rate is integrated over dt with the
 *    time unit t_h ('hardening_time', default 1/60 s), so K keeps their meaning at their frame
 *    rate and the hardening no longer depends on the step size.
 *  - a cluster with a nearly degenerate or inverted F^e (smallest singular value below 1e-4, the
 *    authors' guard) does not flow, and F^p stays I for clusters whose A_rr^+ clamped (sec 3.3).
 *  - material.plastic_max > 0 caps the plastic stretch ||Sigma(F^p) - I||_F: a flow step that would
 *    exceed it is not taken. */
#include <math.h>
#include <string.h>

#include "solvers/shape_matching/sm_internal.h"

void cl_sm_plastic_update(cl_sm *s, int32_t c, double dt) {
  if (s->clamped[c]) return;
  const double *sg = s->sig + 3 * (size_t)c;
  double strain = sqrt((sg[0] - 1.0) * (sg[0] - 1.0) + (sg[1] - 1.0) * (sg[1] - 1.0) + (sg[2] - 1.0) * (sg[2] - 1.0));
  if (!(sg[2] >= 1e-4)) {
    s->hard[c] += strain * dt / s->p.hardening_time;
    return;
  }
  double scale = 1.0 / cbrt(sg[0] * sg[1] * sg[2]);
  double fs[3] = {sg[0] * scale, sg[1] * scale, sg[2] * scale};
  double norm = sqrt((fs[0] - 1.0) * (fs[0] - 1.0) + (fs[1] - 1.0) * (fs[1] - 1.0) + (fs[2] - 1.0) * (fs[2] - 1.0));
  double yield = s->yield + s->hardening * s->hard[c];
  if (norm > yield && norm > 0.0) {
    double gam = fmin(s->flow * dt * (norm - yield) / norm, 1.0); /* eq 13 with nu = k dt */
    double p[3] = {pow(fs[0], gam), pow(fs[1], gam), pow(fs[2], gam)};
    cl_mat3 V, Fp;
    memcpy(V.m, s->Vp + 9 * (size_t)c, sizeof V.m);
    memcpy(Fp.m, s->Fp + 9 * (size_t)c, sizeof Fp.m);
    cl_mat3 VtFp = cl_mat3_mul_tn(&V, &Fp);
    cl_mat3 Fn;
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 3; ++k) Fn.m[3 * r + k] = p[r] * VtFp.m[3 * r + k];
    int ok = 1;
    if (s->plastic_max > 0.0) {
      cl_mat3 U, W;
      cl_vec3 ps;
      if (cl_svd3_fast(&Fn, &U, &ps, &W) < 0) ok = 0;
      else {
        double e = sqrt((ps.x - 1.0) * (ps.x - 1.0) + (ps.y - 1.0) * (ps.y - 1.0) + (ps.z - 1.0) * (ps.z - 1.0));
        if (e > s->plastic_max) ok = 0;
      }
    }
    cl_mat3 Fi;
    if (ok && cl_mat3_inverse(&Fn, &Fi) == CL_OK) {
      memcpy(s->Fp + 9 * (size_t)c, Fn.m, sizeof Fn.m);
      memcpy(s->Fp_inv + 9 * (size_t)c, Fi.m, sizeof Fi.m);
    }
  }
  s->hard[c] += strain * dt / s->p.hardening_time;
}
