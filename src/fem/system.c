/* The linear system of an implicit FEM step with its constraints, supports and contact active set
 * (fem/system.h has the method). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "fem/system.h"

static int32_t node_of(const cl_fem_system *sys, int32_t l) { return sys->nodes ? sys->nodes[l] : l; }

/* (A dv - r0)_row for one local row: the constraint force times dt (in the node's frame when it has
 * one). */
static void row_residual(const cl_fem_system *sys, int32_t li, double *out) {
  const cl_bsr *A = sys->A;
  double s0 = -sys->r0[3 * li], s1 = -sys->r0[3 * li + 1], s2 = -sys->r0[3 * li + 2];
  for (int64_t q = A->row_ptr[li]; q < A->row_ptr[li + 1]; ++q) {
    const double *B = A->val + 9 * q, *d = sys->dv + 3 * (size_t)A->col[q];
    s0 += B[0] * d[0] + B[1] * d[1] + B[2] * d[2];
    s1 += B[3] * d[0] + B[4] * d[1] + B[5] * d[2];
    s2 += B[6] * d[0] + B[7] * d[1] + B[8] * d[2];
  }
  out[0] = s0;
  out[1] = s1;
  out[2] = s2;
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
static void free_map(const cl_fem_system *sys, int32_t i, double L[9]) {
  const uint8_t *f = sys->fixed + 3 * (size_t)i;
  if (sys->frame[i]) {
    memcpy(L, sys->basis + 9 * (size_t)i, 9 * sizeof(double));
  } else {
    memset(L, 0, 9 * sizeof(double));
    L[0] = L[4] = L[8] = 1.0;
  }
  for (int r = 0; r < 3; ++r)
    if (f[r]) L[3 * r] = L[3 * r + 1] = L[3 * r + 2] = 0.0;
}

/* A node whose map L is the identity: no frame, no held dof (most nodes; their terms are added as
 * they are, which is what the products with L = I give to the bit). */
static int plain_node(const cl_fem_system *sys, int32_t i) {
  const uint8_t *f = sys->fixed + 3 * (size_t)i;
  return !sys->frame[i] && !(f[0] | f[1] | f[2]);
}

static void balance_free_rows(cl_fem_system *sys) {
  const cl_bsr *A = sys->A;
  double e[3] = {0.0, 0.0, 0.0}, G[9] = {0.0};
  for (int32_t i = 0; i < A->n; ++i) {
    const uint8_t *fi = sys->fixed + 3 * (size_t)i;
    if (fi[0] && fi[1] && fi[2]) continue;
    double Li[9], res[3];
    const int pi = plain_node(sys, i);
    free_map(sys, i, Li);
    row_residual(sys, i, res);
    for (int c = 0; c < 3; ++c) e[c] += pi ? res[c] : Li[c] * res[0] + Li[3 + c] * res[1] + Li[6 + c] * res[2];
    for (int64_t q = A->row_ptr[i]; q < A->row_ptr[i + 1]; ++q) {
      const int32_t j = A->col[q];
      const uint8_t *fj = sys->fixed + 3 * (size_t)j;
      if (pi && plain_node(sys, j)) { /* G += B */
        const double *B = A->val + 9 * q;
        for (int k = 0; k < 9; ++k) G[k] += B[k];
        continue;
      }
      if (fj[0] && fj[1] && fj[2]) continue;
      double Lj[9], BL[9];
      free_map(sys, j, Lj);
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
  for (int32_t l = 0; l < sys->n; ++l) {
    double L[9];
    free_map(sys, l, L);
    for (int r = 0; r < 3; ++r) sys->dv[3 * l + r] += L[3 * r] * d[0] + L[3 * r + 1] * d[1] + L[3 * r + 2] * d[2];
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
static void turn_of(const cl_fem_system *sys, int32_t i, double T[9]) {
  const double *B = sys->basis + 9 * (size_t)i;
  if (sys->turn[i] != 2) {
    memcpy(T, B, 9 * sizeof(double));
    return;
  }
  const double *P = sys->pbasis + 9 * (size_t)i;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) T[3 * r + c] = B[3 * r] * P[3 * c] + B[3 * r + 1] * P[3 * c + 1] + B[3 * r + 2] * P[3 * c + 2];
}

/* Turn the nodes marked in sys->turn (their basis in sys->basis) into their local frames: every
 * block A_ij <- Q_i A_ij Q_j^T (Q = I for unmarked nodes; the turn of turn_of, kept in pbasis for
 * the nodes marked 2), and their parts of b, r0, v, dv and dv_prev. One pass over A, made only when
 * some node is marked. Clears the marks, sets sys->frame and counts the change in frames_version. */
static void frames_in(cl_fem_system *sys) {
  cl_bsr *A = sys->A;
  const uint8_t *tn = sys->turn;
  for (int32_t l = 0; l < sys->n; ++l) /* pbasis <- the turn of each node marked 2 */
    if (tn[l] == 2) {
      double T[9];
      turn_of(sys, l, T);
      memcpy(sys->pbasis + 9 * (size_t)l, T, sizeof T);
    }
  for (int32_t i = 0; i < A->n; ++i) {
    const double *Qi = tn[i] == 2 ? sys->pbasis + 9 * (size_t)i : sys->basis + 9 * (size_t)i;
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
        const double *Qj = tn[j] == 2 ? sys->pbasis + 9 * (size_t)j : sys->basis + 9 * (size_t)j;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c)
            T[3 * r + c] = B[3 * r] * Qj[3 * c] + B[3 * r + 1] * Qj[3 * c + 1] + B[3 * r + 2] * Qj[3 * c + 2];
        memcpy(B, T, sizeof T);
      }
    }
  }
  for (int32_t i = 0; i < sys->n; ++i) {
    if (!tn[i]) continue;
    const double *Q = tn[i] == 2 ? sys->pbasis + 9 * (size_t)i : sys->basis + 9 * (size_t)i;
    const size_t o = 3 * (size_t)i;
    turn_in(Q, sys->b + o);
    turn_in(Q, sys->r0 + o);
    turn_in(Q, sys->v + o);
    turn_in(Q, sys->dv + o);
    turn_in(Q, sys->dv_prev + o);
    sys->frame[i] = 1;
    sys->turn[i] = 0;
  }
  sys->frames_version++;
}

/* Back to x, y, z for the vectors the step reads after the solve (v, dv, dv_prev); A, b and r0 stay
 * as they are until the next assembly. */
static void frames_out(cl_fem_system *sys) {
  for (int32_t i = 0; i < sys->n; ++i) {
    if (!sys->frame[i]) continue;
    const double *Q = sys->basis + 9 * (size_t)i;
    const size_t o = 3 * (size_t)i;
    turn_out(Q, sys->v + o);
    turn_out(Q, sys->dv + o);
    turn_out(Q, sys->dv_prev + o);
    sys->frame[i] = 0;
  }
  sys->frames_version++;
}

/* ---- contact ------------------------------------------------------------------------------------ */

enum { CONTACT_NONE = 0, CONTACT_SLIDE = 1, CONTACT_STICK = 2 };
/* cflips of a contact that slides along a fixed direction for the rest of the step */
enum { CONTACT_LOCKED = 255 };

/* The end velocity of local node l along row k (of its frame when it has one). */
static double end_velocity(const cl_fem_system *sys, int32_t l, int k) { return sys->v[3 * l + k] + sys->dv[3 * l + k]; }

/* The end velocity of local node l in x y z. */
static void end_velocity_xyz(const cl_fem_system *sys, int32_t l, double *u) {
  for (int k = 0; k < 3; ++k) u[k] = end_velocity(sys, l, k);
  if (sys->frame[l]) turn_out(sys->basis + 9 * (size_t)l, u);
}

/* Hold the rows of contact l for its mode: the normal row at the surface point, the tangential rows
 * at the surface's motion when it sticks, nothing once let go; a support's rows (0..nsup-1) stay as
 * cl_fem_system_prepare set them, and the normal row (nsup) lands where the gap closes given the
 * support's targets (top of system.h). dv of a held row = the velocity that lands it there. Called
 * in the node's frame. */
static void contact_hold(cl_fem_system *sys, const cl_body_state *st, int32_t l, double dt) {
  const double *Q = sys->basis + 9 * (size_t)l, *x = st->x + 3 * (size_t)node_of(sys, l);
  double xl[3] = {x[0], x[1], x[2]}, pl[3], vsl[3], nl[3];
  memcpy(pl, sys->cx + 3 * (size_t)l, sizeof pl);
  memcpy(vsl, sys->cv + 3 * (size_t)l, sizeof vsl);
  memcpy(nl, sys->cn + 3 * (size_t)l, sizeof nl);
  turn_in(Q, xl);
  turn_in(Q, pl);
  turn_in(Q, vsl);
  turn_in(Q, nl);
  const int ns = sys->nsup[l];
  uint8_t *f = sys->fixed + 3 * (size_t)l;
  double *dv = sys->dv + 3 * (size_t)l;
  const double *v = sys->v + 3 * (size_t)l;
  f[ns] = sys->contact[l] != CONTACT_NONE;
  for (int k = ns + 1; k < 3; ++k) f[k] = sys->contact[l] == CONTACT_STICK;
  if (f[ns]) {
    double target = pl[ns]; /* e . x' = e . p - sum_k (n . a_k)(t_k - a_k . p) / |n_perp| */
    for (int k = 0; k < ns; ++k) target -= nl[k] * (xl[k] + dt * (v[k] + dv[k]) - pl[k]) / nl[ns];
    dv[ns] = (target - xl[ns]) / dt - v[ns];
  }
  for (int k = ns + 1; k < 3; ++k)
    if (f[k]) dv[k] = vsl[k] - v[k];
}

/* Make local node l (free or supported) a contact of collider c at surface point p with outward
 * normal n, approaching with end velocity u (x y z), marked to be turned into its frame: a free
 * node's basis starts with the normal, a supported node's with its support's rows and then the part
 * of the normal across them (top of system.h). Returns 0, leaving the node alone, when the normal
 * lies within the held directions (the support already decides the motion along n). */
/* The part of the normal n across the first ns rows of Q (a support's axes), n_perp = n - sum_k
 * (n . a_k) a_k, in e; returns its length. */
static double normal_across(const double *Q, int ns, const double *n, double e[3]) {
  e[0] = n[0], e[1] = n[1], e[2] = n[2];
  for (int k = 0; k < ns; ++k) {
    const double *a = Q + 3 * k, na = n[0] * a[0] + n[1] * a[1] + n[2] * a[2];
    for (int q = 0; q < 3; ++q) e[q] -= na * a[q];
  }
  return sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
}

/* Row ns of Q <- e / en (the contact's normal row after the support's rows), the rest completed. */
static void set_normal_row(double *Q, int ns, const double *e, double en) {
  for (int q = 0; q < 3; ++q) Q[3 * ns + q] = e[q] / en;
  basis_complete(Q, ns + 1);
}

static int make_contact(cl_fem_system *sys, int32_t l, int32_t c, const cl_collider_shape *sh, const double *p,
                        const double *n, const double *u) {
  const int ns = sys->nsup[l];
  double *Q = sys->basis + 9 * (size_t)l, *vs = sys->cv + 3 * (size_t)l, e[3];
  const double en = normal_across(Q, ns, n, e);
  if (!(en > 1e-6)) return 0;
  if (sys->frame[l]) { /* already turned into its support's frame: turn on from there */
    memcpy(sys->pbasis + 9 * (size_t)l, Q, 9 * sizeof(double));
    sys->turn[l] = 2;
  } else {
    sys->turn[l] = 1;
  }
  set_normal_row(Q, ns, e, en);
  memcpy(sys->cn + 3 * (size_t)l, n, 3 * sizeof(double));
  memcpy(sys->cx + 3 * (size_t)l, p, 3 * sizeof(double));
  memcpy(sys->canchor + 3 * (size_t)l, p, 3 * sizeof(double));
  cl_collider_surface_velocity(sh, p, vs);
  double vr = 0.0; /* the approach speed, for the restitution after the step */
  for (int k = 0; k < 3; ++k) vr += n[k] * (u[k] - vs[k]);
  sys->capproach[l] = vr < 0.0 ? vr : 0.0;
  sys->cfric[2 * l] = sys->cfric[2 * l + 1] = 0.0;
  sys->ccol[l] = c;
  sys->role[l] = CL_FEM_CONTACT;
  sys->contact[l] = sh->friction > 0.0 && ns < 2 ? CONTACT_STICK : CONTACT_SLIDE;
  return 1;
}

/* Free and supported nodes whose end position x + dt v' lies inside a collider become contacts
 * (sticking when the collider has friction and leaves a tangent row; make_contact). Returns how
 * many. */
static int32_t find_contacts(cl_fem_system *sys, const cl_body_state *st, const cl_collider_view *view, double dt) {
  int32_t found = 0;
  for (int32_t l = 0; l < sys->n; ++l) {
    if (sys->role[l] != CL_FEM_FREE && sys->role[l] != CL_FEM_SUPPORTED) continue;
    const int32_t i = node_of(sys, l);
    double xp[3], u[3];
    end_velocity_xyz(sys, l, u);
    for (int k = 0; k < 3; ++k) xp[k] = st->x[3 * (size_t)i + k] + dt * u[k];
    for (int32_t c = 0; c < view->count; ++c) {
      const cl_collider_shape *sh = &view->shapes[c];
      double p[3], n[3];
      if (!cl_collider_penetration(sh, xp, p, n)) continue;
      if (!make_contact(sys, l, c, sh, p, n, u)) continue;
      ++found;
      break;
    }
  }
  return found;
}

int32_t cl_fem_seed_contacts(cl_fem_system *sys, const cl_body_state *st, const cl_collider_view *view, double dt,
                             double skin) {
  if (sys->statics || !view || view->count <= 0) return 0;
  int32_t seeded = 0;
  for (int32_t l = 0; l < sys->n; ++l) {
    if (!sys->was_contact[l] || (sys->role[l] != CL_FEM_FREE && sys->role[l] != CL_FEM_SUPPORTED)) continue;
    const int32_t c = sys->ccol[l];
    if (c < 0 || c >= view->count) continue;
    const cl_collider_shape *sh = &view->shapes[c];
    const int32_t i = node_of(sys, l);
    const double *x = st->x + 3 * (size_t)i, *u = st->v + 3 * (size_t)i, *n0 = sys->cn + 3 * (size_t)l;
    double q[3], p[3], n[3];
    for (int k = 0; k < 3; ++k) q[k] = x[k] + dt * u[k] - skin * n0[k];
    if (!cl_collider_penetration(sh, q, p, n)) continue;
    const int was_free = sys->role[l] == CL_FEM_FREE;
    /* a free node that ended the last step sliding keeps sliding with its friction load, turned from
     * its last tangent rows (its basis is still last step's: only supports rewrite a basis before
     * this) into the new ones, so the rounds' friction fixed point starts where the last step ended
     * instead of from sticking; a supported node restarts sticking, as a new contact does */
    double F[3] = {0.0, 0.0, 0.0};
    const int slid = was_free && sys->was_contact[l] == CONTACT_SLIDE && sh->friction > 0.0;
    if (slid) {
      const double *Q = sys->basis + 9 * (size_t)l, f0 = sys->cfric[2 * (size_t)l], f1 = sys->cfric[2 * (size_t)l + 1];
      for (int k = 0; k < 3; ++k) F[k] = f0 * Q[3 + k] + f1 * Q[6 + k];
    }
    if (!make_contact(sys, l, c, sh, p, n, u)) continue;
    if (slid) {
      const double *Q = sys->basis + 9 * (size_t)l;
      sys->contact[l] = CONTACT_SLIDE;
      sys->cfseed[2 * (size_t)l] = F[0] * Q[3] + F[1] * Q[4] + F[2] * Q[5];
      sys->cfseed[2 * (size_t)l + 1] = F[0] * Q[6] + F[1] * Q[7] + F[2] * Q[8];
      sys->fseed[l] = 1;
    }
    sys->ncons += was_free;
    ++seeded;
  }
  return seeded;
}

/* Change the kinetic friction impulse on the tangent rows of contact l (rows nsup+1.., the first one
 * f0, the second f1) to (f0, f1): a load on r0. */
static void set_friction(cl_fem_system *sys, int32_t l, double f0, double f1) {
  double *fr = sys->cfric + 2 * (size_t)l, *r0 = sys->r0 + 3 * (size_t)l;
  const int t = sys->nsup[l] + 1;
  if (t < 3) r0[t] += f0 - fr[0];
  if (t < 2) r0[2] += f1 - fr[1];
  fr[0] = t < 3 ? f0 : 0.0;
  fr[1] = t < 2 ? f1 : 0.0;
}

/* The velocity of contact l's surface point, turned into the node's frame. */
static void surface_velocity_in(const cl_fem_system *sys, int32_t l, double vsl[3]) {
  memcpy(vsl, sys->cv + 3 * (size_t)l, 3 * sizeof(double));
  turn_in(sys->basis + 9 * (size_t)l, vsl);
}

/* Replace the friction stiffness of sliding contact l on its two tangent rows t1 = nsup + 1, t2 =
 * nsup + 2 by k (I - u u^T) (u: the unit slip in those rows; k = 0 removes it), in A's diagonal block
 * and, with the load -D (v - v_s) it brings, on r0 (top of system.h, "Sliding friction, linearised").
 * Called in the node's frame. */
static void set_friction_stiffness(cl_fem_system *sys, int32_t l, double k, double u0, double u1) {
  double *d = sys->cdamp + 3 * (size_t)l, *off = sys->cdoff + 2 * (size_t)l;
  const int t1 = sys->nsup[l] + 1, t2 = t1 + 1;
  if (t2 >= 3 || (d[0] == 0.0 && d[1] == 0.0 && d[2] == 0.0 && k == 0.0)) return;
  double *B = sys->A->val + 9 * (size_t)sys->A->diag[l], *r0 = sys->r0 + 3 * (size_t)l;
  const double n0 = k * (1.0 - u0 * u0), n1 = -k * u0 * u1, n2 = k * (1.0 - u1 * u1);
  B[3 * t1 + t1] += n0 - d[0];
  B[3 * t1 + t2] += n1 - d[1];
  B[3 * t2 + t1] += n1 - d[1];
  B[3 * t2 + t2] += n2 - d[2];
  double vsl[3];
  surface_velocity_in(sys, l, vsl);
  const double w1 = sys->v[3 * l + t1] - vsl[t1], w2 = sys->v[3 * l + t2] - vsl[t2];
  const double o0 = -(n0 * w1 + n1 * w2), o1 = -(n1 * w1 + n2 * w2);
  r0[t1] += o0 - off[0];
  r0[t2] += o1 - off[1];
  d[0] = n0, d[1] = n1, d[2] = n2;
  off[0] = o0, off[1] = o1;
  sys->diag_changed = 1;
}

/* The active-set update of every live contact from its reaction R (its rows' residual in its frame,
 * an impulse, plus the friction load): let go a contact that would pull (R_n < 0), make a sticking
 * one slide when it needs more than mu R_n, make a sliding one stick when its slip turned against
 * the friction; a sliding contact's friction is mu R_n against its slip, a fixed point of the solve
 * (R_n of a sliding contact is not that of the sticking one it was), linearised about the slip for
 * the next solve. In `final` (the last round) nothing sticks and nothing is linearised. Statics and
 * the budget of changes: see the top of system.h. Returns how many changed mode or friction (by more
 * than a thousandth): the island is solved again while any did. */
static int32_t update_contacts(cl_fem_system *sys, const cl_collider_view *view, int final) {
  int32_t changed = 0;
  for (int32_t l = 0; l < sys->n; ++l) {
    const uint8_t mode = sys->contact[l];
    if (sys->role[l] != CL_FEM_CONTACT || mode == CONTACT_NONE) continue;
    const double mu = view->shapes[sys->ccol[l]].friction;
    const double *fr = sys->cfric + 2 * (size_t)l;
    const int ns = sys->nsup[l], t1 = ns + 1 < 3 ? ns + 1 : -1, t2 = ns + 2 < 3 ? ns + 2 : -1;
    double R[3], nl[3];
    row_residual(sys, l, R);
    memcpy(nl, sys->cn + 3 * (size_t)l, sizeof nl);
    turn_in(sys->basis + 9 * (size_t)l, nl);
    /* the normal force lambda = R_e / |n_perp| (R_0 of a free node) and the tangential reaction
     * (rows t1, t2) */
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
    } else if (mu > 0.0 && t1 >= 0 && (sys->statics || sys->cflips[l] == CONTACT_LOCKED)) {
      /* a static iteration, or a contact past its budget of changes (locked): the friction keeps
       * the direction of the reaction that could not hold the node, with mu R_n of now, and it does
       * not stick again (in statics the next iteration starts sticking). Deciding both ways from each
       * solve made neighbouring contacts at the cone's edge switch back and forth until the rounds
       * ran out (top of system.h) */
      const double fn = sqrt(fr[0] * fr[0] + fr[1] * fr[1]);
      if (fn > 0.0) {
        f0 = mu * Rn * fr[0] / fn;
        f1 = mu * Rn * fr[1] / fn;
      }
    } else if (mu > 0.0 && t1 >= 0) {
      double vsl[3];
      surface_velocity_in(sys, l, vsl);
      const double s1 = end_velocity(sys, l, t1) - vsl[t1], s2 = t2 >= 0 ? end_velocity(sys, l, t2) - vsl[t2] : 0.0;
      const double sn = sqrt(s1 * s1 + s2 * s2);
      if (sn > 0.0 && s1 * fr[0] + s2 * fr[1] > 0.0 && !final) {
        next = CONTACT_STICK; /* the friction would drive the slip: it stops instead */
      } else if (sn > 0.0) {
        f0 = -mu * Rn * s1 / sn;
        f1 = -mu * Rn * s2 / sn;
        if (t2 >= 0) { /* the friction linearised about this slip (top of system.h); in the last round
                        * not, so that an unconverged slip direction leaves it at mu R_n */
          const double *B = sys->A->val + 9 * (size_t)sys->A->diag[l], *d = sys->cdamp + 3 * (size_t)l;
          const double cap = CL_FEM_FRICTION_STIFFNESS_CAP * fmin(B[3 * t1 + t1] - d[0], B[3 * t2 + t2] - d[2]);
          set_friction_stiffness(sys, l, final ? 0.0 : fmin(mu * Rn / sn, cap), s1 / sn, s2 / sn);
        }
      } else {
        f0 = fr[0];
        f1 = fr[1];
      }
    }
    const double df = fabs(f0 - fr[0]) + fabs(f1 - fr[1]);
    const int moved = df > 1e-3 * (fabs(f0) + fabs(f1)) && df > 0.0;
    set_friction(sys, l, f0, f1);
    if (next != mode) {
      if (next != CONTACT_NONE && sys->cflips[l] < CONTACT_LOCKED) sys->cflips[l]++;
      /* past its budget of changes it slides for the rest of the step along this reaction */
      if (next == CONTACT_SLIDE && sys->cflips[l] > CL_FEM_CONTACT_FLIPS) sys->cflips[l] = CONTACT_LOCKED;
      sys->contact[l] = next;
      set_friction_stiffness(sys, l, 0.0, 0.0, 0.0);
    }
    changed += next != mode || moved;
  }
  return changed;
}

