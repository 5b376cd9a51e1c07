/* One time step of the corotational solver (thesis Alg. 1):
 *
 *   UpdateOrientations + CalculateStiffnessMatrix + AddPlasticityForce   element.c (parallel)
 *   DynamicsAssembly                                                     assembly.c, per island
 *   ConjugateGradientSolver                                              linsolve.c, per island
 *   IntegrateNodePositions  x' = x + dt v'                                here
 *
 * Supports and contact solve in local frames. A node held in some directions only (a support of the
 * world, or a node in contact with a collider) gets an orthonormal basis Q_i whose first rows are its
 * held directions; its rows and columns of eq 3.8 are turned into that basis (A_ij <- Q_i A_ij Q_j^T,
 * its parts of b, r0, v, dv likewise), so the held directions become single dofs that the solver
 * table's constraint mask holds exactly, whatever their direction, and the linear solvers stay
 * unchanged. After the solve the node's dv is turned back.
 *
 * Colliders: contact is unilateral and frictional, resolved as an active set within the step (as in
 * Baraff & Witkin 1998 and the contact of implicit FEM codes), not as a correction after it:
 *   1. solve with the constraints and supports;
 *   2. every free node whose end position x + dt v' lies inside a collider becomes a contact: held
 *      along the collider's outward normal n at the surface point p (n . x' = n . p), and, with
 *      friction mu > 0, first also held tangentially at the collider surface's motion (sticking);
 *   3. solve again; the reaction R of each contact (its rows' residual, an impulse) decides: R . n < 0
 *      (the contact would have to pull) lets the node go; a sticking node whose tangential reaction
 *      exceeds mu R . n slides, with the kinetic friction impulse mu (R . n) against its slip as a
 *      load on its tangential rows; a sliding node whose slip reversed sticks again;
 *   4. repeat 2-3 until nothing changes (at most CONTACT_ROUNDS solves).
 * A frictionless contact thus only pushes and lets the surface slide (the Hertz contact of
 * validation/corotational.lua), and the result does not depend on dt through where the contact-free
 * prediction put the node. A supported node (a roller, a symmetry plane: its first nsup rows a_k
 * held) can be in contact too: its contact row is e = n_perp / |n_perp|, the part of the collider's
 * normal n across the held directions (n = sum_k (n . a_k) a_k + |n_perp| e), held where the gap
 * n . (x' - p) vanishes given the support's own targets t_k = a_k . x':
 *     e . x' = e . p - sum_k (n . a_k)(t_k - a_k . p) / |n_perp|,
 * and the tangent rows across both (rows nsup+1..2) carry the friction. The forces the two exert,
 * sum mu_k a_k + lambda n, are read from the rows' reactions R: lambda = R_e / |n_perp| (>= 0, else
 * the contact lets go), mu_k = R_k - lambda (n . a_k). The quarter and octant models of
 * validation/corotational.lua need this: their contact nodes on the symmetry planes are supported. The contact's normal velocity leaves the step at the collider's, reflected
 * with the restitution when the node approached. Nodes still inside a collider after the step (a
 * contact released while penetrating, a node of no element) are projected as before.
 *
 * Two-way contact (dynamic colliders, docs/RIGID_BODIES.md): the impulse a contact node receives is
 * known only after the re-solve. Its row of eq 3.8 reads (A v')_j = b_j + R_j, where R_j =
 * (A dv - r0)_j is what the constraint added over the step; the node then leaves the step with the
 * collider's response velocity v_c instead of the landing velocity v'_j = (x_c - x_j) / dt, one more
 * change m_j (v_c - v'_j). So the contact gave node j the impulse
 *     I_j = R_j + J_j + m_j (v_c,j - v'_j)                                     (N s)
 * with J_j the kinetic friction impulse of a sliding contact (a load on its rows).
 * and the collider receives -I_j and the moment -(x_c,j - c) x I_j about its centre c. Summing the
 * rows of eq 3.8 (K's columns and the element forces sum to zero) gives, with alpha = 0,
 *     P' - P = dt F_ext + sum_held R + (free-row residual of the inexact solve),
 * so the pair conserves momentum exactly once the free rows' residual has zero sum: for islands in
 * contact with a dynamic collider, balance_free_rows removes that sum (the constrained counterpart of
 * conserve_momentum below).
 *
 * Constraints are exact (solvers/solver.h): a held node j with target (x_t, v_t) enters the solve
 * with the velocity that lands it on x_t, v'_j = (x_t - x_j) / dt, so its neighbours feel it in its
 * end position; after the solve x_j = x_t and v_j = v_t are set exactly, and the reaction is the
 * residual of its row, (A v' - b)_j / dt: the force the constraint had to add over the step.
 *
 * Linear momentum: the exact solution of eq 3.8 satisfies (1 + dt alpha) P' = P + dt F_ext on an
 * island without constraints (K's columns sum to zero, element forces have zero sum). An iterative
 * solve stopped at a relative residual r leaves a net force of the order of r: with
 * conserve_momentum = 1 (default) the island's velocity change is shifted uniformly by the
 * difference, which removes exactly that spurious net force and nothing else (a uniform velocity is
 * in K's null space). Angular momentum is not corrected: backward Euler with the stiffness
 * linearised at the start of the step damps it slightly, as it damps every motion it does not
 * resolve (docs/solvers/corotational.md). */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "base/timer.h"
#include "solvers/corotational/corot.h"

/* (A dv - r0)_row for one local row: the constraint force times dt (in the node's frame when it has
 * one). */
