/* One shape-matching step (paper sec 3.1, eqs 1-8; the time stepping of the authors' framework):
 *
 *  1. per cluster c, at the positions x of the step start: the weighted centre of mass (eq 7),
 *     A_xr = sum_i w~_ic m_i (x_i - x_c)(X_i - r_c)^T and F = A_xr A_rr^+ (eqs 3-4), the elastic part
 *     F^e = F (F^p)^-1 (eq 9), its SVD U Sigma V^T and R = U V^T (eq 5: the polar decomposition of
 *     F^e, not of A_xr), the goals g_ic = R F^p (X_i - r_c) + x_c (eq 6; F^p carries the plastic rest
 *     shape, as in the authors' code);
 *  2. every particle's velocity moves toward its averaged goal (eq 8),
 *        v_i += dt g + dt f_i / m_i + sum_c w~_ic [alpha / dt (g_ic - x_i) - kappa v_i]_c,
 *     with kappa = 1 - exp(-damping dt); x_i += dt v_i;
 *  3. strain limiting (Bargteil & Jones 2014): `iterations` times, each cluster's goals are
 *     recomputed at the current positions and a particle farther than gamma x width from its goal
 *     is pulled back to that distance, blended with omega: x_i += omega sum_c w~_ic d_ic
 *     (a cluster whose goals provably cannot reach the limit is not swept: sl_cheap_skip and
 *     sl_eval below: the same clamps as sweeping every member; the kept sums differ from fresh
 *     ones by rounding only);
 *  4. v = (x - x_start) / dt; the world's colliders (cl_collider_project); cluster proxies.
 *
 * [.]_c in 2 and the strain-limiting corrections d_ic are made free of net force and (with
 * torque_free = 1, the default) net torque per cluster: the part of the correction that is a rigid
 * motion of the cluster,
 * a_c + w_c x (x_i - x_c) with a_c the mass-weighted mean and w_c = I_c^+ sum_i w~ m (x_i - x_c) x d_ic,
 * is removed (I_c is the cluster's inertia tensor at the step start). For Mueller's goals
 * (R from the polar decomposition of A_xr) the elastic term has no net force or torque anyway;
 * with R from F, and with F^p in the goals, a cluster with an anisotropic A_rr would otherwise
 * exert a torque on itself. The projection makes every cluster an internal force system, so
 * linear and angular momentum are conserved exactly in free flight when damping = 0 (the net force
 * is zero by construction, so linear momentum is conserved either way). For nearly isotropic
 * clusters it changes nothing; for elongated ones it makes the goals act like Mueller's torque-free
 * fit. torque_free = 0 gives the paper's goals unchanged (angular momentum then drifts: 8 % over
 * 200 steps of the conformance suite's spinning box).
 * The damping -kappa v has its mean over the cluster removed: velocities relax toward the cluster's
 * mean velocity, as in the authors' code ("springDamping"), which also damps the spin of a cluster,
 * so angular momentum then decays. With damp_spin = 0 its rigid part is removed instead: velocities
 * relax toward the cluster's rigid motion, spin is left alone and angular momentum is conserved. 
 *
 * Held (constrained) particles sit at their targets, take part in every cluster sum as if they
 * were free, and receive no correction: the correction they would have received, and their change
 * of momentum, give the reaction force the world reports.
 *
 * Parallel loops: clusters (each writes only its own data) and particles (each gathers its own
 * memberships in the fixed order of the reverse index), so results are bitwise the same for any
 * number of threads. Nothing is allocated. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/error.h"
#include "base/timer.h"
#include "solvers/shape_matching/sm_internal.h"

/* Pairs of doubles (GCC/Clang vector extensions, SSE2 on the baseline x86-64): the hot member loops
 * keep two of the three rows or components in the lanes of one register. Each lane performs the
 * very operations of the scalar code in the same order (no contraction into FMA: -std=c11 implies
 * -ffp-contract=off, and the baseline x86-64 has no FMA), so results are bitwise those of the scalar
 * loops; the scalar code spilled its accumulators and constants to the stack (16 registers for 18
 * accumulators), which made these loops several times slower than their arithmetic. */
#if defined(__GNUC__) && (defined(__SSE2__) || defined(__aarch64__)) && !defined(CL_SM_NO_V2D)
#define SM_V2D 1
typedef double v2d __attribute__((vector_size(16)));
static inline v2d v2d_load(const double *p) {
  v2d r;
  memcpy(&r, p, sizeof r);
  return r;
}
#else
#define SM_V2D 0
#endif

static inline cl_mat3 load9(const double *a, int32_t c) {
  cl_mat3 m;
  memcpy(m.m, a + 9 * (size_t)c, sizeof m.m);
  return m;
}

static inline void store9(double *a, int32_t c, const cl_mat3 *m) { memcpy(a + 9 * (size_t)c, m->m, sizeof m->m); }

/* Sums over the members of c at positions x, relative to the first member (so a far translation
 * loses no digits): sx = sum w~m (x - xref), A = sum w~m (x - xref) p^T with the rest offsets
 * p = X_i - r_c kept per membership (mr, the same subtraction bit for bit), and optionally
 * C = sum w~m (x - xref)(x - xref)^T. Since sum w~m p = 0, A is A_xr of eq 3. The loop streams the
 * member index, w~m and p (36 bytes per membership, in order) and reads x at the member: reading X
 * there too cost a second scattered load per member (the particles of a shattered body's cluster
 * lie all over the arrays, whose frame no longer fits the L2 cache): in perf the member loads were
 * the goal pass's hottest instructions. */
typedef struct sums {
  cl_vec3 xref, sx;
  cl_mat3 A, C;
} sums;

/* Two specialised loops with the sums in registers, as lane pairs (v2d; the scalar form spilled its
 * 18 accumulators to the stack): su = w~m d is formed once and reused, as cl_mat3_add_outer does, so
 * sx and A are bitwise those of the outer-product form. The second moments are symmetric: six sums,
 * mirrored. Strain limiting's sums (sl_sums) are the loop without the moments. */
static void member_sums(const cl_sm *s, const double *x, int32_t c, int moments, sums *out) {
  const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
  const int32_t *mp = s->mp;
  const double *mwm = s->mwm, *mr = s->mr;
  const cl_vec3 r = cl_vec3_load(x, mp[k0]);
#if SM_V2D
  /* lanes: s (0,1) | 2; A rows 0, 1, 2 columns (0,1), column 2 rows (0,1) | a22; C (00,01) (11,12)
   * (02,22) */
  const v2d r01 = {r.x, r.y};
  const double r2 = r.z;
  const v2d z = {0.0, 0.0};
  v2d s01 = z, a0 = z, a1 = z, a2 = z, a_2 = z, m0 = z, m1 = z, m_2 = z;
  double s2 = 0.0, a22 = 0.0;
  if (moments) {
    for (int64_t k = k0; k < k1; ++k) {
      const size_t i3 = 3 * (size_t)mp[k];
      const double wm = mwm[k];
      const v2d d01 = v2d_load(x + i3) - r01, p01 = v2d_load(mr + 3 * k);
      const double d2 = x[i3 + 2] - r2, p2 = mr[3 * k + 2];
      const v2d u01 = wm * d01;
      const double u0 = u01[0], u1 = u01[1], u2 = wm * d2;
      s01 += u01, s2 += u2;
      a0 += u0 * p01, a1 += u1 * p01, a2 += u2 * p01, a_2 += u01 * p2, a22 += u2 * p2;
      const v2d d12 = {d01[1], d2}, u02 = {u0, u2};
      m0 += u0 * d01, m1 += u1 * d12, m_2 += u02 * d2;
    }
  } else {
    for (int64_t k = k0; k < k1; ++k) {
      const size_t i3 = 3 * (size_t)mp[k];
      const double wm = mwm[k];
      const v2d d01 = v2d_load(x + i3) - r01, p01 = v2d_load(mr + 3 * k);
      const double d2 = x[i3 + 2] - r2, p2 = mr[3 * k + 2];
      const v2d u01 = wm * d01;
      const double u0 = u01[0], u1 = u01[1], u2 = wm * d2;
      s01 += u01, s2 += u2;
      a0 += u0 * p01, a1 += u1 * p01, a2 += u2 * p01, a_2 += u01 * p2, a22 += u2 * p2;
    }
  }
  out->xref = r;
  out->sx = cl_vec3_make(s01[0], s01[1], s2);
  const double A[9] = {a0[0], a0[1], a_2[0], a1[0], a1[1], a_2[1], a2[0], a2[1], a22};
  const double C[9] = {m0[0], m0[1], m_2[0], m0[1], m1[0], m1[1], m_2[0], m1[1], m_2[1]};
#else
  const double r0 = r.x, r1 = r.y, r2 = r.z;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  double a00 = 0.0, a01 = 0.0, a02 = 0.0, a10 = 0.0, a11 = 0.0, a12 = 0.0, a20 = 0.0, a21 = 0.0, a22 = 0.0;
  double m00 = 0.0, m01 = 0.0, m02 = 0.0, m11 = 0.0, m12 = 0.0, m22 = 0.0;
  for (int64_t k = k0; k < k1; ++k) {
    const double *xi = x + 3 * (size_t)mp[k], *pk = mr + 3 * k;
    const double wm = mwm[k];
    const double d0 = xi[0] - r0, d1 = xi[1] - r1, d2 = xi[2] - r2;
    const double p0 = pk[0], p1 = pk[1], p2 = pk[2];
    const double u0 = wm * d0, u1 = wm * d1, u2 = wm * d2;
    s0 += u0, s1 += u1, s2 += u2;
    a00 += u0 * p0, a01 += u0 * p1, a02 += u0 * p2;
    a10 += u1 * p0, a11 += u1 * p1, a12 += u1 * p2;
    a20 += u2 * p0, a21 += u2 * p1, a22 += u2 * p2;
    if (moments) {
      m00 += u0 * d0, m01 += u0 * d1, m02 += u0 * d2;
      m11 += u1 * d1, m12 += u1 * d2, m22 += u2 * d2;
    }
  }
  out->xref = r;
  out->sx = cl_vec3_make(s0, s1, s2);
  const double A[9] = {a00, a01, a02, a10, a11, a12, a20, a21, a22};
  const double C[9] = {m00, m01, m02, m01, m11, m12, m02, m12, m22};
#endif
  memcpy(out->A.m, A, sizeof A);
  memcpy(out->C.m, C, sizeof C);
}