/* The impulse (N s, x y z) each held node's rows took: the held rows' residual (free rows carry only
 * the solver's tolerance) plus a sliding contact's friction load; in cimp for a constraint or a
 * contact, in simp for a support. A supported node in contact splits it (top of system.h): the
 * contact takes lambda n plus its tangent rows, the support R_k - lambda (n . a_k) along its rows.
 * Called while the frames are in place. */
static void held_impulses(cl_fem_system *sys) {
  for (int32_t l = 0; l < sys->n; ++l) {
    double R[3] = {0.0, 0.0, 0.0}, S[3] = {0.0, 0.0, 0.0};
    if (sys->role[l] != CL_FEM_FREE) {
      row_residual(sys, l, R);
      const uint8_t *f = sys->fixed + 3 * (size_t)l;
      for (int k = 0; k < 3; ++k)
        if (!f[k]) R[k] = 0.0;
    }
    const int ns = sys->nsup[l];
    if (sys->role[l] == CL_FEM_CONTACT) {
      if (ns + 1 < 3) R[ns + 1] += sys->cfric[2 * l];
      if (ns + 2 < 3) R[ns + 2] += sys->cfric[2 * l + 1];
      double nl[3];
      memcpy(nl, sys->cn + 3 * (size_t)l, sizeof nl);
      turn_in(sys->basis + 9 * (size_t)l, nl);
      const double lambda = sys->contact[l] != CONTACT_NONE ? R[ns] / nl[ns] : 0.0;
      for (int k = 0; k < ns; ++k) {
        S[k] = R[k] - lambda * nl[k];
        R[k] = lambda * nl[k];
      }
    } else if (sys->role[l] == CL_FEM_SUPPORTED) {
      memcpy(S, R, sizeof S);
      R[0] = R[1] = R[2] = 0.0;
    }
    if (sys->frame[l]) {
      turn_out(sys->basis + 9 * (size_t)l, R);
      turn_out(sys->basis + 9 * (size_t)l, S);
    }
    memcpy(sys->cimp + 3 * (size_t)l, R, sizeof R);
    memcpy(sys->simp + 3 * (size_t)l, S, sizeof S);
  }
}