static void row_residual(const cl_corot_island *isl, int32_t li, double *out) {
  const cl_bsr *A = isl->A;
  double s0 = -isl->r0[3 * li], s1 = -isl->r0[3 * li + 1], s2 = -isl->r0[3 * li + 2];
  for (int64_t q = A->row_ptr[li]; q < A->row_ptr[li + 1]; ++q) {
    const double *B = A->val + 9 * q, *d = isl->dv + 3 * (size_t)A->col[q];
    s0 += B[0] * d[0] + B[1] * d[1] + B[2] * d[2];
    s1 += B[3] * d[0] + B[4] * d[1] + B[5] * d[2];
    s2 += B[6] * d[0] + B[7] * d[1] + B[8] * d[2];
  }
  out[0] = s0;
  out[1] = s1;
  out[2] = s2;
}

/* Shift the island's dv so that its momentum is the exact (1 + dt alpha)^-1 (P + dt F_ext). */
static void conserve_momentum(const cl_corot *s, const cl_body_state *st, const cl_step_input *in,
                              cl_corot_island *isl) {
  double P[3] = {0, 0, 0}, Pn[3] = {0, 0, 0}, F[3] = {0, 0, 0}, M = 0.0;
  for (int32_t l = 0; l < isl->nnodes; ++l) {
    const int32_t i = isl->nodes[l];
    const double m = st->m[i];
    M += m;
    for (int k = 0; k < 3; ++k) {
      P[k] += m * isl->v[3 * l + k];
      Pn[k] += m * (isl->v[3 * l + k] + isl->dv[3 * l + k]);
      F[k] += m * in->gravity[k] + (in->f_ext ? in->f_ext[3 * (size_t)i + k] : 0.0);
    }
  }
  if (!(M > 0.0)) return;
  const double damp = 1.0 + in->dt * s->p[CL_COROT_ALPHA];
  double d[3];
  for (int k = 0; k < 3; ++k) d[k] = ((P[k] + in->dt * F[k]) / damp - Pn[k]) / M;
  for (int32_t l = 0; l < isl->nnodes; ++l)
    for (int k = 0; k < 3; ++k) isl->dv[3 * l + k] += d[k];
}

/* Constrained islands: shift the free dofs' dv by one vector d (per component, x y z) so that the
 * residual of eq 3.8 summed over the free rows, e = sum_free (A dv - r0), vanishes. With L_i the map
 * from x y z to node i's free rows (its frame's rows, Q_i = I without one, with the held rows zeroed),
 * a shift d moves dv_j by L_j d, so e changes by G d with
 *     G = sum_ij L_i^T A_ij L_j,
 * symmetric positive definite (w^T A w > 0 for the shift vector w), and d = -G^-1 e. A uniform shift
 * of the free nodes is a rigid translation of all but the held directions: it changes the elastic
 * forces only next to the held nodes, by the order of the solver tolerance. The residual that is left
 * in single rows is the solver's tolerance; the momentum it would carry is gone, so the held rows'
 * reactions account for the whole momentum change of the island. One pass over A. */
static void free_map(const cl_corot_island *isl, int32_t i, double L[9]) {
  const uint8_t *f = isl->fixed + 3 * (size_t)i;
  if (isl->frame[i]) {
    memcpy(L, isl->basis + 9 * (size_t)i, 9 * sizeof(double));
  } else {
    memset(L, 0, 9 * sizeof(double));
    L[0] = L[4] = L[8] = 1.0;
  }
  for (int r = 0; r < 3; ++r)
    if (f[r]) L[3 * r] = L[3 * r + 1] = L[3 * r + 2] = 0.0;
}

static void balance_free_rows(cl_corot_island *isl) {
  const cl_bsr *A = isl->A;
  double e[3] = {0.0, 0.0, 0.0}, G[9] = {0.0};
  for (int32_t i = 0; i < A->n; ++i) {
    const uint8_t *fi = isl->fixed + 3 * (size_t)i;
    if (fi[0] && fi[1] && fi[2]) continue;
    double Li[9], res[3];
    free_map(isl, i, Li);
    row_residual(isl, i, res);
    for (int c = 0; c < 3; ++c) e[c] += Li[c] * res[0] + Li[3 + c] * res[1] + Li[6 + c] * res[2];
    for (int64_t q = A->row_ptr[i]; q < A->row_ptr[i + 1]; ++q) {
      const int32_t j = A->col[q];
      const uint8_t *fj = isl->fixed + 3 * (size_t)j;
      if (fj[0] && fj[1] && fj[2]) continue;
      double Lj[9], BL[9];
      free_map(isl, j, Lj);
      const double *B = A->val + 9 * q;
      for (int r = 0; r < 3; ++r) /* BL = B L_j */
        for (int c = 0; c < 3; ++c) BL[3 * r + c] = B[3 * r] * Lj[c] + B[3 * r + 1] * Lj[3 + c] + B[3 * r + 2] * Lj[6 + c];
      for (int r = 0; r < 3; ++r) /* G += L_i^T BL */
        for (int c = 0; c < 3; ++c) G[3 * r + c] += Li[r] * BL[c] + Li[3 + r] * BL[3 + c] + Li[6 + r] * BL[6 + c];
    }
  }
  /* a component without free dofs has a zero row and column in G: leave it out */
  double det = G[0] * (G[4] * G[8] - G[5] * G[7]) - G[1] * (G[3] * G[8] - G[5] * G[6]) +
               G[2] * (G[3] * G[7] - G[4] * G[6]);
  const double scale = fabs(G[0]) + fabs(G[4]) + fabs(G[8]);
  if (!(scale > 0.0) || !(fabs(det) > 1e-12 * scale * scale * scale) || !isfinite(det)) return;
  double Gi[9] = {G[4] * G[8] - G[5] * G[7], G[2] * G[7] - G[1] * G[8], G[1] * G[5] - G[2] * G[4],
                  G[5] * G[6] - G[3] * G[8], G[0] * G[8] - G[2] * G[6], G[2] * G[3] - G[0] * G[5],
                  G[3] * G[7] - G[4] * G[6], G[1] * G[6] - G[0] * G[7], G[0] * G[4] - G[1] * G[3]};
  double d[3];
  for (int r = 0; r < 3; ++r) d[r] = -(Gi[3 * r] * e[0] + Gi[3 * r + 1] * e[1] + Gi[3 * r + 2] * e[2]) / det;
  for (int32_t l = 0; l < isl->nnodes; ++l) {
    double L[9];
    free_map(isl, l, L);
    for (int r = 0; r < 3; ++r) isl->dv[3 * l + r] += L[3 * r] * d[0] + L[3 * r + 1] * d[1] + L[3 * r + 2] * d[2];
  }
}