void cl_sm_cluster_F(const cl_sm *s, const cl_body_state *st, int32_t c, double *com, cl_mat3 *F) {
  sums m;
  member_sums(s, st->x, c, 0, &m);
  cl_vec3 cm = cl_vec3_madd(m.xref, 1.0 / s->mass[c], m.sx);
  com[0] = cm.x;
  com[1] = cm.y;
  com[2] = cm.z;
  cl_mat3 Ai = load9(s->Arr_inv, c);
  *F = cl_mat3_mul(&m.A, &Ai);
}

static void sums_pack(const sums *m, double *o) {
  o[0] = m->xref.x, o[1] = m->xref.y, o[2] = m->xref.z;
  o[3] = m->sx.x, o[4] = m->sx.y, o[5] = m->sx.z;
  memcpy(o + 6, m->A.m, sizeof m->A.m);
  memcpy(o + 15, m->C.m, sizeof m->C.m);
}

static void sums_unpack(const double *o, sums *m) {
  m->xref = cl_vec3_make(o[0], o[1], o[2]);
  m->sx = cl_vec3_make(o[3], o[4], o[5]);
  memcpy(m->A.m, o + 6, sizeof m->A.m);
  memcpy(m->C.m, o + 15, sizeof m->C.m);
}

/* As cl_sm_cluster_F (the moments do not change sx and A, so F and the centre are bitwise the
 * same), keeping the sums for the next step's goal pass. */
void cl_sm_cluster_F_keep(cl_sm *s, const cl_body_state *st, int32_t c, double *com, cl_mat3 *F) {
  sums m;
  member_sums(s, st->x, c, 1, &m);
  sums_pack(&m, s->msum + SM_MSUM * (size_t)c);
  cl_vec3 cm = cl_vec3_madd(m.xref, 1.0 / s->mass[c], m.sx);
  com[0] = cm.x;
  com[1] = cm.y;
  com[2] = cm.z;
  cl_mat3 Ai = load9(s->Arr_inv, c);
  *F = cl_mat3_mul(&m.A, &Ai);
}

void cl_sm_cluster_F_kept(const cl_sm *s, int32_t c, double *com, cl_mat3 *F) {
  sums m;
  sums_unpack(s->msum + SM_MSUM * (size_t)c, &m);
  cl_vec3 cm = cl_vec3_madd(m.xref, 1.0 / s->mass[c], m.sx);
  com[0] = cm.x;
  com[1] = cm.y;
  com[2] = cm.z;
  cl_mat3 Ai = load9(s->Arr_inv, c);
  *F = cl_mat3_mul(&m.A, &Ai);
}

int cl_sm_decompose(const cl_sm *s, const cl_mat3 *Fe, cl_sm_decomp *d) {
  double delta;
  if (!s->plastic && cl_polar3_near(Fe, &d->R, &delta)) {
    d->svd = 0;
    d->smin = sqrt(1.0 - delta);
    return 0;
  }
  d->svd = 1;
  if (cl_svd3_fast(Fe, &d->U, &d->sig, &d->V) < 0) { /* non-finite F: the rest shape as goal */
    d->U = d->V = d->R = cl_mat3_identity();
    d->sig = cl_vec3_make(1.0, 1.0, 1.0);
    d->smin = 0.0;
    return -1;
  }
  d->R = cl_mat3_mul_nt(&d->U, &d->V); /* eq 5 */
  d->smin = d->sig.z > 0.0 ? d->sig.z : 0.0;
  return 0;
}

void cl_sm_keep_decomp(cl_sm *s, int32_t c, const cl_sm_decomp *d) {
  double *o = s->msum + SM_MSUM * (size_t)c;
  o[45] = d->svd;
  if (d->svd) {
    memcpy(o + 24, d->U.m, sizeof d->U.m);
    o[33] = d->sig.x, o[34] = d->sig.y, o[35] = d->sig.z;
    memcpy(o + 36, d->V.m, sizeof d->V.m);
  } else {
    memcpy(o + 24, d->R.m, sizeof d->R.m);
    o[33] = d->smin;
  }
}

/* The decomposition cl_sm_keep_decomp kept. */
static void kept_decomp(const cl_sm *s, int32_t c, cl_sm_decomp *d) {
  const double *o = s->msum + SM_MSUM * (size_t)c;
  d->svd = o[45] != 0.0;
  if (d->svd) {
    memcpy(d->U.m, o + 24, sizeof d->U.m);
    d->sig = cl_vec3_make(o[33], o[34], o[35]);
    memcpy(d->V.m, o + 36, sizeof d->V.m);
    d->R = cl_mat3_mul_nt(&d->U, &d->V);
    d->smin = d->sig.z > 0.0 ? d->sig.z : 0.0;
  } else {
    memcpy(d->R.m, o + 24, sizeof d->R.m);
    d->smin = o[33];
  }
}

/* The raw velocity correction of a member (eqs 6 and 8 before averaging):
 *   e = alpha/dt (T p - q) - kappa v,  p = X - r_c, q = x - x_c;
 * *q_out = q and *el = the elastic part alpha/dt (T p - q). The same expression in the cluster pass
 * and in the gather, so both see bitwise the same value. */
static inline cl_vec3 goal_e(const double *T, const double *rc, const double *y, const double *X, const double *x,
                             const double *v, double ka, double kd, cl_vec3 *q_out, cl_vec3 *el, double *g2) {
  double p0 = X[0] - rc[0], p1 = X[1] - rc[1], p2 = X[2] - rc[2];
  double q0 = x[0] - y[0], q1 = x[1] - y[1], q2 = x[2] - y[2];
  double g0 = T[0] * p0 + T[1] * p1 + T[2] * p2 - q0, g1 = T[3] * p0 + T[4] * p1 + T[5] * p2 - q1,
         gz = T[6] * p0 + T[7] * p1 + T[8] * p2 - q2;
  *g2 = g0 * g0 + g1 * g1 + gz * gz; /* squared distance of the member from its goal */
  cl_vec3 e = cl_vec3_make(ka * g0, ka * g1, ka * gz);
  *el = e;
  *q_out = cl_vec3_make(q0, q1, q2);
  return cl_vec3_make(e.x - kd * v[0], e.y - kd * v[1], e.z - kd * v[2]);
}

/* A bound on sqrt(||M||_1 ||M||_inf) >= ||M||_2 (exact for diagonal matrices). */
static double norm2_bound(const cl_mat3 *M) {
  const double *a = M->m;
  double r = 0.0, cmax = 0.0;
  for (int i = 0; i < 3; ++i) {
    double ri = fabs(a[3 * i]) + fabs(a[3 * i + 1]) + fabs(a[3 * i + 2]);
    double ci = fabs(a[i]) + fabs(a[3 + i]) + fabs(a[6 + i]);
    r = ri > r ? ri : r;
    cmax = ci > cmax ? ci : cmax;
  }
  return sqrt(r * cmax);
}

/* Pseudo-inverse of a cluster's inertia tensor (symmetric, positive semi-definite) with the
 * relative threshold 1e-12 of cl_pinv3. When det I > 1e-9 ||I||_F^3 the smallest singular value is
 * at least det / sigma_max^2 > 1e-9 sigma_max, so nothing would be clamped and the pseudo-inverse
 * is the inverse: the adjugate over the determinant, without the SVD (a third of the goal pass in
 * scenes with many small clusters). Thin or flat clusters take the SVD path. */
static cl_mat3 inertia_inverse(const cl_mat3 *I) {
  const double *a = I->m;
  const double c[9] = {a[4] * a[8] - a[5] * a[7], a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
                       a[5] * a[6] - a[3] * a[8], a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
                       a[3] * a[7] - a[4] * a[6], a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3]};
  const double det = a[0] * c[0] + a[1] * c[3] + a[2] * c[6];
  double f2 = 0.0;
  for (int k = 0; k < 9; ++k) f2 += a[k] * a[k];
  cl_mat3 r;
  if (det > 1e-9 * f2 * sqrt(f2) && isfinite(det)) {
    const double id = 1.0 / det;
    for (int k = 0; k < 9; ++k) r.m[k] = c[k] * id;
    return r;
  }
  if (cl_pinv3(I, 1e-12, &r) < 0) r = cl_mat3_zero();
  return r;
}

#if SM_V2D
/* The goal pass's scatter (one thread, the default torque_free and damp_spin): each member's term
 * of gather_goals, w~ (e - ga - gw x q), added to its particle's sum in acc, from the e and q the
 * pass's first loop kept in sc (gacc is zero before: step 2 zeroes what it reads). The clusters run in slot order, which is the order of every
 * particle's memberships in the reverse index (the pool holds the clusters in slot order: a split
 * appends the new, highest slot at its end, a compaction keeps the order), and each term is
 * formed by the very operations of goal_add, lane by lane: acc is bitwise what the gather sums
 * (test_goal_scatter_is_the_gather), without recomputing every membership's goal there. */
static void goal_scatter(cl_sm *s, int32_t c, const double *sc) {
  const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
  const int32_t *mp = s->mp;
  const double *mwt = s->mwt, *ga = s->ga + 3 * (size_t)c, *gw = s->gw + 3 * (size_t)c;
  double *acc = s->gacc;
  const v2d ga01 = {ga[0], ga[1]}, gw12 = {gw[1], gw[2]}, gw20 = {gw[2], gw[0]};
  const double ga2 = ga[2], gw0 = gw[0], gw1 = gw[1];
  for (int64_t k = k0; k < k1; ++k) {
    const double *o = sc + 6 * (k - k0);
    const double w = mwt[k];
    v2d e01 = v2d_load(o) - ga01;
    double ez = o[2] - ga2;
    const v2d q01 = v2d_load(o + 3);
    const double q2 = o[5];
    const v2d q20 = {q2, q01[0]}, q12 = {q01[1], q2};
    e01 = e01 - (gw12 * q20 - gw20 * q12);
    ez = ez - (gw0 * q01[1] - gw1 * q01[0]);
    double *a = acc + 3 * (size_t)mp[k];
    const v2d a01 = v2d_load(a) + w * e01;
    memcpy(a, &a01, sizeof a01);
    a[2] = a[2] + w * ez;
  }
}
#endif

/* Pass 1 of the step for cluster c: centre, inertia, F, SVD of F^e, the goal transform T = R F^p;
 * and the rigid part (ga, gw) of the members' velocity corrections
 *   e_i = alpha/dt (T p_i - q_i) - kappa v_i,   q_i = x_i - x_c,
 * from the cluster's moments: sum w~m (T p - q) = 0, so the mean is -kappa v_c, and
 * sum w~m q x T p is the axial vector of A_xr T^T. The torque removed is that of the elastic part
 * alone (spin = 1: the damping then pulls toward the mean velocity and slows spin, as the authors'
 * damping does) or of all of e (spin = 0: toward the cluster's rigid motion). Returns -1 when the
 * deformation gradient is not finite. */