cl_status cl_fem_system_alloc(cl_fem_system *sys, int32_t n, const char *what) {
  const size_t nn = (size_t)(n > 0 ? n : 1), n3 = 3 * nn;
  sys->n = n;
  sys->b = cl_calloc(n3, sizeof(double), what);
  sys->r0 = cl_calloc(n3, sizeof(double), what);
  sys->v = cl_calloc(n3, sizeof(double), what);
  sys->dv = cl_calloc(n3, sizeof(double), what);
  sys->dv_prev = cl_calloc(n3, sizeof(double), what);
  sys->fixed = cl_calloc(n3, 1, what);
  sys->role = cl_calloc(nn, 1, what);
  sys->contact = cl_calloc(nn, 1, what);
  sys->frame = cl_calloc(nn, 1, what);
  sys->turn = cl_calloc(nn, 1, what);
  sys->basis = cl_calloc(3 * n3, sizeof(double), what);
  sys->pbasis = cl_calloc(3 * n3, sizeof(double), what);
  sys->nsup = cl_calloc(nn, 1, what);
  sys->hold = cl_calloc(n3, sizeof(double), what);
  sys->ccol = cl_calloc(nn, sizeof(int32_t), what);
  sys->cn = cl_calloc(n3, sizeof(double), what);
  sys->cx = cl_calloc(n3, sizeof(double), what);
  sys->cv = cl_calloc(n3, sizeof(double), what);
  sys->capproach = cl_calloc(nn, sizeof(double), what);
  sys->cfric = cl_calloc(2 * nn, sizeof(double), what);
  sys->cfseed = cl_calloc(2 * nn, sizeof(double), what);
  sys->fseed = cl_calloc(nn, 1, what);
  sys->cdamp = cl_calloc(3 * nn, sizeof(double), what);
  sys->cdoff = cl_calloc(2 * nn, sizeof(double), what);
  sys->cflips = cl_calloc(nn, 1, what);
  sys->cimp = cl_calloc(n3, sizeof(double), what);
  sys->simp = cl_calloc(n3, sizeof(double), what);
  sys->was_contact = cl_calloc(nn, 1, what);
  sys->canchor = cl_calloc(n3, sizeof(double), what);
  if (!sys->was_contact || !sys->canchor || !sys->b || !sys->r0 || !sys->v || !sys->dv || !sys->dv_prev || !sys->fixed || !sys->role || !sys->contact ||
      !sys->frame || !sys->turn || !sys->basis || !sys->pbasis || !sys->nsup || !sys->hold || !sys->ccol ||
      !sys->cn || !sys->cx || !sys->cv || !sys->capproach || !sys->cfric || !sys->cfseed || !sys->fseed || !sys->cdamp || !sys->cdoff || !sys->cflips || !sys->cimp || !sys->simp)
    return CL_ERR_OUT_OF_MEMORY;
  return CL_OK;
}