/* Add the reaction of an impulse I (N s) a node received at point p to a dynamic collider:
 * -I and -(p - c) x I about its centre c. */
static void give_back(const cl_collider_shape *s, const double *p, const double *I) {
  const double r[3] = {p[0] - s->center[0], p[1] - s->center[1], p[2] - s->center[2]};
  s->impulse[0] -= I[0];
  s->impulse[1] -= I[1];
  s->impulse[2] -= I[2];
  s->impulse[3] -= r[1] * I[2] - r[2] * I[1];
  s->impulse[4] -= r[2] * I[0] - r[0] * I[2];
  s->impulse[5] -= r[0] * I[1] - r[1] * I[0];
}

/* ---- local frames ---------------------------------------------------------------------------- */

/* Complete the first `held` rows of Q (orthonormal) to an orthonormal basis (rows), right-handed. */
static void basis_complete(double Q[9], int held) {
  if (held <= 0) {
    memset(Q, 0, 9 * sizeof(double));
    Q[0] = Q[4] = Q[8] = 1.0;
    return;
  }
  if (held == 1) {
    /* a unit vector across the first row: with the axis least aligned with it */
    const double *n = Q;
    int m = fabs(n[0]) <= fabs(n[1]) && fabs(n[0]) <= fabs(n[2]) ? 0 : (fabs(n[1]) <= fabs(n[2]) ? 1 : 2);
    double e[3] = {0.0, 0.0, 0.0};
    e[m] = 1.0;
    double u[3] = {n[1] * e[2] - n[2] * e[1], n[2] * e[0] - n[0] * e[2], n[0] * e[1] - n[1] * e[0]};
    const double un = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; ++k) Q[3 + k] = u[k] / un;
  }
  if (held <= 2) {
    const double *a = Q, *b = Q + 3;
    Q[6] = a[1] * b[2] - a[2] * b[1];
    Q[7] = a[2] * b[0] - a[0] * b[2];
    Q[8] = a[0] * b[1] - a[1] * b[0];
  }
}

/* y = Q x and y = Q^T x for one node (in place allowed). */
static void turn_in(const double *Q, double *x) {
  const double a = Q[0] * x[0] + Q[1] * x[1] + Q[2] * x[2], b = Q[3] * x[0] + Q[4] * x[1] + Q[5] * x[2],
               c = Q[6] * x[0] + Q[7] * x[1] + Q[8] * x[2];
  x[0] = a, x[1] = b, x[2] = c;
}
static void turn_out(const double *Q, double *x) {
  const double a = Q[0] * x[0] + Q[3] * x[1] + Q[6] * x[2], b = Q[1] * x[0] + Q[4] * x[1] + Q[7] * x[2],
               c = Q[2] * x[0] + Q[5] * x[1] + Q[8] * x[2];
  x[0] = a, x[1] = b, x[2] = c;
}

/* The turn that takes node i from the frame it is in to its basis: the basis itself from x y z
 * (turn = 1), basis pbasis^T from the frame pbasis it was in (turn = 2: a supported node that comes
 * into contact). */
static void turn_of(const cl_corot_island *isl, int32_t i, double T[9]) {
  const double *B = isl->basis + 9 * (size_t)i;
  if (isl->turn[i] != 2) {
    memcpy(T, B, 9 * sizeof(double));
    return;
  }
  const double *P = isl->pbasis + 9 * (size_t)i;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) T[3 * r + c] = B[3 * r] * P[3 * c] + B[3 * r + 1] * P[3 * c + 1] + B[3 * r + 2] * P[3 * c + 2];
}

/* Turn the nodes marked in isl->turn (their basis in isl->basis) into their local frames: every
 * block A_ij <- Q_i A_ij Q_j^T (Q = I for unmarked nodes; the turn of turn_of), and their parts of b,
 * r0, v, dv and dv_prev. One pass over A, made only when some node is marked. Clears the marks and
 * sets isl->frame. */