static int goal_pass(cl_sm *s, const cl_body_state *st, int32_t c, double ka, double kd, int spin, int tf,
                     double *sc, int64_t *nreuse) {
  const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
  const double M = s->mass[c];
  sums m;
  const int reuse = s->msum_ok && s->mok[c] && !(s->no_shortcuts & 1);
  *nreuse += reuse;
  if (reuse) /* the last measure saw these very positions and memberships */
    sums_unpack(s->msum + SM_MSUM * (size_t)c, &m);
  else
    member_sums(s, st->x, c, 1, &m);
  cl_vec3 d = cl_vec3_scale(m.sx, 1.0 / M);
  cl_vec3 com = cl_vec3_add(m.xref, d);
  cl_vec3_store(s->com, c, com);
  /* inertia about com: I = tr(Cq) 1 - Cq with Cq = C - M d d^T */
  cl_mat3 C = m.C;
  cl_mat3_add_outer(&C, -M, d, d);
  double tr = cl_mat3_trace(&C);
  cl_mat3 I = cl_mat3_scale(&C, -1.0);
  I.m[0] += tr;
  I.m[4] += tr;
  I.m[8] += tr;
  cl_mat3 Iinv = inertia_inverse(&I);
  store9(s->Iinv, c, &Iinv);
  cl_mat3 Ai = load9(s->Arr_inv, c);
  cl_mat3 F = cl_mat3_mul(&m.A, &Ai); /* eq 3 */
  const int pl = s->plastic; /* without plasticity F^p = I: F^e = F and T = R (eqs 9, 6) */
  const cl_mat3 I3 = cl_mat3_identity(); /* F^p is not even read without plasticity */
  const cl_mat3 Fpi = pl ? load9(s->Fp_inv, c) : I3, Fp = pl ? load9(s->Fp, c) : I3;
  cl_mat3 Fe = pl ? cl_mat3_mul(&F, &Fpi) : F; /* eq 9 */
  cl_sm_decomp dc;
  int bad = 0;
  if (reuse) /* the measure decomposed this very F^e (same sums, same F^p) */
    kept_decomp(s, c, &dc);
  else
    bad = cl_sm_decompose(s, &Fe, &dc);
  if (dc.svd) { /* what plasticity reads (eqs 10-14) */
    cl_vec3_store(s->sig, c, dc.sig);
    store9(s->Vp, c, &dc.V);
  }
  cl_mat3 T = pl ? cl_mat3_mul(&dc.R, &Fp) : dc.R;
  /* kept as strain limiting's reference (its first iteration starts from these goals); the loops
   * below read it back from there */
  store9(s->sl_T, c, &T);
  /* the rigid part of the corrections, summed over the very values the gather computes (an
   * analytic sum, e.g. sum w~m (T p - q) = 0, would differ from them by rounding and let momentum
   * drift by 1e-11 over a few hundred steps) */
  cl_vec3 se = cl_vec3_zero(), tau = cl_vec3_zero();
  const double *Tm = s->sl_T + 9 * (size_t)c, *rc = s->rcom + 3 * (size_t)c, *y = s->com + 3 * (size_t)c;
  double gmax2 = 0.0;
#if SM_V2D
  if (tf && spin) { /* the defaults: goal_e with rows 0 and 1 in the lanes of a pair (see v2d) */
    const int32_t *mp = s->mp;
    const double *mwm = s->mwm, *mr = s->mr, *xa = st->x, *va = st->v;
    const v2d T03 = {Tm[0], Tm[3]}, T14 = {Tm[1], Tm[4]}, T25 = {Tm[2], Tm[5]};
    const double T6 = Tm[6], T7 = Tm[7], T8 = Tm[8];
    const v2d y01 = {y[0], y[1]}, ka2 = {ka, ka}, kd2 = {kd, kd};
    const double y2 = y[2];
    v2d se01 = {0.0, 0.0};
    double se2 = 0.0, t0 = 0.0, t1 = 0.0, t2 = 0.0;
    for (int64_t k = k0; k < k1; ++k) {
      const size_t i3 = 3 * (size_t)mp[k];
      const double wm = mwm[k];
      const v2d p01 = v2d_load(mr + 3 * k), q01 = v2d_load(xa + i3) - y01;
      const double p0 = p01[0], p1 = p01[1], p2 = mr[3 * k + 2], q2 = xa[i3 + 2] - y2;
      const v2d g01 = T03 * p0 + T14 * p1 + T25 * p2 - q01;
      const double gz = T6 * p0 + T7 * p1 + T8 * p2 - q2;
      const double g0 = g01[0], g1 = g01[1];
      const double g2 = g0 * g0 + g1 * g1 + gz * gz;
      if (g2 > gmax2) gmax2 = g2;
      const v2d el01 = ka2 * g01, e01 = el01 - kd2 * v2d_load(va + i3);
      const double el2 = ka * gz, e2 = el2 - kd * va[i3 + 2];
      se01 += wm * e01;
      se2 += wm * e2;
      if (sc) { /* for the scatter below */
        double *o = sc + 6 * (k - k0);
        memcpy(o, &e01, sizeof e01);
        o[2] = e2;
        memcpy(o + 3, &q01, sizeof q01);
        o[5] = q2;
      }
      const double q0 = q01[0], q1 = q01[1], el0 = el01[0], el1 = el01[1];
      t0 += wm * (q1 * el2 - q2 * el1);
      t1 += wm * (q2 * el0 - q0 * el2);
      t2 += wm * (q0 * el1 - q1 * el0);
    }
    se = cl_vec3_make(se01[0], se01[1], se2);
    tau = cl_vec3_make(t0, t1, t2);
  } else
#endif
  for (int64_t k = k0; k < k1; ++k) {
    const int32_t i = s->mp[k];
    const double wm = s->mwm[k];
    cl_vec3 q, el;
    double g2;
    cl_vec3 e = goal_e(Tm, rc, y, st->X + 3 * (size_t)i, st->x + 3 * (size_t)i, st->v + 3 * (size_t)i, ka, kd, &q, &el,
                       &g2);
    if (g2 > gmax2) gmax2 = g2;
    se = cl_vec3_madd(se, wm, e);
    if (tf) tau = cl_vec3_madd(tau, wm, cl_vec3_cross(q, el));
    if (!spin) tau = cl_vec3_madd(tau, wm, cl_vec3_cross(q, cl_vec3_sub(e, el)));
  }
  cl_vec3_store(s->ga, c, cl_vec3_scale(se, 1.0 / M));
  cl_vec3_store(s->gw, c, cl_mat3_mul_vec(&Iinv, tau));
#if SM_V2D
  if (sc) goal_scatter(s, c, sc);
#endif
  { /* one block per cluster for the gather (the same values), laid out in the lane pairs the gather
     * uses: (T0,T3) (T1,T4) (T2,T5) (rc0,rc1) (y0,y1) (ga0,ga1) (gw1,gw2) (gw2,gw0), then
     * T6 T7 T8 rc2 y2 ga2 gw0 gw1 */
    double *pk = s->gpack + SM_GPACK * (size_t)c;
    const double *ga = s->ga + 3 * (size_t)c, *gw = s->gw + 3 * (size_t)c;
    const double blk[24] = {Tm[0], Tm[3], Tm[1], Tm[4], Tm[2], Tm[5], rc[0], rc[1], y[0],  y[1],  ga[0], ga[1],
                            gw[1], gw[2], gw[2], gw[0], Tm[6], Tm[7], Tm[8], rc[2], y[2], ga[2], gw[0], gw[1]};
    memcpy(pk, blk, sizeof blk);
    memcpy(pk + 28, Fe.m, sizeof Fe.m); /* strain limiting's reference F^e (sl_eval) */
  }
  /* held members of c, counted before the goal pass (stamp: see cl_sm_step) */
  s->clampc[c] = (uint8_t)(s->stamp[c] > 0 && s->stamp[c] < s->mcnt[c]);
  /* the reference of strain limiting's first iteration: these goals at the step-start positions
   * (the transform is in sl_T already) */
  cl_vec3_store(s->sl_y, c, com);
  s->sl_g[c] = sqrt(gmax2);
  s->sl_s[c] = bad == 0 ? dc.smin : 0.0;
  s->sl_k[c] = s->pabs[c] * norm2_bound(&Ai) * (pl ? norm2_bound(&Fpi) : 1.0);
  s->sl_f[c] = pl ? norm2_bound(&Fp) : 1.0;
  return bad;
}

/* Strain limiting of member i in cluster c (transform T, centre y): the correction that brings it
 * to distance lim of its goal, or zero. The same expression in the cluster pass and the gather, so
 * both see bitwise the same value. */
static inline cl_vec3 limit_of(const double *T, const double *y, const double *rc, const double *X, const double *x,
                               double lim, int *clamped, double *r2_out) {
  double p0 = X[0] - rc[0], p1 = X[1] - rc[1], p2 = X[2] - rc[2];
  double g0 = T[0] * p0 + T[1] * p1 + T[2] * p2 + y[0] - x[0];
  double g1 = T[3] * p0 + T[4] * p1 + T[5] * p2 + y[1] - x[1];
  double g2 = T[6] * p0 + T[7] * p1 + T[8] * p2 + y[2] - x[2];
  double r2 = g0 * g0 + g1 * g1 + g2 * g2;
  *r2_out = r2;
  if (!(r2 > lim * lim)) {
    *clamped = 0;
    return cl_vec3_zero();
  }
  *clamped = 1;
  double f = 1.0 - lim / sqrt(r2); /* move to distance lim of the goal */
  return cl_vec3_make(g0 * f, g1 * f, g2 * f);
}

/* Strain limiting keeps each cluster's member sums (sx, A about a fixed reference member) at the
 * current positions: they are summed afresh once per step (sl_sums), later iterations add the
 * displacements of the members that moved (sl_update, wm d p^T per moved member: every cluster holds
 * thousands of members in the large scenes, of which a part moves). */
static void sl_store_sums(cl_sm *s, int32_t c, const double *o) {
  memcpy(s->sl_sum + 15 * (size_t)c, o, 15 * sizeof(double));
}