void cl_fem_system_free(cl_fem_system *sys) {
  free(sys->b);
  free(sys->r0);
  free(sys->v);
  free(sys->dv);
  free(sys->dv_prev);
  free(sys->fixed);
  free(sys->role);
  free(sys->contact);
  free(sys->frame);
  free(sys->turn);
  free(sys->basis);
  free(sys->pbasis);
  free(sys->nsup);
  free(sys->hold);
  free(sys->ccol);
  free(sys->cn);
  free(sys->cx);
  free(sys->canchor);
  free(sys->cv);
  free(sys->capproach);
  free(sys->cfric);
  free(sys->cfseed);
  free(sys->fseed);
  free(sys->cdamp);
  free(sys->cdoff);
  free(sys->cflips);
  free(sys->cimp);
  free(sys->simp);
  free(sys->was_contact);
  sys->b = sys->r0 = sys->v = sys->dv = sys->dv_prev = sys->basis = sys->pbasis = sys->hold = NULL;
  sys->cn = sys->cx = sys->canchor = sys->cv = sys->capproach = sys->cfric = sys->cfseed = sys->cdamp = sys->cdoff = sys->cimp = sys->simp = NULL;
  sys->fixed = sys->role = sys->contact = sys->frame = sys->turn = sys->nsup = sys->was_contact = sys->fseed = sys->cflips = NULL;
  sys->ccol = NULL;
}