static void frames_in(cl_corot_island *isl) {
  cl_bsr *A = isl->A;
  const uint8_t *tn = isl->turn;
  for (int32_t l = 0; l < isl->nnodes; ++l) /* pbasis <- the turn of each node marked 2 */
    if (tn[l] == 2) {
      double T[9];
      turn_of(isl, l, T);
      memcpy(isl->pbasis + 9 * (size_t)l, T, sizeof T);
    }
  for (int32_t i = 0; i < A->n; ++i) {
    const double *Qi = tn[i] == 2 ? isl->pbasis + 9 * (size_t)i : isl->basis + 9 * (size_t)i;
    for (int64_t q = A->row_ptr[i]; q < A->row_ptr[i + 1]; ++q) {
      const int32_t j = A->col[q];
      if (!tn[i] && !tn[j]) continue;
      double *B = A->val + 9 * q, T[9];
      if (tn[i]) { /* T = Q_i B */
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) T[3 * r + c] = Qi[3 * r] * B[c] + Qi[3 * r + 1] * B[3 + c] + Qi[3 * r + 2] * B[6 + c];
        memcpy(B, T, sizeof T);
      }
      if (tn[j]) { /* B = B Q_j^T */
        const double *Qj = tn[j] == 2 ? isl->pbasis + 9 * (size_t)j : isl->basis + 9 * (size_t)j;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c)
            T[3 * r + c] = B[3 * r] * Qj[3 * c] + B[3 * r + 1] * Qj[3 * c + 1] + B[3 * r + 2] * Qj[3 * c + 2];
        memcpy(B, T, sizeof T);
      }
    }
  }
  for (int32_t i = 0; i < isl->nnodes; ++i) {
    if (!tn[i]) continue;
    const double *Q = tn[i] == 2 ? isl->pbasis + 9 * (size_t)i : isl->basis + 9 * (size_t)i;
    const size_t o = 3 * (size_t)i;
    turn_in(Q, isl->b + o);
    turn_in(Q, isl->r0 + o);
    turn_in(Q, isl->v + o);
    turn_in(Q, isl->dv + o);
    turn_in(Q, isl->dv_prev + o);
    isl->frame[i] = 1;
    isl->turn[i] = 0;
  }
  isl->q_stale = 1; /* the preconditioner follows the frames (linsolve.c) */
}

/* Back to x, y, z for the vectors the step reads after the solve (v, dv, dv_prev); A, b and r0 stay
 * as they are until the next assembly. */
static void frames_out(cl_corot_island *isl) {
  for (int32_t i = 0; i < isl->nnodes; ++i) {
    if (!isl->frame[i]) continue;
    const double *Q = isl->basis + 9 * (size_t)i;
    const size_t o = 3 * (size_t)i;
    turn_out(Q, isl->v + o);
    turn_out(Q, isl->dv + o);
    turn_out(Q, isl->dv_prev + o);
    isl->frame[i] = 0;
  }
}

/* ---- contact ------------------------------------------------------------------------------------ */

enum { CONTACT_NONE = 0, CONTACT_SLIDE = 1, CONTACT_STICK = 2 };
/* Solves of the active set per step (the first, contact-free one included). */
enum { CONTACT_ROUNDS = 12 };

/* The end velocity of local node l along row k (of its frame when it has one). */
static double end_velocity(const cl_corot_island *isl, int32_t l, int k) { return isl->v[3 * l + k] + isl->dv[3 * l + k]; }

/* The end velocity of local node l in x y z. */
static void end_velocity_xyz(const cl_corot_island *isl, int32_t l, double *u) {
  for (int k = 0; k < 3; ++k) u[k] = end_velocity(isl, l, k);
  if (isl->frame[l]) turn_out(isl->basis + 9 * (size_t)l, u);
}

/* Hold the rows of contact l for its mode: the normal row at the surface point, the tangential rows
 * at the surface's motion when it sticks, nothing once let go; a support's rows (0..nsup-1) stay as
 * hold_supports set them, and the normal row (nsup) lands where the gap closes given the support's
 * targets (header). dv of a held row = the velocity that lands it there. Called in the node's frame. */
static void contact_hold(cl_corot_island *isl, const cl_body_state *st, int32_t l, double dt) {
  const double *Q = isl->basis + 9 * (size_t)l, *x = st->x + 3 * (size_t)isl->nodes[l];
  double xl[3] = {x[0], x[1], x[2]}, pl[3], vsl[3], nl[3];
  memcpy(pl, isl->cx + 3 * (size_t)l, sizeof pl);
  memcpy(vsl, isl->cv + 3 * (size_t)l, sizeof vsl);
  memcpy(nl, isl->cn + 3 * (size_t)l, sizeof nl);
  turn_in(Q, xl);
  turn_in(Q, pl);
  turn_in(Q, vsl);
  turn_in(Q, nl);
  const int ns = isl->nsup[l];
  uint8_t *f = isl->fixed + 3 * (size_t)l;
  double *dv = isl->dv + 3 * (size_t)l;
  const double *v = isl->v + 3 * (size_t)l;
  f[ns] = isl->contact[l] != CONTACT_NONE;
  for (int k = ns + 1; k < 3; ++k) f[k] = isl->contact[l] == CONTACT_STICK;
  if (f[ns]) {
    double target = pl[ns]; /* e . x' = e . p - sum_k (n . a_k)(t_k - a_k . p) / |n_perp| */
    for (int k = 0; k < ns; ++k) target -= nl[k] * (xl[k] + dt * (v[k] + dv[k]) - pl[k]) / nl[ns];
    dv[ns] = (target - xl[ns]) / dt - v[ns];
  }
  for (int k = ns + 1; k < 3; ++k)
    if (f[k]) dv[k] = vsl[k] - v[k];
}

/* Free and supported nodes whose end position x + dt v' lies inside a collider become contacts
 * (sticking when the collider has friction), marked to be turned into their frames: a free node's
 * basis starts with the normal, a supported node's with its support's rows and then the part of the
 * normal across them (header; a normal within the held directions leaves the node to its support).
 * Returns how many. */