static void sl_sums(cl_sm *s, const cl_body_state *st, int32_t c) {
  sums m; /* the same loop as the measure's sums without the moments */
  member_sums(s, st->x, c, 0, &m);
  double o[15];
  o[0] = m.xref.x, o[1] = m.xref.y, o[2] = m.xref.z;
  o[3] = m.sx.x, o[4] = m.sx.y, o[5] = m.sx.z;
  memcpy(o + 6, m.A.m, sizeof m.A.m);
  sl_store_sums(s, c, o);
  s->sl_ok[c] = 1;
}

/* Whether no member of cluster c can be clamped, from how far its members moved since the
 * reference, without the member sums. Every member moved by at most D, and every member's
 * displacement d_i lies within H of a common point (the centre of their box; H = D with the
 * origin). Then:
 *   the centre's displacement (a weighted mean of the d_i) is within 2 min(D, H) of each d_i;
 *   ||A - A_r||_F <= min(D, H) sum w~m |p| (sum w~m (d_i - c) p^T = sum w~m d_i p^T for any c,
 *   since sum w~m p = 0);
 *   ||F^e - F^e_r||_F <= that x ||A_rr^+||_2 ||F^p^-1||_2 = eps;
 *   the rotation of F^e moves by ||R - R_r||_F <= 2 eps / (sigma_r + sigma) with
 *   sigma >= sigma_r - eps the smallest singular values (the perturbation bound of the polar factor,
 *   R.-C. Li, "New perturbation bounds for the unitary polar factor", SIAM J. Matrix Anal. Appl.
 *   16(1), 1995; for eps < sigma_r, F^e stays a proper deformation and its polar factor is R);
 *   ||T - T_r||_F <= ||R - R_r||_F ||F^p||_2,
 * so a goal distance is at most g_r + ||T - T_r||_F width + 2 min(D, H). A cluster that moves
 * rigidly without turning has H = 0 however far it travels, where D alone counts its travel twice. */
static int sl_cheap_skip2(const cl_sm *s, int32_t c, double D, double H, double lim) {
  const double sr = s->sl_s[c];
  if (!(sr > 0.0)) return 0;
  const double Hm = H < D ? H : D;
  const double eps = s->sl_k[c] * Hm;
  if (!(eps < 0.5 * sr)) return 0;
  const double w = s->width[c];
  const double bound = s->sl_g[c] + 2.0 * eps / (2.0 * sr - eps) * s->sl_f[c] * w + 2.0 * Hm;
  const double *yr = s->sl_y + 3 * (size_t)c;
  const double mag = fabs(yr[0]) + fabs(yr[1]) + fabs(yr[2]) + w;
  return bound * (1.0 + 1e-9) + 1e-12 * mag < lim && isfinite(bound);
}

static int sl_cheap_skip(const cl_sm *s, int32_t c, double D, double lim) { return sl_cheap_skip2(s, c, D, D, lim); }

/* Clusters up to this many members also try the bound with H (a pass over their members against
 * the sums and an evaluation, which cost the same per member plus a fixed ~1 us) */
enum { SM_BOX_SKIP_MAX = 64 };

/* Half the diagonal of the box of the members' displacements since the step start (x - xold): each
 * displacement is within it of the box centre. */
static double disp_half_diagonal(const cl_sm *s, const cl_body_state *st, int32_t c) {
  double l0 = INFINITY, l1 = INFINITY, l2 = INFINITY, h0 = -INFINITY, h1 = -INFINITY, h2 = -INFINITY;
  const double *x = st->x, *xo = s->xold;
  for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) {
    const size_t i3 = 3 * (size_t)s->mp[k];
    const double d0 = x[i3] - xo[i3], d1 = x[i3 + 1] - xo[i3 + 1], d2 = x[i3 + 2] - xo[i3 + 2];
    l0 = d0 < l0 ? d0 : l0, h0 = d0 > h0 ? d0 : h0;
    l1 = d1 < l1 ? d1 : l1, h1 = d1 > h1 ? d1 : h1;
    l2 = d2 < l2 ? d2 : l2, h2 = d2 > h2 ? d2 : h2;
  }
  const double e0 = h0 - l0, e1 = h1 - l1, e2 = h2 - l2;
  return 0.5 * sqrt(e0 * e0 + e1 * e1 + e2 * e2) * (1.0 + 1e-12);
}

/* The largest pdisp over the members of c (and in *moved whether one of them moved in the last
 * iteration). Four running maxima: one chain waited for each compare (the loop was bound by its
 * latency); the maximum of a set does not depend on the order (NaN never compares greater, so it
 * is skipped in any order). */
static double max_pdisp(const cl_sm *s, int32_t c, int *moved) {
  const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
  const int32_t *mp = s->mp;
  const double *pd = s->pdisp;
  double d0 = 0.0, d1 = 0.0, d2 = 0.0, d3 = 0.0;
  int64_t k = k0;
  if (moved) {
    const uint8_t *mv = s->moved;
    int m = 0;
    for (; k + 4 <= k1; k += 4) {
      const int32_t i0 = mp[k], i1 = mp[k + 1], i2 = mp[k + 2], i3 = mp[k + 3];
      m |= mv[i0] | mv[i1] | mv[i2] | mv[i3];
      d0 = pd[i0] > d0 ? pd[i0] : d0, d1 = pd[i1] > d1 ? pd[i1] : d1;
      d2 = pd[i2] > d2 ? pd[i2] : d2, d3 = pd[i3] > d3 ? pd[i3] : d3;
    }
    for (; k < k1; ++k) {
      m |= mv[mp[k]];
      d0 = pd[mp[k]] > d0 ? pd[mp[k]] : d0;
    }
    *moved = m != 0;
  } else {
    for (; k + 4 <= k1; k += 4) {
      const double e0 = pd[mp[k]], e1 = pd[mp[k + 1]], e2 = pd[mp[k + 2]], e3 = pd[mp[k + 3]];
      d0 = e0 > d0 ? e0 : d0, d1 = e1 > d1 ? e1 : d1, d2 = e2 > d2 ? e2 : d2, d3 = e3 > d3 ? e3 : d3;
    }
    for (; k < k1; ++k) d0 = pd[mp[k]] > d0 ? pd[mp[k]] : d0;
  }
  d0 = d1 > d0 ? d1 : d0;
  d2 = d3 > d2 ? d3 : d2;
  return d2 > d0 ? d2 : d0;
}

/* Add the last iteration's displacements (acc) of the members that moved. Returns 0 when none did
 * (the cluster then sees exactly the positions of its last evaluation). */
static int sl_update(cl_sm *s, const cl_body_state *st, int32_t c) {
  const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
  const int32_t *mp = s->mp;
  const uint8_t *mv = s->moved;
  const double *mwm = s->mwm, *X = st->X, *dl = s->acc;
  const cl_vec3 rc = cl_vec3_load(s->rcom, c);
  const double c0 = rc.x, c1 = rc.y, c2 = rc.z;
  double *o = s->sl_sum + 15 * (size_t)c;
#if SM_V2D
  { /* the loop below with lane pairs as in member_sums */
    const v2d c01 = {c0, c1};
    v2d s01 = {o[3], o[4]}, a0 = {o[6], o[7]}, a1 = {o[9], o[10]}, a2 = {o[12], o[13]}, a_2 = {o[8], o[11]};
    double s2 = o[5], a22 = o[14], dm = 0.0;
    int any = 0;
    for (int64_t k = k0; k < k1; ++k) {
      const int32_t i = mp[k];
      if (!mv[i]) continue;
      any = 1;
      const size_t i3 = 3 * (size_t)i;
      const double wm = mwm[k];
      const v2d d01 = v2d_load(dl + i3), p01 = v2d_load(X + i3) - c01;
      const double d0 = d01[0], d1 = d01[1], d2 = dl[i3 + 2], e = d0 * d0 + d1 * d1 + d2 * d2;
      dm = e > dm ? e : dm;
      const double p2 = X[i3 + 2] - c2;
      const v2d u01 = wm * d01;
      const double u0 = u01[0], u1 = u01[1], u2 = wm * d2;
      s01 += u01, s2 += u2;
      a0 += u0 * p01, a1 += u1 * p01, a2 += u2 * p01, a_2 += u01 * p2, a22 += u2 * p2;
    }
    if (!any) return 0;
    const double n[12] = {s01[0], s01[1], s2, a0[0], a0[1], a_2[0], a1[0], a1[1], a_2[1], a2[0], a2[1], a22};
    memcpy(o + 3, n, sizeof n);
    s->sl_d[c] += sqrt(dm);
    return 1;
  }
#endif
  double s0 = o[3], s1 = o[4], s2 = o[5], dm = 0.0;
  double a00 = o[6], a01 = o[7], a02 = o[8], a10 = o[9], a11 = o[10], a12 = o[11];
  double a20 = o[12], a21 = o[13], a22 = o[14];
  int any = 0;
  for (int64_t k = k0; k < k1; ++k) {
    const int32_t i = mp[k];
    if (!mv[i]) continue;
    any = 1;
    const double *di = dl + 3 * (size_t)i, *Xi = X + 3 * (size_t)i;
    const double wm = mwm[k];
    const double d0 = di[0], d1 = di[1], d2 = di[2], e = d0 * d0 + d1 * d1 + d2 * d2;
    dm = e > dm ? e : dm;
    const double p0 = Xi[0] - c0, p1 = Xi[1] - c1, p2 = Xi[2] - c2;
    const double u0 = wm * d0, u1 = wm * d1, u2 = wm * d2;
    s0 += u0, s1 += u1, s2 += u2;
    a00 += u0 * p0, a01 += u0 * p1, a02 += u0 * p2;
    a10 += u1 * p0, a11 += u1 * p1, a12 += u1 * p2;
    a20 += u2 * p0, a21 += u2 * p1, a22 += u2 * p2;
  }
  if (!any) return 0;
  const double n[12] = {s0, s1, s2, a00, a01, a02, a10, a11, a12, a20, a21, a22};
  memcpy(o + 3, n, sizeof n);
  s->sl_d[c] += sqrt(dm);
  return 1;
}

/* One strain-limiting evaluation of cluster c at the current positions: goals from the kept sums
 * (transform and centre kept in Rt and scom for the gather), the clamped corrections and their rigid
 * part about the step-start centre (positions xold). Returns 1 when some member was clamped, 0 when
 * none was, 2 when the sweep was skipped (none can be; force = 1 never skips).
 *
 * The sweep over the members is skipped when no member can be clamped: a member's goal distance
 * |T p + y - x| differs from the one at the cluster's last full sweep (transform T_r, centre y_r,
 * largest distance g_r) by at most ||T - T_r||_F |p| + |y - y_r| + |x - x_r|, with |p| <= width and
 * |x - x_r| <= the summed largest displacements of the members since (sl_d). When
 * g_r + ||T - T_r||_F width + |y - y_r| + sl_d stays below the limit (with a margin far above the
 * rounding), the sweep would clamp nothing: the decision is the same, at a fraction of the cost. */