/* A contact kept by a static iteration, its node at x after sliding along the tangent plane of its
 * surface point (canchor, where the plane touches the collider): the surface point and normal under
 * x, when the surface turned under it (a curved collider). The slide s = |x - canchor| bounds the
 * node's gap from a surface whose radius of curvature exceeds s / 2 (s^2 / 2R), so x moved s into
 * the collider along the plane's normal lies inside it. Keeps the contact as it was (returns 0) where
 * the normal did not change (a plane), where that point is not inside, or where the new normal lies
 * within the node's support (ns rows of its basis). */
static int reproject_kept(cl_fem_system *sys, int32_t l, int ns, const double *x, const cl_collider_view *view) {
  const int32_t c = sys->ccol[l];
  if (!view || c < 0 || c >= view->count) return 0;
  double *cx = sys->cx + 3 * (size_t)l, *cn = sys->cn + 3 * (size_t)l, *ca = sys->canchor + 3 * (size_t)l;
  const double slide = sqrt((x[0] - ca[0]) * (x[0] - ca[0]) + (x[1] - ca[1]) * (x[1] - ca[1]) +
                            (x[2] - ca[2]) * (x[2] - ca[2]));
  double q[3], p[3], n[3], e[3];
  for (int k = 0; k < 3; ++k) q[k] = x[k] - slide * cn[k];
  if (!(slide > 0.0) || !cl_collider_penetration(&view->shapes[c], q, p, n)) return 0;
  if (n[0] == cn[0] && n[1] == cn[1] && n[2] == cn[2]) return 0;
  double *Q = sys->basis + 9 * (size_t)l;
  const double en = normal_across(Q, ns, n, e);
  if (!(en > 1e-6)) return 0;
  set_normal_row(Q, ns, e, en);
  memcpy(cx, p, sizeof p);
  memcpy(ca, p, sizeof p);
  memcpy(cn, n, sizeof n);
  return 1;
}