static int32_t find_contacts(cl_corot_island *isl, const cl_body_state *st, const cl_collider_view *view, double dt) {
  int32_t found = 0;
  for (int32_t l = 0; l < isl->nnodes; ++l) {
    if (isl->role[l] != CL_COROT_FREE && isl->role[l] != CL_COROT_SUPPORTED) continue;
    const int32_t i = isl->nodes[l];
    const int ns = isl->nsup[l];
    double xp[3], u[3];
    end_velocity_xyz(isl, l, u);
    for (int k = 0; k < 3; ++k) xp[k] = st->x[3 * (size_t)i + k] + dt * u[k];
    for (int32_t c = 0; c < view->count; ++c) {
      const cl_collider_shape *sh = &view->shapes[c];
      double p[3], n[3];
      if (!cl_collider_penetration(sh, xp, p, n)) continue;
      double *Q = isl->basis + 9 * (size_t)l, *vs = isl->cv + 3 * (size_t)l, e[3] = {n[0], n[1], n[2]};
      for (int k = 0; k < ns; ++k) { /* n_perp = n - sum_k (n . a_k) a_k */
        const double *a = Q + 3 * k, na = n[0] * a[0] + n[1] * a[1] + n[2] * a[2];
        for (int q = 0; q < 3; ++q) e[q] -= na * a[q];
      }
      const double en = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
      if (!(en > 1e-6)) continue; /* the support already decides the motion along n */
      if (isl->frame[l]) { /* already turned into its support's frame: turn on from there */
        memcpy(isl->pbasis + 9 * (size_t)l, Q, 9 * sizeof(double));
        isl->turn[l] = 2;
      } else {
        isl->turn[l] = 1;
      }
      for (int q = 0; q < 3; ++q) Q[3 * ns + q] = e[q] / en;
      basis_complete(Q, ns + 1);
      memcpy(isl->cn + 3 * (size_t)l, n, sizeof n);
      memcpy(isl->cx + 3 * (size_t)l, p, sizeof p);
      cl_collider_surface_velocity(sh, p, vs);
      double vr = 0.0; /* the approach speed, for the restitution after the step */
      for (int k = 0; k < 3; ++k) vr += n[k] * (u[k] - vs[k]);
      isl->capproach[l] = vr < 0.0 ? vr : 0.0;
      isl->cfric[2 * l] = isl->cfric[2 * l + 1] = 0.0;
      isl->ccol[l] = c;
      isl->role[l] = CL_COROT_CONTACT;
      isl->contact[l] = sh->friction > 0.0 && ns < 2 ? CONTACT_STICK : CONTACT_SLIDE;
      ++found;
      break;
    }
  }
  return found;
}

/* Change the kinetic friction impulse on the tangent rows of contact l (rows nsup+1.., the first one
 * f0, the second f1) to (f0, f1): a load on r0. */
static void set_friction(cl_corot_island *isl, int32_t l, double f0, double f1) {
  double *fr = isl->cfric + 2 * (size_t)l, *r0 = isl->r0 + 3 * (size_t)l;
  const int t = isl->nsup[l] + 1;
  if (t < 3) r0[t] += f0 - fr[0];
  if (t < 2) r0[2] += f1 - fr[1];
  fr[0] = t < 3 ? f0 : 0.0;
  fr[1] = t < 2 ? f1 : 0.0;
}

/* The active-set update of every live contact from its reaction R (its rows' residual in its frame,
 * an impulse, plus the friction load): let go a contact that would pull (R_n < 0), make a sticking
 * one slide when it needs more than mu R_n, make a sliding one stick when its slip turned against
 * the friction; a sliding contact's friction is mu R_n against its slip, a fixed point of the solve
 * (R_n of a sliding contact is not that of the sticking one it was). Returns how many changed mode or
 * friction (by more than a thousandth): the island is solved again while any did. */
static int32_t update_contacts(cl_corot_island *isl, const cl_collider_view *view) {
  int32_t changed = 0;
  for (int32_t l = 0; l < isl->nnodes; ++l) {
    const uint8_t mode = isl->contact[l];
    if (isl->role[l] != CL_COROT_CONTACT || mode == CONTACT_NONE) continue;
    const double mu = view->shapes[isl->ccol[l]].friction;
    const double *fr = isl->cfric + 2 * (size_t)l;
    const int ns = isl->nsup[l], t1 = ns + 1 < 3 ? ns + 1 : -1, t2 = ns + 2 < 3 ? ns + 2 : -1;
    double R[3], nl[3];
    row_residual(isl, l, R);
    memcpy(nl, isl->cn + 3 * (size_t)l, sizeof nl);
    turn_in(isl->basis + 9 * (size_t)l, nl);
    /* the normal force lambda = R_e / |n_perp| and the tangential reaction (rows t1, t2) */
    const double Rn = R[ns] / nl[ns], R1 = t1 >= 0 ? R[t1] + fr[0] : 0.0, R2 = t2 >= 0 ? R[t2] + fr[1] : 0.0;
    uint8_t next = mode;
    double f0 = 0.0, f1 = 0.0;
    if (Rn < 0.0) {
      next = CONTACT_NONE;
    } else if (mode == CONTACT_STICK) {
      const double rt = sqrt(R1 * R1 + R2 * R2);
      if (rt > mu * Rn) { /* it slides, at first along the reaction that could not hold it */
        next = CONTACT_SLIDE;
        f0 = mu * Rn * R1 / rt;
        f1 = mu * Rn * R2 / rt;
      }
    } else if (mu > 0.0 && t1 >= 0) {
      double vsl[3];
      memcpy(vsl, isl->cv + 3 * (size_t)l, sizeof vsl);
      turn_in(isl->basis + 9 * (size_t)l, vsl);
      const double s1 = end_velocity(isl, l, t1) - vsl[t1], s2 = t2 >= 0 ? end_velocity(isl, l, t2) - vsl[t2] : 0.0;
      const double sn = sqrt(s1 * s1 + s2 * s2);
      if (sn > 0.0 && s1 * fr[0] + s2 * fr[1] > 0.0) {
        next = CONTACT_STICK; /* the friction would drive the slip: it stops instead */
      } else if (sn > 0.0) {
        f0 = -mu * Rn * s1 / sn;
        f1 = -mu * Rn * s2 / sn;
      } else {
        f0 = fr[0];
        f1 = fr[1];
      }
    }
    const double df = fabs(f0 - fr[0]) + fabs(f1 - fr[1]);
    const int moved = df > 1e-3 * (fabs(f0) + fabs(f1)) && df > 0.0;
    set_friction(isl, l, f0, f1);
    if (next != mode) isl->contact[l] = next;
    changed += next != mode || moved;
  }
  return changed;
}