static int sl_eval(cl_sm *s, const cl_body_state *st, int32_t c, double gamma, int tf, int force) {
  const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
  const double M = s->mass[c];
  const double *o = s->sl_sum + 15 * (size_t)c;
  cl_mat3 A;
  memcpy(A.m, o + 6, sizeof A.m);
  cl_vec3 com = cl_vec3_make(o[0] + o[3] / M, o[1] + o[4] / M, o[2] + o[5] / M);
  const cl_mat3 I3 = cl_mat3_identity();
  cl_mat3 Ai = load9(s->Arr_inv, c), Fpi = s->plastic ? load9(s->Fp_inv, c) : I3, Fp = s->plastic ? load9(s->Fp, c) : I3;
  cl_mat3 F = cl_mat3_mul(&A, &Ai);
  cl_mat3 Fe = s->plastic ? cl_mat3_mul(&F, &Fpi) : F; /* F^p = I without plasticity */
  const double lim = gamma * s->width[c];
  if (!force && s->sl_s[c] > 0.0) {
    /* The bound below without the polar decomposition, while the reference is the goal pass's
     * (sl_s > 0: the smallest singular value sigma_r of its F^e_r, kept at gpack + 28): with
     * eps = ||F^e - F^e_r||_F < sigma_r / 2, ||R - R_r||_F <= 2 eps / (2 sigma_r - eps) (Li's bound, as
     * in sl_cheap_skip) and ||T - T_r||_F <= that x ||F^p||_2, which bounds the ||T - T_r||_F of the
     * test below; the margins are twice that test's, so whenever this skips, it would have skipped
     * too (three quarters of the evaluations of the weak brittle plate end in that skip). */
    const double *Fr = s->gpack + SM_GPACK * (size_t)c + 28;
    double e2 = 0.0;
    for (int k = 0; k < 9; ++k) e2 += (Fe.m[k] - Fr[k]) * (Fe.m[k] - Fr[k]);
    const double eps = sqrt(e2), sr = s->sl_s[c];
    if (eps < 0.5 * sr) {
      const cl_vec3 yr = cl_vec3_load(s->sl_y, c);
      const double wf = s->width[c] * s->sl_f[c];
      const double bound =
          s->sl_g[c] + 2.0 * eps / (2.0 * sr - eps) * wf + cl_vec3_norm(cl_vec3_sub(com, yr)) + s->sl_d[c];
      const double mag =
          fabs(com.x) + fabs(com.y) + fabs(com.z) + fabs(yr.x) + fabs(yr.y) + fabs(yr.z) + s->width[c];
      if (bound * (1.0 + 2e-9) + 2e-12 * (mag + wf) < lim && isfinite(bound)) {
        s->active[c] = 0;
        return 2;
      }
    }
  }
  cl_mat3 R; /* the polar factor: Newton-Schulz for the usual nearly rigid cluster */
  if (!cl_polar3_near(&Fe, &R, NULL) && cl_polar3(&Fe, &R, NULL) < 0) R = cl_mat3_identity();
  cl_mat3 T = s->plastic ? cl_mat3_mul(&R, &Fp) : R;
  if (!force) {
    const cl_mat3 Tr = load9(s->sl_T, c);
    const cl_vec3 yr = cl_vec3_load(s->sl_y, c);
    const cl_mat3 dT = cl_mat3_sub(&T, &Tr);
    const double bound =
        s->sl_g[c] + cl_mat3_frobenius(&dT) * s->width[c] + cl_vec3_norm(cl_vec3_sub(com, yr)) + s->sl_d[c];
    const double mag = fabs(com.x) + fabs(com.y) + fabs(com.z) + fabs(yr.x) + fabs(yr.y) + fabs(yr.z) + s->width[c];
    if (bound * (1.0 + 1e-9) + 1e-12 * mag < lim && isfinite(bound)) {
      s->active[c] = 0;
      return 2;
    }
  }
  store9(s->Rt, c, &T);
  cl_vec3_store(s->scom, c, com);
  const double *y = s->scom + 3 * (size_t)c, *rc = s->rcom + 3 * (size_t)c, *Tm = s->Rt + 9 * (size_t)c;
  const cl_vec3 com0 = cl_vec3_load(s->com, c);
  cl_vec3 se = cl_vec3_zero(), tau = cl_vec3_zero();
  int any = 0;
  double gmax2 = 0.0;
  for (int64_t k = k0; k < k1; ++k) {
    const int32_t i = s->mp[k];
    int cl;
    double r2;
    cl_vec3 dd = limit_of(Tm, y, rc, st->X + 3 * (size_t)i, st->x + 3 * (size_t)i, lim, &cl, &r2);
    if (r2 > gmax2) gmax2 = r2;
    if (!cl) continue;
    any = 1;
    double wm = s->mwm[k];
    se = cl_vec3_madd(se, wm, dd);
    if (tf) tau = cl_vec3_madd(tau, wm, cl_vec3_cross(cl_vec3_sub(cl_vec3_load(s->xold, i), com0), dd));
  }
  /* this sweep is the new reference (the bound without sums is not used once the sums are kept) */
  s->sl_s[c] = 0.0;
  store9(s->sl_T, c, &T);
  cl_vec3_store(s->sl_y, c, com);
  s->sl_g[c] = sqrt(gmax2);
  s->sl_d[c] = 0.0;
  cl_mat3 Iinv = load9(s->Iinv, c);
  cl_vec3_store(s->ga, c, cl_vec3_scale(se, 1.0 / M));
  cl_vec3_store(s->gw, c, cl_mat3_mul_vec(&Iinv, tau));
  s->active[c] = (uint8_t)any;
  { /* what gather_limit reads, in its lane pairs: (T0,T3) (T1,T4) (T2,T5) (rc0,rc1) (y0,y1) (x_c0,x_c1)
     * (ga0,ga1) (gw1,gw2) (gw2,gw0), then T6 T7 T8 rc2 y2 x_c2 ga2 gw0 gw1 lim (gpack is free after
     * the goal gather) */
    const double *ga = s->ga + 3 * (size_t)c, *gw = s->gw + 3 * (size_t)c, *xc = s->com + 3 * (size_t)c;
    const double blk[28] = {Tm[0], Tm[3], Tm[1], Tm[4], Tm[2], Tm[5], rc[0], rc[1], y[0],  y[1],
                            xc[0], xc[1], ga[0], ga[1], gw[1], gw[2], gw[2], gw[0], Tm[6], Tm[7],
                            Tm[8], rc[2], y[2],  xc[2], ga[2], gw[0], gw[1], lim};
    memcpy(s->gpack + SM_GPACK * (size_t)c, blk, sizeof blk);
  }
  return any;
}

#if SM_V2D
/* One membership's term of gather_goals, w (goal_e - ga - gw x q) added to the accumulators, lane by
 * lane as the scalar code (gpack's pairs at pk). */
static inline void goal_add(const double *pk, double w, v2d X01, v2d x01, v2d kv01, double X2, double x2, double kv2,
                            double ka, v2d *acc01, double *acc2) {
  const v2d p01 = X01 - v2d_load(pk + 6), q01 = x01 - v2d_load(pk + 8);
  const double p0 = p01[0], p1 = p01[1], p2 = X2 - pk[19], q2 = x2 - pk[20];
  const v2d g01 = v2d_load(pk) * p0 + v2d_load(pk + 2) * p1 + v2d_load(pk + 4) * p2 - q01;
  const double gz = pk[16] * p0 + pk[17] * p1 + pk[18] * p2 - q2;
  v2d e01 = ka * g01 - kv01;
  double ez = ka * gz - kv2;
  e01 = e01 - v2d_load(pk + 10);
  ez = ez - pk[21];
  const v2d q20 = {q2, q01[0]}, q12 = {q01[1], q2};
  e01 = e01 - (v2d_load(pk + 12) * q20 - v2d_load(pk + 14) * q12);
  ez = ez - (pk[22] * q01[1] - pk[23] * q01[0]);
  *acc01 = *acc01 + w * e01;
  *acc2 = *acc2 + w * ez;
}
#endif

/* Velocity change of particle i from the goals (eq 8 with the rigid parts removed):
 * sum_c w~_ic [alpha/dt (T_c p_ic - q_ic) - kappa v_i - ga_c - gw_c x q_ic]. */
static inline cl_vec3 gather_goals(const cl_sm *s, const cl_body_state *st, int32_t i, double ka, double kd) {
  const double *Xi = st->X + 3 * (size_t)i, *xi = st->x + 3 * (size_t)i, *vi = st->v + 3 * (size_t)i;
  const int32_t a0 = s->pofs[i], a1 = s->pofs[i + 1];
  const int32_t *pc = s->pc;
  const double *pwt = s->pwt, *gp = s->gpack;
#if SM_V2D
  /* goal_e, then minus ga and gw x q, lane by lane as the scalar code below (gpack's pairs) */
  const v2d X01 = v2d_load(Xi), x01 = v2d_load(xi), kv01 = kd * v2d_load(vi);
  const double X2 = Xi[2], x2 = xi[2], kv2 = kd * vi[2];
  v2d acc01 = {0.0, 0.0};
  double acc2 = 0.0;
  if (a1 - a0 == 1) /* one membership (most particles of a shattered body): no loop */
    goal_add(gp + SM_GPACK * (size_t)pc[a0], pwt[a0], X01, x01, kv01, X2, x2, kv2, ka, &acc01, &acc2);
  else
    for (int32_t a = a0; a < a1; ++a)
      goal_add(gp + SM_GPACK * (size_t)pc[a], pwt[a], X01, x01, kv01, X2, x2, kv2, ka, &acc01, &acc2);
  return cl_vec3_make(acc01[0], acc01[1], acc2);
#else
  cl_vec3 acc = cl_vec3_zero();
  for (int32_t a = a0; a < a1; ++a) {
    const double *pk = gp + SM_GPACK * (size_t)pc[a];
    const double T[9] = {pk[0], pk[2], pk[4], pk[1], pk[3], pk[5], pk[16], pk[17], pk[18]};
    const double rc[3] = {pk[6], pk[7], pk[19]}, y[3] = {pk[8], pk[9], pk[20]};
    cl_vec3 q, el;
    double g2;
    cl_vec3 e = goal_e(T, rc, y, Xi, xi, vi, ka, kd, &q, &el, &g2);
    e = cl_vec3_sub(e, cl_vec3_make(pk[10], pk[11], pk[21]));
    e = cl_vec3_sub(e, cl_vec3_cross(cl_vec3_make(pk[22], pk[23], pk[13]), q));
    acc = cl_vec3_madd(acc, pwt[a], e);
  }
  return acc;
#endif
}