void cl_fem_system_begin(cl_fem_system *sys, const cl_body_state *st, int keep_contacts,
                         const cl_collider_view *view) {
  memset(sys->fixed, 0, 3 * (size_t)sys->n);
  sys->ncons = sys->nfull = 0;
  sys->imposed2 = 0.0;
  sys->reprojected = 0;
  memset(sys->fseed, 0, (size_t)sys->n);
  memset(sys->cdamp, 0, 3 * sizeof(double) * (size_t)sys->n); /* A and r0 are new (finish took them off) */
  memset(sys->cdoff, 0, 2 * sizeof(double) * (size_t)sys->n);
  memset(sys->cflips, 0, (size_t)sys->n);
  for (int32_t l = 0; l < sys->n; ++l) /* for cl_fem_seed_contacts: the mode a contact ended the step in */
    sys->was_contact[l] = sys->role[l] == CL_FEM_CONTACT ? sys->contact[l] : CONTACT_NONE;
  if (!keep_contacts) {
    memset(sys->nsup, 0, (size_t)sys->n);
    memset(sys->role, CL_FEM_FREE, (size_t)sys->n);
    memset(sys->contact, CONTACT_NONE, (size_t)sys->n);
    return;
  }
  /* a static iteration starts from the last one's contacts: held where the node is now along the
   * same normal, or, in the static solve's polish (view given), on a curved collider at the surface
   * point under it along the normal there (reproject_kept: the equilibrium then has its nodes on the
   * surface, not on the tangent planes of the first iteration's contact points); free nodes
   * otherwise */
  for (int32_t l = 0; l < sys->n; ++l) {
    const int keep = sys->role[l] == CL_FEM_CONTACT && sys->contact[l] != CONTACT_NONE;
    if (!keep) {
      sys->role[l] = CL_FEM_FREE;
      sys->contact[l] = CONTACT_NONE;
      continue;
    }
    const double *x = st->x + 3 * (size_t)node_of(sys, l);
    if (keep_contacts == 2 && reproject_kept(sys, l, sys->nsup[l], x, view)) sys->reprojected++;
    else memcpy(sys->cx + 3 * (size_t)l, x, 3 * sizeof(double));
    memset(sys->cv + 3 * (size_t)l, 0, 3 * sizeof(double));
    sys->cfric[2 * l] = sys->cfric[2 * l + 1] = 0.0;
    /* the iteration's trial: a kept contact sticks where its node is now (where friction can hold
     * it); the rounds let it slide when its reaction leaves the friction cone (update_contacts). A
     * contact kept sliding without its friction load entered the merit with that load as an
     * unbalanced force, and the iterations stalled (system.h, "Friction in a static solve") */
    const int32_t c = sys->ccol[l];
    if (view && c >= 0 && c < view->count && view->shapes[c].friction > 0.0 && sys->nsup[l] < 2)
      sys->contact[l] = CONTACT_STICK;
    sys->capproach[l] = 0.0;
    sys->turn[l] = 1;
    sys->ncons++;
  }
  memset(sys->nsup, 0, (size_t)sys->n); /* the supports' holds set them again */
}

void cl_fem_hold_constraint(cl_fem_system *sys, int32_t l, const double *x_t, const double *x, const double *v,
                            double dt) {
  sys->ncons++;
  sys->nfull++;
  sys->role[l] = CL_FEM_HELD;
  for (int c = 0; c < 3; ++c) {
    sys->fixed[3 * l + c] = 1;
    sys->dv[3 * l + c] = (x_t[c] - x[c]) / dt - v[c];
  }
}

void cl_fem_hold_support(cl_fem_system *sys, int32_t l, const double *axes, int held, const double *p,
                         const double *x, const double *v, double dt) {
  double *Q = sys->basis + 9 * (size_t)l;
  sys->nsup[l] = (uint8_t)held;
  /* a contact kept from the last static iteration keeps its basis: the support's rows come first in it */
  if (sys->role[l] != CL_FEM_CONTACT) {
    memcpy(Q, axes, 9 * sizeof(double));
    basis_complete(Q, held);
    sys->role[l] = CL_FEM_SUPPORTED;
  }
  for (int h = 0; h < held; ++h) {
    const double *a = Q + 3 * h;
    sys->fixed[3 * l + h] = 1;
    sys->hold[3 * (size_t)l + h] =
        (a[0] * (p[0] - x[0]) + a[1] * (p[1] - x[1]) + a[2] * (p[2] - x[2])) / dt - (a[0] * v[0] + a[1] * v[1] + a[2] * v[2]);
  }
  sys->turn[l] = 1;
  sys->ncons++;
}

double cl_fem_system_prepare(cl_fem_system *sys, const cl_body_state *st, double dt) {
  if (sys->ncons > sys->nfull) {
    frames_in(sys);
    for (int32_t l = 0; l < sys->n; ++l) {
      for (int h = 0; h < sys->nsup[l]; ++h) sys->dv[3 * l + h] = sys->hold[3 * (size_t)l + h];
      if (sys->role[l] != CL_FEM_CONTACT) continue;
      contact_hold(sys, st, l, dt); /* kept from the last static iteration, or a seed */
      if (sys->fseed[l]) { /* a seed that slides: its friction load onto this step's r0 (turned) */
        set_friction(sys, l, sys->cfseed[2 * (size_t)l], sys->cfseed[2 * (size_t)l + 1]);
        sys->fseed[l] = 0;
      }
    }
  }
  double r2 = 0.0; /* the unbalanced force on the free dofs */
  for (int64_t d = 0; d < 3 * (int64_t)sys->n; ++d)
    if (!sys->fixed[d]) r2 += sys->r0[d] * sys->r0[d];
  return r2;
}

void cl_fem_system_tell_solver(cl_fem_system *sys, cl_linear_solver *ls) {
  if (!sys->diag_changed) return;
  cl_linear_solver_diagonal_changed(ls);
  sys->diag_changed = 0;
}