/* ---- the step ------------------------------------------------------------------------------------ */

/* Supported nodes: their held rows become single dofs of their frames (marked to be turned), landing
 * on the support's target. */
static void hold_supports(const cl_corot *s, const cl_body_state *st, const cl_support_set *ss, double dt) {
  for (int32_t j = 0; j < ss->count; ++j) {
    const int32_t i = ss->nodes[j];
    const int32_t k = s->node_island[i];
    if (k < 0) continue;
    cl_corot_island *isl = &s->islands[k];
    const int32_t l = s->node_local[i];
    double *Q = isl->basis + 9 * (size_t)l;
    const int held = ss->held[j];
    isl->nsup[l] = (uint8_t)held;
    /* a contact kept from the last Newton iteration (statics) keeps its basis: the support's rows
     * come first in it */
    if (isl->role[l] != CL_COROT_CONTACT) {
      memcpy(Q, ss->axes + 9 * (size_t)j, 9 * sizeof(double));
      basis_complete(Q, held);
      isl->role[l] = CL_COROT_SUPPORTED;
    }
    const double *x = st->x + 3 * (size_t)i, *v = st->v + 3 * (size_t)i, *p = ss->target_x + 3 * (size_t)j;
    for (int h = 0; h < held; ++h) {
      const double *a = Q + 3 * h;
      isl->fixed[3 * l + h] = 1;
      isl->hold[3 * (size_t)l + h] =
          (a[0] * (p[0] - x[0]) + a[1] * (p[1] - x[1]) + a[2] * (p[2] - x[2])) / dt - (a[0] * v[0] + a[1] * v[1] + a[2] * v[2]);
    }
    isl->turn[l] = 1;
    isl->ncons++;
  }
}

/* The impulse (N s, x y z) each held node's rows took: the held rows' residual (free rows carry only
 * the solver's tolerance) plus a sliding contact's friction load; in cimp for a constraint or a
 * contact, in simp for a support. A supported node in contact splits it (header): the contact takes
 * lambda n plus its tangent rows, the support R_k - lambda (n . a_k) along its rows. Called while the
 * frames are in place. */
static void held_impulses(cl_corot_island *isl) {
  for (int32_t l = 0; l < isl->nnodes; ++l) {
    if (isl->role[l] == CL_COROT_FREE) continue;
    double R[3], S[3] = {0.0, 0.0, 0.0};
    row_residual(isl, l, R);
    const uint8_t *f = isl->fixed + 3 * (size_t)l;
    for (int k = 0; k < 3; ++k)
      if (!f[k]) R[k] = 0.0;
    const int ns = isl->nsup[l];
    if (isl->role[l] == CL_COROT_CONTACT) {
      if (ns + 1 < 3) R[ns + 1] += isl->cfric[2 * l];
      if (ns + 2 < 3) R[ns + 2] += isl->cfric[2 * l + 1];
      double nl[3];
      memcpy(nl, isl->cn + 3 * (size_t)l, sizeof nl);
      turn_in(isl->basis + 9 * (size_t)l, nl);
      const double lambda = isl->contact[l] != CONTACT_NONE ? R[ns] / nl[ns] : 0.0;
      for (int k = 0; k < ns; ++k) {
        S[k] = R[k] - lambda * nl[k];
        R[k] = lambda * nl[k];
      }
    } else if (isl->role[l] == CL_COROT_SUPPORTED) {
      memcpy(S, R, sizeof S);
    }
    if (isl->frame[l]) {
      turn_out(isl->basis + 9 * (size_t)l, R);
      turn_out(isl->basis + 9 * (size_t)l, S);
    }
    memcpy(isl->cimp + 3 * (size_t)l, R, sizeof R);
    memcpy(isl->simp + 3 * (size_t)l, S, sizeof S);
  }
}