#if SM_V2D
/* One membership's term of gather_limit, d - ga - gw x r, from its goal offset g (g01, gz) and
 * r = xold - x_c (r01, rz), lane by lane as the scalar code (the pack sl_eval wrote at pk): the
 * clamp d moves the member to distance lim of its goal. */
static inline void limit_term(const double *pk, v2d g01, double gz, v2d r01, double rz, v2d *e01_out, double *ez_out) {
  const double g0 = g01[0], g1 = g01[1], r2 = g0 * g0 + g1 * g1 + gz * gz, lim = pk[27];
  v2d dd01 = {0.0, 0.0};
  double ddz = 0.0;
  if (r2 > lim * lim) {
    const double f = 1.0 - lim / sqrt(r2);
    dd01 = g01 * f;
    ddz = gz * f;
  }
  const double r0 = r01[0], r1 = r01[1];
  v2d e01 = dd01 - v2d_load(pk + 12);
  double ez = ddz - pk[24];
  const v2d rz0 = {rz, r0}, r1z = {r1, rz};
  *e01_out = e01 - (v2d_load(pk + 14) * rz0 - v2d_load(pk + 16) * r1z);
  *ez_out = ez - (pk[25] * r1 - pk[26] * r0);
}
#endif

/* Strain-limiting displacement of particle i: sum over its clamping clusters of
 * w~ (d_ic - ga_c - gw_c x (xold_i - x_c)). */
static inline cl_vec3 gather_limit(const cl_sm *s, const cl_body_state *st, int32_t i, double gamma) {
  const double *Xi = st->X + 3 * (size_t)i, *xi = st->x + 3 * (size_t)i;
#if SM_V2D
  /* limit_of, then minus ga and gw x (xold - x_c), lane by lane as the scalar code below (the pack
   * sl_eval wrote) */
  (void)gamma;
  const int32_t a0 = s->pofs[i], a1 = s->pofs[i + 1];
  const int32_t *pc = s->pc;
  const uint8_t *act = s->active;
  const double *pwt = s->pwt, *gp = s->gpack, *yo = s->xold + 3 * (size_t)i;
  const v2d X01 = v2d_load(Xi), x01 = v2d_load(xi), yo01 = v2d_load(yo), z = {0.0, 0.0};
  const double X2 = Xi[2], x2 = xi[2], yo2 = yo[2];
  v2d acc01 = z;
  double acc2 = 0.0;
  for (int32_t a = a0; a < a1; ++a) {
    const int32_t c = pc[a];
    if (!act[c]) continue;
    const double *pk = gp + SM_GPACK * (size_t)c;
    const v2d p01 = X01 - v2d_load(pk + 6);
    const double p0 = p01[0], p1 = p01[1], p2 = X2 - pk[21];
    const v2d g01 = v2d_load(pk) * p0 + v2d_load(pk + 2) * p1 + v2d_load(pk + 4) * p2 + v2d_load(pk + 8) - x01;
    const double gz = pk[18] * p0 + pk[19] * p1 + pk[20] * p2 + pk[22] - x2;
    v2d e01;
    double ez;
    limit_term(pk, g01, gz, yo01 - v2d_load(pk + 10), yo2 - pk[23], &e01, &ez);
    const double w = pwt[a];
    acc01 = acc01 + w * e01;
    acc2 = acc2 + w * ez;
  }
  return cl_vec3_make(acc01[0], acc01[1], acc2);
#else
  const cl_vec3 y = cl_vec3_load(s->xold, i);
  cl_vec3 acc = cl_vec3_zero();
  for (int32_t a = s->pofs[i]; a < s->pofs[i + 1]; ++a) {
    const int32_t c = s->pc[a];
    if (!s->active[c]) continue;
    int cl;
    double r2;
    cl_vec3 dd = limit_of(s->Rt + 9 * (size_t)c, s->scom + 3 * (size_t)c, s->rcom + 3 * (size_t)c, Xi, xi,
                          gamma * s->width[c], &cl, &r2);
    cl_vec3 r = cl_vec3_sub(y, cl_vec3_load(s->com, c));
    cl_vec3 e = cl_vec3_sub(dd, cl_vec3_load(s->ga, c));
    e = cl_vec3_sub(e, cl_vec3_cross(cl_vec3_load(s->gw, c), r));
    acc = cl_vec3_madd(acc, s->pwt[a], e);
  }
  return acc;
#endif
}

/* Room in gsc for the members of the largest live cluster; 0 when it cannot be had (the gather
 * then runs). */
static int goal_scratch(cl_sm *s) {
  int64_t most = 0;
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->alive[c] && s->mcnt[c] > most) most = s->mcnt[c];
  if (most <= s->gsc_cap) return 1;
  const int64_t cap = most + most / 2 + 64;
  double *p = realloc(s->gsc, sizeof(double) * 6 * (size_t)cap);
  if (!p) return 0;
  s->gsc = p;
  s->gsc_cap = cap;
  return 1;
}

#if SM_V2D
/* Strain limiting's scatter: lists the members of the clamping cluster c not listed yet (cur,
 * mark) and adds each member's term of gather_limit, w~ (d - ga - gw x (xold - x_c)), to its
 * particle's sum in gacc, by the very operations of gather_limit lane by lane, from the same pack
 * (the rest offset from mr, bitwise X - r_c). The clamping clusters are visited in slot order, the
 * order of every particle's reverse-index entries, so gacc is bitwise the gather's sum
 * (test_goal_scatter_is_the_gather); the pass over the clamping clusters' members was made anyway
 * to list their particles. */
static void limit_scatter(cl_sm *s, const cl_body_state *st, int32_t c, int32_t *cur, int32_t *ncur) {
  const int64_t k0 = s->moff[c], k1 = k0 + s->mcnt[c];
  const int32_t *mp = s->mp;
  const double *mwt = s->mwt, *mr = s->mr, *x = st->x, *xo = s->xold, *pk = s->gpack + SM_GPACK * (size_t)c;
  uint8_t *mark = s->mark;
  double *acc = s->gacc;
  const v2d T03 = v2d_load(pk), T14 = v2d_load(pk + 2), T25 = v2d_load(pk + 4), y01 = v2d_load(pk + 8);
  const v2d xc01 = v2d_load(pk + 10);
  const double T6 = pk[18], T7 = pk[19], T8 = pk[20], y2 = pk[22], xc2 = pk[23];
  int32_t n = *ncur;
  for (int64_t k = k0; k < k1; ++k) {
    const int32_t i = mp[k];
    if (!mark[i]) {
      mark[i] = 1;
      cur[n++] = i;
    }
    const size_t i3 = 3 * (size_t)i;
    const v2d p01 = v2d_load(mr + 3 * k), x01 = v2d_load(x + i3);
    const double p0 = p01[0], p1 = p01[1], p2 = mr[3 * k + 2];
    const v2d g01 = T03 * p0 + T14 * p1 + T25 * p2 + y01 - x01;
    const double gz = T6 * p0 + T7 * p1 + T8 * p2 + y2 - x[i3 + 2];
    v2d e01;
    double ez;
    limit_term(pk, g01, gz, v2d_load(xo + i3) - xc01, xo[i3 + 2] - xc2, &e01, &ez);
    const double w = mwt[k];
    const v2d a01 = v2d_load(acc + i3) + w * e01;
    memcpy(acc + i3, &a01, sizeof a01);
    acc[i3 + 2] = acc[i3 + 2] + w * ez;
  }
  *ncur = n;
}
#endif

/* Per cluster, how many of its members are held (in stamp, which is zero outside the fracture op),
 * for the goal pass's clampc; with on = 0, back to zero. Through the held particles' memberships
 * (the reverse index) rather than a look-up of every member in the goal pass. */
static void held_counts(cl_sm *s, const cl_constraint_set *cs, int on) {
  for (int32_t j = 0; j < cs->count; ++j) {
    const int32_t i = cs->nodes[j];
    for (int32_t a = s->pofs[i]; a < s->pofs[i + 1]; ++a) s->stamp[s->pc[a]] = on ? s->stamp[s->pc[a]] + 1 : 0;
  }
}

/* This thread's share [i0, i1) of n items, as schedule(static) gives it (whole without OpenMP). */
static void thread_range(int32_t n, int32_t *i0, int32_t *i1) {
#ifdef _OPENMP
  const int32_t t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
  const int32_t t = 0, nt = 1;
#endif
  const int32_t chunk = n / nt + (n % nt != 0);
  const int64_t a = (int64_t)t * chunk, b = a + chunk;
  *i0 = (int32_t)(a < n ? a : n);
  *i1 = (int32_t)(b < n ? b : n);
}

/* How step 4's velocities v = (x - x_start) / dt are found. With no collider, or colliders inside a
 * box (spheres, boxes: cl_collider_view_box), step 2 already stores each free particle's v from
 * the position it moved to (the velocity of step 2 itself is read by nothing before step 4), and
 * step 4 redoes only the particles flagged in vdirty: moved by strain limiting, or inside the box.
 * Same expressions, so the same bits as a pass over every particle after strain limiting (which
 * `early` = 0 takes: planes have no box, and bit 16 of no_shortcuts), without streaming x, x_start
 * and v of every particle once more (a tenth of a shattered plate's memory traffic per step). */
typedef struct end_vel {
  const cl_collider_view *view;
  int colliders, boxed, early;
  double ih, lo[3], hi[3];
} end_vel;

static inline int outside_box(const end_vel *ev, const double *x) {
  return x[0] < ev->lo[0] || x[0] > ev->hi[0] || x[1] < ev->lo[1] || x[1] > ev->hi[1] || x[2] < ev->lo[2] ||
         x[2] > ev->hi[2];
}

/* Step 2 for particles [i0, i1): velocities toward the goals (eq 8), then positions; held
 * particles go to their targets (each particle writes only its own data). */