double cl_fem_system_cone_excess2(const cl_fem_system *sys, const cl_collider_view *view) {
  double e2 = 0.0;
  if (!view) return 0.0;
  for (int32_t l = 0; l < sys->n; ++l) {
    if (sys->role[l] != CL_FEM_CONTACT || sys->contact[l] == CONTACT_NONE) continue;
    const int32_t c = sys->ccol[l];
    if (c < 0 || c >= view->count) continue;
    const int ns = sys->nsup[l];
    const double *r = sys->r0 + 3 * (size_t)l;
    double nl[3];
    memcpy(nl, sys->cn + 3 * (size_t)l, sizeof nl);
    turn_in(sys->basis + 9 * (size_t)l, nl);
    /* the collider's force on the node at the iteration's start: -r0 on its held rows */
    const double Rn = -r[ns] / nl[ns];
    double t2 = 0.0;
    if (sys->contact[l] == CONTACT_STICK)
      for (int k = ns + 1; k < 3; ++k) t2 += r[k] * r[k];
    double e = 0.0;
    if (Rn < 0.0) e = sqrt(r[ns] * r[ns] + t2); /* it pulls: all it carries is unbalanced */
    else e = fmax(0.0, sqrt(t2) - view->shapes[c].friction * Rn);
    e2 += e * e;
  }
  return e2;
}

cl_status cl_fem_contact_rounds(cl_fem_system *sys, const cl_body_state *st, const cl_collider_view *view, double dt,
                                cl_fem_solve_fn solve, void *ctx) {
  cl_status worst = CL_OK;
  int32_t ncontact = 0;
  sys->rounds = 0;
  for (int32_t l = 0; l < sys->n; ++l) ncontact += sys->role[l] == CL_FEM_CONTACT;
  for (int round = 1; view->count && round < CL_FEM_CONTACT_ROUNDS; ++round) {
    /* the last round only lets contacts go or slide: what it would stick or find, no later round
     * could check (top of system.h) */
    const int final = round == CL_FEM_CONTACT_ROUNDS - 1;
    const int32_t changed = ncontact ? update_contacts(sys, view, final) : 0;
    const int32_t found = final ? 0 : find_contacts(sys, st, view, dt);
    if (!changed && !found) break;
    ncontact += found;
    if (found) frames_in(sys);
    sys->ncons = 0;
    for (int32_t l = 0; l < sys->n; ++l) {
      if (sys->role[l] == CL_FEM_CONTACT) contact_hold(sys, st, l, dt);
      const uint8_t *f = sys->fixed + 3 * (size_t)l;
      sys->ncons += f[0] | f[1] | f[2];
    }
    sys->rounds++;
    cl_status r = solve(ctx, sys, 1);
    if (r < 0) return r;
    if (r > worst) worst = r;
  }
  return worst;
}

void cl_fem_system_finish(cl_fem_system *sys, const cl_collider_view *view, int balance) {
  /* the linearised friction of the sliding contacts becomes their friction load: f - D s at the
   * final slip s, and A and r0 lose the stiffness and its load (consistent: the rows' residual is
   * unchanged) */
  for (int32_t l = 0; l < sys->n; ++l) {
    const double *d = sys->cdamp + 3 * (size_t)l;
    if (d[0] == 0.0 && d[1] == 0.0 && d[2] == 0.0) continue;
    const int t1 = sys->nsup[l] + 1, t2 = t1 + 1;
    double vsl[3];
    surface_velocity_in(sys, l, vsl);
    const double s1 = end_velocity(sys, l, t1) - vsl[t1], s2 = end_velocity(sys, l, t2) - vsl[t2];
    const double *fr = sys->cfric + 2 * (size_t)l;
    set_friction(sys, l, fr[0] - (d[0] * s1 + d[1] * s2), fr[1] - (d[1] * s1 + d[2] * s2));
    set_friction_stiffness(sys, l, 0.0, 0.0, 0.0);
  }
  int dynamic = 0;
  for (int32_t l = 0; l < sys->n && !dynamic && balance && !sys->statics; ++l)
    dynamic = sys->role[l] == CL_FEM_CONTACT && sys->contact[l] != CONTACT_NONE &&
              view->shapes[sys->ccol[l]].impulse != NULL;
  if (dynamic) balance_free_rows(sys);
  if (sys->statics) { /* what the held rows were moved by: the constraints the iteration's start broke */
    sys->imposed2 = 0.0;
    for (int64_t d = 0; d < 3 * (int64_t)sys->n; ++d)
      if (sys->fixed[d]) sys->imposed2 += sys->dv[d] * sys->dv[d];
  }
  held_impulses(sys);
  frames_out(sys);
}

void cl_fem_conserve_momentum(cl_fem_system *sys, const cl_body_state *st, const double *gravity,
                              const double *f_ext, double dt, double damp) {
  double P[3] = {0, 0, 0}, Pn[3] = {0, 0, 0}, F[3] = {0, 0, 0}, M = 0.0;
  for (int32_t l = 0; l < sys->n; ++l) {
    const int32_t i = node_of(sys, l);
    const double m = st->m[i];
    M += m;
    for (int k = 0; k < 3; ++k) {
      P[k] += m * sys->v[3 * l + k];
      Pn[k] += m * (sys->v[3 * l + k] + sys->dv[3 * l + k]);
      F[k] += m * gravity[k] + (f_ext ? f_ext[3 * (size_t)i + k] : 0.0);
    }
  }
  if (!(M > 0.0)) return;
  double d[3];
  for (int k = 0; k < 3; ++k) d[k] = ((P[k] + dt * F[k]) / damp - Pn[k]) / M;
  for (int32_t l = 0; l < sys->n; ++l)
    for (int k = 0; k < 3; ++k) sys->dv[3 * l + k] += d[k];
}