/* Solve one island: the constraints and supports, then the contact active set. */
static cl_status solve_island(cl_corot *s, const cl_body_state *st, const cl_step_input *in, int32_t k,
                              cl_step_report *rep, cl_status *warn) {
  cl_corot_island *isl = &s->islands[k];
  const double dt = in->dt;
  double t = cl_time_ms();
  cl_corot_assemble_island(s, st, in, isl);
  int32_t ncontact = 0;
  if (isl->ncons > isl->nfull) {
    frames_in(isl);
    for (int32_t l = 0; l < isl->nnodes; ++l) {
      for (int h = 0; h < isl->nsup[l]; ++h) isl->dv[3 * l + h] = isl->hold[3 * (size_t)l + h];
      if (isl->role[l] == CL_COROT_CONTACT) { /* kept from the last Newton iteration (statics) */
        contact_hold(isl, st, l, dt);
        ++ncontact;
      }
    }
  }
  if (s->statics) /* the merit of the Newton iteration: the unbalanced force on the free dofs */
    for (int64_t d = 0; d < 3 * (int64_t)isl->nnodes; ++d)
      if (!isl->fixed[d]) s->static_res2 += isl->r0[d] * isl->r0[d];
  s->timing.assembly_ms += cl_time_ms() - t;
  t = cl_time_ms();
  cl_status r = cl_corot_solve_island(s, isl, k, 0, rep);
  if (r < 0) return r;
  if (r > *warn) *warn = r;
  for (int round = 1; in->colliders->count && round < CONTACT_ROUNDS; ++round) {
    const int32_t changed = ncontact ? update_contacts(isl, in->colliders) : 0;
    const int32_t found = find_contacts(isl, st, in->colliders, dt);
    if (!changed && !found) break;
    ncontact += found;
    if (found) frames_in(isl);
    isl->ncons = 0;
    for (int32_t l = 0; l < isl->nnodes; ++l) {
      if (isl->role[l] == CL_COROT_CONTACT) contact_hold(isl, st, l, dt);
      const uint8_t *f = isl->fixed + 3 * (size_t)l;
      isl->ncons += f[0] | f[1] | f[2];
    }
    r = cl_corot_solve_island(s, isl, k, 1, rep);
    if (r < 0) return r;
    if (r > *warn) *warn = r;
  }
  if (s->statics) /* what the held rows were moved by: the constraints the iteration's start broke */
    for (int64_t d = 0; d < 3 * (int64_t)isl->nnodes; ++d)
      if (isl->fixed[d]) s->static_imposed2 += isl->dv[d] * isl->dv[d];
  int dynamic = 0;
  for (int32_t l = 0; l < isl->nnodes && !dynamic && !s->statics; ++l)
    dynamic = isl->role[l] == CL_COROT_CONTACT && isl->contact[l] != CONTACT_NONE &&
              in->colliders->shapes[isl->ccol[l]].impulse != NULL;
  if (dynamic && s->p[CL_COROT_CONSERVE_MOMENTUM] != 0.0) balance_free_rows(isl);
  held_impulses(isl);
  frames_out(isl);
  s->timing.solve_ms += cl_time_ms() - t;
  return CL_OK;
}

/* Positions and velocities of the island's nodes from the solve (held and supported nodes are put
 * exactly on their targets by the caller); contacts leave with the collider's normal velocity,
 * reflected by the restitution, and give their impulse to the collider's record and, if dynamic, to
 * the collider; other free nodes are projected out of colliders as before. */
static void update_island(const cl_corot *s, cl_body_state *st, const cl_step_input *in, cl_corot_island *isl) {
  const double dt = in->dt;
  if (isl->ncons == 0 && s->p[CL_COROT_CONSERVE_MOMENTUM] != 0.0) conserve_momentum(s, st, in, isl);
  for (int32_t l = 0; l < isl->nnodes; ++l) {
    if (isl->role[l] == CL_COROT_HELD) continue;
    const int32_t i = isl->nodes[l];
    double *x = st->x + 3 * (size_t)i, *v = st->v + 3 * (size_t)i;
    for (int c = 0; c < 3; ++c) {
      v[c] = isl->v[3 * l + c] + isl->dv[3 * l + c];
      x[c] += dt * v[c];
    }
    if (isl->role[l] == CL_COROT_CONTACT && isl->contact[l] != CONTACT_NONE) {
      const cl_collider_shape *sh = &in->colliders->shapes[isl->ccol[l]];
      const double *n = isl->cn + 3 * (size_t)l, *vs = isl->cv + 3 * (size_t)l;
      if (s->statics) continue; /* no velocity to reset; the contact forces are recorded at the
                                 * equilibrium (static.c), and colliders are held still */
      double vn = 0.0, *I = isl->cimp + 3 * (size_t)l;
      for (int c = 0; c < 3; ++c) vn += n[c] * (v[c] - vs[c]);
      const double dvn = -sh->restitution * isl->capproach[l] - vn;
      for (int c = 0; c < 3; ++c) {
        v[c] += dvn * n[c];
        I[c] += st->m[i] * dvn * n[c];
      }
      cl_collider_record(sh, x, I);
      if (sh->impulse) give_back(sh, x, I);
      continue;
    }
    if (isl->nsup[l]) continue; /* the support puts its held rows on target (cl_corot_step) */
    if (in->colliders->count) cl_collider_project_mass(in->colliders, x, v, s->statics ? 0.0 : st->m[i]);
  }
}