static void goal_velocities(cl_sm *s, cl_body_state *st, const cl_step_input *in, double ka, double kd,
                            const end_vel *ev, int scattered, int32_t i0, int32_t i1) {
  const double h = in->dt, *g = in->gravity, *fx = in->f_ext;
  const double hg0 = h * g[0], hg1 = h * g[1], hg2 = h * g[2]; /* once, not reloaded per particle */
  const cl_constraint_set *cs = &in->constraints;
  double *xold = s->xold;
  for (int32_t i = i0; i < i1; ++i) {
    double *x = st->x + 3 * i, *v = st->v + 3 * i, *xo = xold + 3 * i;
    const double x0 = x[0], x1 = x[1], x2 = x[2];
    xo[0] = x0, xo[1] = x1, xo[2] = x2;
    cl_vec3 dv = (s->flags[i] & SM_DEBRIS) ? cl_vec3_zero()
                 : scattered             ? cl_vec3_load(s->gacc, i) /* the goal pass summed it */
                                         : gather_goals(s, st, i, ka, kd);
    if (scattered) memset(s->gacc + 3 * (size_t)i, 0, 3 * sizeof(double)); /* zero for the next step */
    int32_t slot = s->held[i];
    if (slot) { /* what the reaction of a held particle needs (only theirs: see the end of the step) */
      for (int k = 0; k < 3; ++k) {
        s->vold[3 * i + k] = v[k];
        s->dsum[3 * i + k] = 0.0;
      }
      cl_vec3_store(s->dvsh, i, dv);
      memcpy(x, cs->target_x + 3 * (slot - 1), 3 * sizeof(double));
      const double e0 = x[0] - x0, e1 = x[1] - x1, e2 = x[2] - x2;
      s->pdisp[i] = e0 * e0 + e1 * e1 + e2 * e2;
      continue;
    }
    double f0 = 0.0, f1 = 0.0, f2 = 0.0; /* dt f / m (the + 0.0 without forces is kept: bitwise) */
    if (fx) {
      const double im = 1.0 / st->m[i];
      f0 = h * fx[3 * i] * im, f1 = h * fx[3 * i + 1] * im, f2 = h * fx[3 * i + 2] * im;
    }
    const double v0 = v[0] + (hg0 + dv.x + f0), v1 = v[1] + (hg1 + dv.y + f1), v2 = v[2] + (hg2 + dv.z + f2);
    const double y0 = x0 + h * v0, y1 = x1 + h * v1, y2 = x2 + h * v2;
    x[0] = y0, x[1] = y1, x[2] = y2;
    const double e0 = y0 - x0, e1 = y1 - x1, e2 = y2 - x2;
    s->pdisp[i] = e0 * e0 + e1 * e1 + e2 * e2; /* strain limiting bounds the clusters with it */
    if (ev->early) { /* step 4's velocity now (see end_vel) */
      const double ih = ev->ih;
      v[0] = (y0 - x0) * ih, v[1] = (y1 - x1) * ih, v[2] = (y2 - x2) * ih;
      if (ev->boxed && !outside_box(ev, x)) s->vdirty[i] = 1;
    } else {
      v[0] = v0, v[1] = v1, v[2] = v2;
    }
  }
}

/* Step 4 for particle i (not held): v = (x - x_start) / dt, then the world's colliders (most
 * particles are far from every collider: the box skips the call for them). */
static inline void end_velocity(cl_sm *s, cl_body_state *st, const end_vel *ev, int32_t i) {
  double *x = st->x + 3 * (size_t)i, *v = st->v + 3 * (size_t)i;
  for (int k = 0; k < 3; ++k) v[k] = (x[k] - s->xold[3 * (size_t)i + k]) * ev->ih;
  if (ev->boxed && outside_box(ev, x)) return;
  if (ev->colliders) cl_collider_project_mass(ev->view, x, v, st->m[i]);
}

/* Step 4 for particles [i0, i1): every particle, or (early) the ones flagged in vdirty; clears the
 * flags. */
static void end_velocities(cl_sm *s, cl_body_state *st, const end_vel *ev, int32_t i0, int32_t i1) {
  uint8_t *dirty = s->vdirty;
  if (!ev->early) {
    for (int32_t i = i0; i < i1; ++i) {
      dirty[i] = 0;
      if (!s->held[i]) end_velocity(s, st, ev, i);
    }
    return;
  }
  int64_t redone = 0;
  int32_t i = i0;
  while (i < i1) {
    uint64_t w8 = 0; /* eight flags at once: most are clear */
    if (i + 8 <= i1) memcpy(&w8, dirty + i, 8);
    if (i + 8 <= i1 && w8 == 0) {
      i += 8;
      continue;
    }
    if (dirty[i]) {
      dirty[i] = 0;
      if (!s->held[i]) {
        end_velocity(s, st, ev, i);
        ++redone;
      }
    }
    ++i;
  }
#pragma omp atomic
  s->vredone += redone;
}

/* Strain limiting's move of the particles cur[a0 .. a1) (each reads only its own position and
 * per-cluster data: updating in place is safe). */
static void limit_moves(cl_sm *s, cl_body_state *st, const int32_t *cur, int32_t a0, int32_t a1, double gamma,
                        double om, int scattered) {
  for (int32_t a = a0; a < a1; ++a) {
    const int32_t i = cur[a];
    cl_vec3 sum;
    if (scattered) { /* limit_scatter summed it (and gacc is zero again for the next use) */
      sum = cl_vec3_load(s->gacc, i);
      memset(s->gacc + 3 * (size_t)i, 0, 3 * sizeof(double));
    } else {
      sum = gather_limit(s, st, i, gamma);
    }
    cl_vec3 d = cl_vec3_scale(sum, om);
    if (s->held[i]) { /* held particles stay on their targets: they do not move */
      for (int k = 0; k < 3; ++k) s->dsum[3 * i + k] += cl_vec3_get(d, k);
      s->moved[i] = 0;
    } else {
      /* the displacement actually made (x + d - x may round differently from d) */
      double *xi = st->x + 3 * i;
      for (int k = 0; k < 3; ++k) {
        const double x0 = xi[k];
        xi[k] = x0 + cl_vec3_get(d, k);
        s->acc[3 * i + k] = xi[k] - x0;
      }
      const double *a3 = s->acc + 3 * i;
      s->moved[i] = a3[0] != 0.0 || a3[1] != 0.0 || a3[2] != 0.0;
      if (s->moved[i]) {
        s->vdirty[i] = 1; /* step 4 redoes its velocity */
        const double e0 = xi[0] - s->xold[3 * i], e1 = xi[1] - s->xold[3 * i + 1], e2 = xi[2] - s->xold[3 * i + 2];
        s->pdisp[i] = e0 * e0 + e1 * e1 + e2 * e2;
      }
    }
  }
}

/* Mark (sl_touch = a new sl_mark) the clusters of the particles of cur[0 .. ncur) that moved in
 * this strain-limiting iteration. Returns 0 instead when that could cost more than the members'
 * own flags: when the listed particles hold more than a sixteenth of the memberships, the next
 * iteration reads the flags (sl_update, max_pdisp) as without marks (that pass runs on the
 * body's threads, the marking does not: the hollow ball and the armadillo move many particles). */
static int mark_touched(cl_sm *s, const int32_t *cur, int32_t ncur) {
  int64_t mem = 0; /* the listed particles' memberships */
  for (int32_t a = 0; a < ncur; ++a) mem += s->pofs[cur[a] + 1] - s->pofs[cur[a]];
  if (mem > s->memberships / 16 || (s->no_shortcuts & 8)) return 0;
  s->sl_marked++;
  if (++s->sl_mark == 0) { /* wrapped: no old mark may look current */
    memset(s->sl_touch, 0, sizeof(uint32_t) * (size_t)s->ncl);
    s->sl_mark = 1;
  }
  for (int32_t a = 0; a < ncur; ++a) {
    const int32_t i = cur[a];
    if (s->moved[i])
      for (int32_t b = s->pofs[i]; b < s->pofs[i + 1]; ++b) s->sl_touch[s->pc[b]] = s->sl_mark;
  }
  return 1;
}

/* Supported particles (contract/step.h, cl_support_set): free in the dynamics of the step, then their
 * held components are put on the targets, positions and velocities alike, a projection as the
 * colliders' (the position-based way of the method); the reaction is the impulse of that projection
 * over the step, m (v_after - v_before) / dt, which lies along the held directions and, at rest on a
 * roller under gravity, balances m g. The cluster goals see the projected position from the next
 * step on. */
static void apply_supports(cl_body_state *st, const cl_support_set *ss, double ih) {
  for (int32_t j = 0; j < ss->count; ++j) {
    const int32_t i = ss->nodes[j];
    double *x = st->x + 3 * (size_t)i, *v = st->v + 3 * (size_t)i;
    const double v0[3] = {v[0], v[1], v[2]};
    const double *axes = ss->axes + 9 * (size_t)j;
    cl_support_project(axes, ss->held[j], ss->target_x + 3 * (size_t)j, x);
    cl_support_project(axes, ss->held[j], ss->target_v + 3 * (size_t)j, v);
    for (int k = 0; k < 3; ++k) ss->reaction[3 * j + k] = st->m[i] * (v[k] - v0[k]) * ih;
  }
}