void cl_fem_system_update(cl_fem_system *sys, cl_body_state *st, const cl_collider_view *view, double dt) {
  for (int32_t l = 0; l < sys->n; ++l) {
    if (sys->role[l] == CL_FEM_HELD) continue;
    const int32_t i = node_of(sys, l);
    double *x = st->x + 3 * (size_t)i, *v = st->v + 3 * (size_t)i;
    for (int c = 0; c < 3; ++c) {
      v[c] = sys->v[3 * l + c] + sys->dv[3 * l + c];
      x[c] += dt * v[c];
    }
    if (sys->role[l] == CL_FEM_CONTACT && sys->contact[l] != CONTACT_NONE) {
      /* a static iteration has no velocity to reset; the contact forces are recorded at the
       * equilibrium (cl_fem_system_record_contacts), and colliders are held still */
      if (sys->statics) continue;
      const cl_collider_shape *sh = &view->shapes[sys->ccol[l]];
      const double *n = sys->cn + 3 * (size_t)l, *vs = sys->cv + 3 * (size_t)l;
      double vn = 0.0, *I = sys->cimp + 3 * (size_t)l;
      for (int c = 0; c < 3; ++c) vn += n[c] * (v[c] - vs[c]);
      const double dvn = -sh->restitution * sys->capproach[l] - vn;
      for (int c = 0; c < 3; ++c) {
        v[c] += dvn * n[c];
        I[c] += st->m[i] * dvn * n[c];
      }
      cl_collider_record(sh, x, I);
      if (sh->impulse) give_back(sh, x, I);
      continue;
    }
    if (sys->nsup[l]) continue; /* the support puts its held rows on target (the solver) */
    if (view->count) cl_collider_project_mass(view, x, v, sys->statics ? 0.0 : st->m[i]);
  }
}

double cl_fem_system_reaction2(const cl_fem_system *sys) {
  double r2 = 0.0;
  for (int32_t l = 0; l < sys->n; ++l) {
    if (sys->role[l] == CL_FEM_FREE) continue;
    for (int k = 0; k < 3; ++k) r2 += sys->cimp[3 * l + k] * sys->cimp[3 * l + k] + sys->simp[3 * l + k] * sys->simp[3 * l + k];
  }
  return r2;
}

void cl_fem_system_record_contacts(const cl_fem_system *sys, const cl_body_state *st, const cl_collider_view *view) {
  for (int32_t l = 0; l < sys->n; ++l)
    if (sys->role[l] == CL_FEM_CONTACT && sys->contact[l] != CONTACT_NONE)
      cl_collider_record(&view->shapes[sys->ccol[l]], st->x + 3 * (size_t)node_of(sys, l), sys->cimp + 3 * (size_t)l);
}

/* ---- a preconditioner across changes of frame (system.h) ---------------------------------------- */

void cl_fem_frames_snapshot(const cl_fem_system *sys, double *Fs) {
  for (int32_t l = 0; l < sys->n; ++l) {
    double *F = Fs + 9 * (size_t)l;
    if (sys->frame[l]) {
      memcpy(F, sys->basis + 9 * (size_t)l, 9 * sizeof(double));
    } else {
      memset(F, 0, 9 * sizeof(double));
      F[0] = F[4] = F[8] = 1.0;
    }
  }
}

void cl_fem_frame_turn(const cl_fem_system *sys, int32_t l, const double *Fs_l, const double *Q, double G[9]) {
  double T[9]; /* T = Q Fs_l^T */
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      T[3 * r + c] = Q ? Q[3 * r] * Fs_l[3 * c] + Q[3 * r + 1] * Fs_l[3 * c + 1] + Q[3 * r + 2] * Fs_l[3 * c + 2]
                       : Fs_l[3 * c + r];
  if (!sys->frame[l]) {
    memcpy(G, T, sizeof T);
    return;
  }
  const double *F = sys->basis + 9 * (size_t)l; /* G = F T */
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) G[3 * r + c] = F[3 * r] * T[c] + F[3 * r + 1] * T[3 + c] + F[3 * r + 2] * T[6 + c];
}

cl_status cl_fem_turned_precond(int32_t n, const double *G, double *tmp, cl_precond_fn inner, void *inner_ctx,
                                const double *r, double *z) {
  for (int32_t l = 0; l < n; ++l) { /* tmp = G^T r */
    memcpy(tmp + 3 * (size_t)l, r + 3 * (size_t)l, 3 * sizeof(double));
    turn_out(G + 9 * (size_t)l, tmp + 3 * (size_t)l);
  }
  CL_TRY(inner(inner_ctx, tmp, tmp));
  for (int32_t l = 0; l < n; ++l) { /* z = G tmp */
    memcpy(z + 3 * (size_t)l, tmp + 3 * (size_t)l, 3 * sizeof(double));
    turn_in(G + 9 * (size_t)l, z + 3 * (size_t)l);
  }
  return CL_OK;
}

cl_status cl_fem_frame_wrap_alloc(cl_fem_frame_wrap *w, const cl_fem_system *sys) {
  const size_t nn = (size_t)(sys->n > 0 ? sys->n : 1);
  w->sys = sys;
  w->Fs = cl_calloc(9 * nn, sizeof(double), "frame wrap");
  w->G = cl_calloc(9 * nn, sizeof(double), "frame wrap");
  w->tmp = cl_calloc(3 * nn, sizeof(double), "frame wrap");
  w->version = 0;
  w->stale = 1;
  if (!w->Fs || !w->G || !w->tmp) return CL_ERR_OUT_OF_MEMORY;
  cl_fem_frames_snapshot(sys, w->Fs);
  return CL_OK;
}

void cl_fem_frame_wrap_free(cl_fem_frame_wrap *w) {
  free(w->Fs);
  free(w->G);
  free(w->tmp);
  w->Fs = w->G = w->tmp = NULL;
}

/* The preconditioner was just made: the frames of now are its frames. */
static void frame_wrap_refreshed(void *ctx) {
  cl_fem_frame_wrap *w = ctx;
  cl_fem_frames_snapshot(w->sys, w->Fs);
  w->stale = 1;
}

static cl_status frame_wrap_apply(void *ctx, cl_precond_fn inner, void *inner_ctx, const double *r, double *z) {
  cl_fem_frame_wrap *w = ctx;
  const cl_fem_system *sys = w->sys;
  if (w->stale || w->version != sys->frames_version) {
    for (int32_t l = 0; l < sys->n; ++l) cl_fem_frame_turn(sys, l, w->Fs + 9 * (size_t)l, NULL, w->G + 9 * (size_t)l);
    w->stale = 0;
    w->version = sys->frames_version;
  }
  return cl_fem_turned_precond(sys->n, w->G, w->tmp, inner, inner_ctx, r, z);
}

cl_precond_wrap cl_fem_frame_wrap_of(cl_fem_frame_wrap *w) {
  cl_precond_wrap pw = {frame_wrap_apply, frame_wrap_refreshed, w};
  return pw;
}