cl_status cl_corot_step(void *solver, cl_body_state *st, const cl_step_input *in, cl_step_report *rep) {
  cl_corot *s = solver;
  const double dt = in->dt;
  rep->iterations = 0;
  rep->residual = 0.0;
  s->threads = in->threads > 0 ? in->threads : 1;
  cl_corot_timing *tm = &s->timing;
  tm->element_ms = tm->assembly_ms = tm->solve_ms = tm->update_ms = 0.0;
  tm->factorizations = 0;
  s->step_count++;
  if (st->n > s->node_cap || st->ncells != s->ntets)
    return cl_fail(CL_ERR_STATE, "the body state changed size outside the solver (%d nodes, %d cells; the "
                   "solver knows %d cells)", st->n, st->ncells, s->ntets);

  double t = cl_time_ms();
  CL_TRY(cl_corot_update_elements(s, st, dt, !s->statics));
  tm->element_ms = cl_time_ms() - t;

  /* constraint masks and the dv that lands each held node on its target */
  for (int32_t k = 0; k < s->nislands; ++k) {
    cl_corot_island *isl = &s->islands[k];
    memset(isl->fixed, 0, 3 * (size_t)isl->nnodes);
    memset(isl->nsup, 0, (size_t)isl->nnodes);
    isl->ncons = isl->nfull = 0;
    if (s->statics && s->keep_contacts) {
      /* a Newton iteration starts from the last one's contacts: held along the same normal at where
       * the node is now (on the surface), free nodes otherwise */
      for (int32_t l = 0; l < isl->nnodes; ++l) {
        const int keep = isl->role[l] == CL_COROT_CONTACT && isl->contact[l] != CONTACT_NONE;
        if (!keep) {
          isl->role[l] = CL_COROT_FREE;
          isl->contact[l] = CONTACT_NONE;
          continue;
        }
        memcpy(isl->cx + 3 * (size_t)l, st->x + 3 * (size_t)isl->nodes[l], 3 * sizeof(double));
        memset(isl->cv + 3 * (size_t)l, 0, 3 * sizeof(double));
        isl->cfric[2 * l] = isl->cfric[2 * l + 1] = 0.0;
        isl->capproach[l] = 0.0;
        isl->turn[l] = 1;
        isl->ncons++;
      }
      continue;
    }
    memset(isl->role, CL_COROT_FREE, (size_t)isl->nnodes);
    memset(isl->contact, CONTACT_NONE, (size_t)isl->nnodes);
  }
  const cl_constraint_set *cs = &in->constraints;
  for (int32_t j = 0; j < cs->count; ++j) {
    const int32_t i = cs->nodes[j];
    if (i < 0 || i >= st->n)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "constraint %d holds node %d outside [0, %d)", j, i, st->n);
    const int32_t k = s->node_island[i];
    if (k < 0) continue;
    cl_corot_island *isl = &s->islands[k];
    const int32_t l = s->node_local[i];
    isl->ncons++;
    isl->nfull++;
    isl->role[l] = CL_COROT_HELD;
    for (int c = 0; c < 3; ++c) {
      isl->fixed[3 * l + c] = 1;
      isl->dv[3 * l + c] = (cs->target_x[3 * j + c] - st->x[3 * (size_t)i + c]) / dt - st->v[3 * (size_t)i + c];
    }
  }
  const cl_support_set *ss = &in->supports;
  for (int32_t j = 0; j < ss->count; ++j)
    if (ss->nodes[j] < 0 || ss->nodes[j] >= st->n)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "support %d holds node %d outside [0, %d)", j, ss->nodes[j], st->n);
  hold_supports(s, st, ss, dt);

  cl_status warn = CL_OK;
  for (int32_t k = 0; k < s->nislands; ++k) {
    CL_TRY(solve_island(s, st, in, k, rep, &warn));
    t = cl_time_ms();
    update_island(s, st, in, &s->islands[k]);
    tm->update_ms += cl_time_ms() - t;
  }

  t = cl_time_ms();
  /* nodes in no element (none after a valid bind; kept safe): free fall */
  for (int32_t i = 0; i < st->n; ++i) {
    if (s->node_island[i] >= 0) continue;
    double *x = st->x + 3 * (size_t)i, *v = st->v + 3 * (size_t)i;
    for (int c = 0; c < 3; ++c) {
      double a = in->gravity[c];
      if (in->f_ext && st->m[i] > 0.0) a += in->f_ext[3 * (size_t)i + c] / st->m[i];
      v[c] += dt * a;
      x[c] += dt * v[c];
    }
    if (in->colliders->count) cl_collider_project_mass(in->colliders, x, v, st->m[i]);
  }
  /* supported nodes: held components exactly on target, the reaction along them */
  for (int32_t j = 0; j < ss->count; ++j) {
    const int32_t i = ss->nodes[j];
    const int32_t k = s->node_island[i];
    double *x = st->x + 3 * (size_t)i, *v = st->v + 3 * (size_t)i, *react = ss->reaction + 3 * (size_t)j;
    const double *axes = ss->axes + 9 * (size_t)j;
    const double v0[3] = {v[0], v[1], v[2]};
    cl_support_project(axes, ss->held[j], ss->target_x + 3 * (size_t)j, x);
    cl_support_project(axes, ss->held[j], ss->target_v + 3 * (size_t)j, v);
    if (k >= 0) {
      const double *I = s->islands[k].simp + 3 * (size_t)s->node_local[i];
      for (int c = 0; c < 3; ++c) react[c] = I[c] / dt;
    } else {
      for (int c = 0; c < 3; ++c) react[c] = st->m[i] * (v[c] - v0[c]) / dt;
    }
  }
  /* held nodes: exactly on target, reaction from their rows */
  for (int32_t j = 0; j < cs->count; ++j) {
    const int32_t i = cs->nodes[j];
    const int32_t k = s->node_island[i];
    double *x = st->x + 3 * (size_t)i, *v = st->v + 3 * (size_t)i, *react = cs->reaction + 3 * (size_t)j;
    if (k >= 0) {
      const double *I = s->islands[k].cimp + 3 * (size_t)s->node_local[i];
      for (int c = 0; c < 3; ++c) react[c] = I[c] / dt;
    } else {
      for (int c = 0; c < 3; ++c)
        react[c] = st->m[i] * (cs->target_v[3 * j + c] - v[c]) / dt -
                   (st->m[i] * in->gravity[c] + (in->f_ext ? in->f_ext[3 * (size_t)i + c] : 0.0));
    }
    for (int c = 0; c < 3; ++c) {
      x[c] = cs->target_x[3 * j + c];
      v[c] = cs->target_v[3 * j + c];
    }
  }
  tm->update_ms += cl_time_ms() - t;
  tm->iterations = rep->iterations;
  tm->residual = rep->residual;
  tm->steps++;
  return warn;
}