cl_status cl_sm_step(cl_sm *s, cl_body_state *st, const cl_step_input *in, cl_step_report *rep) {
  const double t_start = cl_time_ms();
  const double h = in->dt;
  const int32_t n = st->n, ncl = s->ncl;
  const double *g = in->gravity;
  const double *fx = in->f_ext;
  const cl_constraint_set *cs = &in->constraints;
  int nt = in->threads > 0 ? in->threads : 1;
  /* threads only where there is enough work to pay for the ~13 fork/joins of a step (on a shared
   * machine each waits for a descheduled thread): below ~12k memberships two threads were slower
   * than one on the 2-vCPU VM (the weak brittle plate, 10-11k memberships: 2.2-3.0 ms against
   * 2.0-2.9 ms per frame; the twisted bar, 13.8k with 8 strain-limiting iterations, gains; with
   * the threshold at 8k, GOMP_SPINCOUNT 1k-100k instead of passive waiting did not help either) */
  const int par_c = cl_sm_parallel(s), par_p = par_c && n >= 4096, chunk = cl_sm_chunk(s);
  (void)nt;
  (void)par_c;
  (void)par_p;
  (void)chunk;
  if (n > s->pcap) return cl_fail(CL_ERR_STATE, "solver 'shape_matching': state has %d nodes, solver knows %d", n, s->n);
  for (int32_t j = 0; j < cs->count; ++j) s->held[cs->nodes[j]] = j + 1;
  held_counts(s, cs, 1);

  const double ka = s->p.alpha / h;
  const double kd = 1.0 - exp(-s->p.damping * h);
  const int spin = s->p.damp_spin, tf = s->p.torque_free;
  int bad = 0;
  double t_plastic = 0.0, t_collide = 0.0;

  /* the member sums of the last measure are reused when nothing moved since: the world measures
   * after the last substep's contacts, and between a measure and the next step only the solver's
   * own fracture op writes positions (a split particle takes its origin's; the clusters it changes
   * drop their sums): the API has no position setter. So a flag suffices; builds with assertions
   * keep the measure's positions and check them (compared to 3n doubles copied and compared per
   * step, 5 % of a shattered plate's frame) */
  s->msum_ok = s->msum_ok && s->xmeas_n == n;
#ifndef NDEBUG
  assert(!s->msum_ok || memcmp(s->xmeas, st->x, sizeof(double) * 3 * (size_t)n) == 0);
#endif
  s->psum_ok = 0; /* the proxies' sums are of the last step's positions */

  /* 1. goals (eqs 3-8). On one thread the goal pass also sums each particle's velocity change
   * (goal_scatter) while the cluster's members are at hand; on threads each particle gathers it in
   * step 2 (the clusters of a particle would race). */
  int64_t nreuse = 0;
  const int scatter = SM_V2D && tf && spin && (nt == 1 || !par_c) && !(s->no_shortcuts & 32) && goal_scratch(s);
  if (scatter) {
    for (int32_t c = 0; c < ncl; ++c) {
      if (!s->alive[c]) continue;
      int b = goal_pass(s, st, c, ka, kd, spin, tf, s->gsc, &nreuse);
      if (b < bad) bad = b;
    }
    s->scattered++;
  } else {
#pragma omp parallel for num_threads(nt) schedule(dynamic, chunk) reduction(min : bad) reduction(+ : nreuse) if (par_c)
    for (int32_t c = 0; c < ncl; ++c) {
      if (!s->alive[c]) continue;
      int b = goal_pass(s, st, c, ka, kd, spin, tf, NULL, &nreuse);
      if (b < bad) bad = b;
    }
  }
  s->reused += nreuse;
  s->msum_ok = 0;
  held_counts(s, cs, 0);
  if (bad < 0 && scatter) memset(s->gacc, 0, sizeof(double) * 3 * (size_t)n); /* step 2 will not run */
  if (bad < 0) {
    for (int32_t j = 0; j < cs->count; ++j) s->held[cs->nodes[j]] = 0;
    return cl_fail(CL_ERR_NUMERICAL, "solver 'shape_matching': a cluster's deformation gradient is not finite "
                                     "(non-finite positions?)");
  }

  /* 2. velocities toward the goals, then positions; held particles go to their targets */
  end_vel ev = {in->colliders, in->colliders && in->colliders->count > 0, 0, 0, 1.0 / h, {0, 0, 0}, {0, 0, 0}};
  ev.boxed = ev.colliders && cl_collider_view_box(in->colliders, ev.lo, ev.hi);
  ev.early = (!ev.colliders || ev.boxed) && !(s->no_shortcuts & 16);
#pragma omp parallel num_threads(nt) if (par_p)
  {
    int32_t i0, i1;
    thread_range(n, &i0, &i1);
    goal_velocities(s, st, in, ka, kd, &ev, scatter, i0, i1);
  }

  /* 3. strain limiting */
  int32_t iters_run = 0;
  if (s->p.iterations > 0 && s->nlive > 0) {
    const double gamma = s->p.gamma, om = s->p.omega;
    int32_t *cur = s->sl_list, *prev = s->sl_list + s->pcap, ncur = 0, nprev = 0;
    memset(s->moved, 0, (size_t)n);
    const int plain = (s->no_shortcuts & 2) != 0;
    /* the corrections summed while the clamping clusters' particles are listed (limit_scatter, a
     * serial pass), or gathered per particle in limit_moves (which runs on the threads) */
    const int sl_scatter = SM_V2D && (nt == 1 || !par_p) && !(s->no_shortcuts & 32);
    int64_t nsweep = 0, nskip = 0, nbox = 0;
    int marked = 0; /* sl_touch holds the clusters touched by the last iteration (mark_touched) */
    for (int32_t it = 0; it < s->p.iterations; ++it) {
      int any = 0;
      /* after the first iteration only clusters that clamped, or whose members moved, can clamp:
       * the others see the same positions as before (the result is the same as a full sweep) */
#pragma omp parallel for num_threads(nt) schedule(dynamic, chunk) reduction(| : any) reduction(+ : nsweep, nskip, nbox) \
    if (par_c)
      for (int32_t c = 0; c < ncl; ++c) {
        if (!s->alive[c]) {
          s->active[c] = 0;
          continue;
        }
        const double lim = gamma * s->width[c];
        if (plain) { /* tests: the plain algorithm (fresh sums, every member swept) */
          if (it > 0 && !s->active[c]) {
            int mv = 0;
            for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c] && !mv; ++k) mv = s->moved[s->mp[k]];
            if (!mv) continue;
          }
          sl_sums(s, st, c);
          any |= sl_eval(s, st, c, gamma, tf, 1);
          ++nsweep;
          continue;
        }
        if (it == 0) {
          double D = sqrt(max_pdisp(s, c, NULL));
          s->sl_d[c] = D;
          s->sl_ok[c] = 0;
          /* small clusters: also the finer bound (a box pass over a few members against the sums
           * and an evaluation; fragments of a shattered body fly off without deforming) */
          int skip = sl_cheap_skip(s, c, D, lim);
          if (!skip && s->mcnt[c] <= SM_BOX_SKIP_MAX) {
            skip = sl_cheap_skip2(s, c, D, disp_half_diagonal(s, st, c), lim);
            nbox += skip;
          }
          if (skip) {
            s->active[c] = 0;
            ++nskip;
            continue;
          }
          sl_sums(s, st, c);
        } else if (marked && s->sl_touch[c] != s->sl_mark) { /* no member moved in the last iteration
                                                             * (mark_touched): what the two branches
                                                             * after this find by a member pass */
          if (s->sl_ok[c]) any |= s->active[c];
          continue;
        } else if (s->sl_ok[c]) {
          if (!sl_update(s, st, c)) {
            any |= s->active[c]; /* no member moved: the same clamps as in the last iteration */
            continue;
          }
        } else { /* not swept in this step yet (active is 0): bound it again, from how far each member
                  * moved since the step start */
          int mv = 0;
          double D = max_pdisp(s, c, &mv);
          if (!mv) continue;
          D = sqrt(D);
          s->sl_d[c] = D;
          if (sl_cheap_skip(s, c, D, lim)) {
            ++nskip;
            continue;
          }
          sl_sums(s, st, c);
        }
        const int r = sl_eval(s, st, c, gamma, tf, 0);
        any |= r == 1;
        nsweep += r != 2;
        nskip += r == 2;
      }
      if (!any) break;
      ++iters_run;
      /* the particles of the clamping clusters (only they can move) */
      ncur = 0;
      for (int32_t c = 0; c < ncl; ++c) {
        if (!s->active[c]) continue;
#if SM_V2D
        if (sl_scatter) {
          limit_scatter(s, st, c, cur, &ncur);
          s->sl_scattered++;
          continue;
        }
#endif
        for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) {
          int32_t i = s->mp[k];
          if (!s->mark[i]) {
            s->mark[i] = 1;
            cur[ncur++] = i;
          }
        }
      }
      for (int32_t a = 0; a < ncur; ++a) s->mark[cur[a]] = 0;
      for (int32_t a = 0; a < nprev; ++a) s->moved[prev[a]] = 0;
#pragma omp parallel num_threads(nt) if (par_p)
      {
        int32_t a0, a1;
        thread_range(ncur, &a0, &a1);
        limit_moves(s, st, cur, a0, a1, gamma, om, sl_scatter);
      }
      /* the clusters of the particles that moved: only they can see new positions in the next
       * iteration (often a few dozen particles move, against a pass over every cluster's members) */
      marked = mark_touched(s, cur, ncur);
      int32_t *t = prev;
      prev = cur;
      cur = t;
      nprev = ncur;
    }
    s->sl_sweeps += nsweep;
    s->sl_skips += nskip;
    s->sl_box_skips += nbox;
  }
  s->stats.strain_limit_iterations = iters_run;

  /* 4. velocities from positions; colliders */
  double t_c0 = cl_time_ms();
  const double ih = ev.ih;
#pragma omp parallel num_threads(nt) if (par_p)
  {
    int32_t i0, i1;
    thread_range(n, &i0, &i1);
    end_velocities(s, st, &ev, i0, i1);
  }
  if (s->p.self_collisions && (s->npieces > 1 || s->p.proxy_whole)) cl_sm_self_collide(s, st, h);
  t_collide = cl_time_ms() - t_c0;

  /* held particles: exact targets and reactions (impulse balance of the node over the step) */
  for (int32_t j = 0; j < cs->count; ++j) {
    int32_t i = cs->nodes[j];
    double m = st->m[i];
    for (int k = 0; k < 3; ++k) {
      double vt = cs->target_v[3 * j + k];
      double fe = fx ? fx[3 * i + k] : 0.0;
      cs->reaction[3 * j + k] = m * (vt - s->vold[3 * i + k]) * ih - m * g[k] - fe - m * s->dvsh[3 * i + k] * ih -
                                m * s->dsum[3 * i + k] * ih * ih;
      st->x[3 * i + k] = cs->target_x[3 * j + k];
      st->v[3 * i + k] = vt;
    }
    s->held[i] = 0;
  }
  apply_supports(st, &in->supports, ih);

  /* plasticity (eqs 9-14) from the SVD of pass 1; takes effect from the next step as in the
   * authors' code */
  if (s->plastic) {
    double t_p0 = cl_time_ms();
    for (int32_t c = 0; c < ncl; ++c) /* a few flops per cluster: not worth a thread barrier */
      if (s->alive[c]) cl_sm_plastic_update(s, c, h);
    t_plastic = cl_time_ms() - t_p0;
  }
  s->time += h;
  double total = cl_time_ms() - t_start;
  s->stats.plasticity_ms = t_plastic;
  s->stats.collision_ms = t_collide;
  s->stats.dynamics_ms = total - t_plastic;
  s->stats.plasticity_ms_total += t_plastic;
  s->stats.collision_ms_total += t_collide;
  s->stats.dynamics_ms_total += total - t_plastic;
  rep->iterations = iters_run;
  rep->residual = 0.0;
  return CL_OK;
}
