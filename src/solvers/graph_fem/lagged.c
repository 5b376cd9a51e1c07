/* The lagged tangent of graph_fem (parameter tangent_every = k; docs/solvers/graph_fem.md, "The
 * lagged tangent"). The paper's step (eq 3) makes, every step, A = M + dt^2 K(x_n) and solves
 *     A dv = dt (f_ext + f_el(x_n)) - dt^2 K(x_n) v_n.
 * With k > 1 a step may keep the A of the last fresh step j <= n (and with it the linear solver's
 * set-up: the multigrid's Galerkin products and coarse factor, a CHOLMOD factor):
 *     (M + dt^2 K(x_j)) dv = dt (f_ext + f_el(x_n)) - dt^2 K(x_j) v_n,
 * the forces f_el(x_n) made exactly every step (damping, gravity and external forces as in
 * assembly.c: only K is lagged, in A and in the implicit term). It is one quasi-Newton iteration of
 * backward Euler from v_n; converged, the iteration's fixed point M (v' - v) = dt f(x + dt v') would not depend on
 * the tangent at all, but one iteration stops short of it by an amount the tangent sets, so a lagged
 * step differs from a fresh one. A fresh A is made on the step after k - 1 lagged ones, and whenever
 * what A depends on changed: the parameters, dt, the damage (a broken edge), the held dofs (a
 * constraint, anchor or tool that starts or stops holding), a static solve, and after a step that
 * turned frames in A (supports, contacts: fem/system.h turns A's rows in place). Stability (the
 * docs): a mode of stiffness k_true stepped with a lagged k_lag stays bounded while
 * dt^2 k_true < 4 + 2 dt^2 k_lag, so the body may soften freely but must not stiffen by more than
 * about twice between fresh tangents; rotations turn stiff directions into soft ones, so a step is
 * also fresh once an element's F has moved tangent_drift from the kept tangent's (a soft swinging
 * cantilever blew up without it: tests/c/test_gfem_lagged.c). */
#include <math.h>
#include <string.h>

#include "solvers/graph_fem/gfem.h"

/* max_e ||F_e - F_e(x_j)||_F over the elements, from the element pass's F (s->Fe): how far the shape
 * moved from the kept tangent's, rigid translations aside (a rotation by theta counts about
 * 2 sqrt(2) sin(theta / 2)) */
static double drift(const cl_gfem *s) {
  double worst = 0.0;
#pragma omp parallel for schedule(static) num_threads(s->threads) reduction(max : worst) if (s->ntets > 4096)
  for (int32_t e = 0; e < s->ntets; ++e) {
    const double *F = s->Fe + 9 * (size_t)e, *F0 = s->lag.F + 9 * (size_t)e;
    double d2 = 0.0;
    for (int k = 0; k < 9; ++k) d2 += (F[k] - F0[k]) * (F[k] - F0[k]);
    if (d2 > worst) worst = d2;
  }
  return sqrt(worst);
}

int cl_gfem_lag_decide(cl_gfem *s, const cl_step_input *in) {
  const cl_fem_system *sys = &s->sys;
  const int32_t k = (int32_t)s->p[GF_TANGENT_EVERY];
  const int lagged = k > 1 && s->lag.valid && s->lag.age + 1 < k && !sys->statics && in->dt == s->lag.dt &&
                     s->lag.damage_version == s->damage_version && sys->ncons == sys->nfull &&
                     memcmp(s->lag.p, s->p, sizeof s->lag.p) == 0 &&
                     memcmp(s->lag.mask, sys->fixed, 3 * (size_t)sys->n) == 0;
  s->forces_only = lagged;
  if (lagged) s->lag.drift_fresh = 0;
  return lagged;
}

int cl_gfem_lag_within_drift(cl_gfem *s) {
  const double lim = s->p[GF_TANGENT_DRIFT];
  if (lim == INFINITY) return 1;
  s->lag.drift = drift(s);
  s->lag.drift_fresh = !(s->lag.drift <= lim);
  if (!s->lag.drift_fresh) return 1;
  s->lag.drifted++;
  s->forces_only = 0;
  return 0;
}

void cl_gfem_lag_note(cl_gfem *s, const cl_step_input *in, int lagged) {
  const cl_fem_system *sys = &s->sys;
  s->lag.frames = sys->frames_version;
  /* A is kept only once the step ends as planned (cl_gfem_lag_end): a step that stops on an error
   * may leave it turned */
  s->lag.valid = 0;
  if (lagged) {
    s->lag.keep = 1;
    s->lag.age++;
    s->lag.lagged++;
    return;
  }
  s->lag.fresh++;
  s->lag.age = 0;
  if (s->p[GF_TANGENT_EVERY] <= 1.0) { /* nothing will keep this A: no copies (tangent_every = 1 costs nothing) */
    s->lag.keep = 0;
    return;
  }
  s->lag.dt = in->dt;
  s->lag.damage_version = s->damage_version;
  memcpy(s->lag.p, s->p, sizeof s->lag.p);
  memcpy(s->lag.mask, sys->fixed, 3 * (size_t)sys->n);
  memcpy(s->lag.F, s->Fe, sizeof(double) * 9 * (size_t)s->ntets);
  /* a static iteration's A (K + mu M) and one with supports (turned in prepare) are not kept */
  s->lag.keep = !sys->statics && sys->ncons == sys->nfull;
}

void cl_gfem_lag_end(cl_gfem *s) {
  /* frames_out counts one change of frames every step; more means frames_in turned A's rows */
  s->lag.valid = s->lag.keep && s->sys.frames_version - s->lag.frames == 1u;
  const int32_t k = (int32_t)s->p[GF_TANGENT_EVERY];
  /* after a step the drift made fresh the body is moving fast: the next one likely is fresh too, and
   * a pass with the stiffness serves either kind (a forces-only pass would be made twice) */
  s->forces_only = k > 1 && s->lag.valid && s->lag.age + 1 < k && !s->lag.drift_fresh;
}
