/* Contact between rigid colliders (docs/RIGID_BODIES.md, "Contact between rigid bodies").
 *
 * Runs once per substep after the dynamic colliders were predicted to t1 (rigid.c) and pushed by the
 * nodes (cl_rigid_apply_impulses). For every pair (dynamic A, other B), B kinematic (at its pose at t1)
 * or dynamic:
 *   1. detect: contact points p, unit normals n (pushing A away from B) and depths d > 0, at the
 *      poses at t1 (sphere-plane, sphere-sphere and sphere-box exactly; box-plane by the 8 corners;
 *      box-box by the corners of each box inside the other, and when there are none (edges crossing)
 *      by the separating axis test with the crossing edges' midpoints as contact points);
 *   2. velocity: sequential impulses over the pair's contacts with accumulated, clamped impulses
 *      (Catto, "Iterative dynamics with temporal coherence", GDC 2005): the normal impulse drives the
 *      relative normal velocity at p to -e v_n (v_n its value at detection; 0 below a resting speed
 *      2 |g| h, so resting contact does not bounce on the velocity gravity adds in one substep), with
 *          dlambda = (target - v_n) / K,   K = sum_b [1/m_b + n.((I_b^-1 (r_b x n)) x r_b)],
 *      lambda >= 0; the friction impulse cancels the tangential velocity inside the Coulomb cone
 *      |f| <= mu lambda. Contacts up to a small margin outside the surface are resting contacts that
 *      may close their gap in one substep but not more (target d / h, d < 0: speculative contacts,
 *      Catto GDC 2013), so a box lying on its face does not rock between its edges. Every impulse is applied at the same point p to both bodies with opposite
 *      signs, so a free-free pair conserves linear momentum and angular momentum about any fixed
 *      point exactly (to rounding);
 *   3. position: the deepest contact is pushed out (then re-detect, a few rounds) by a position
 *      projection split by inverse mass (linear only for a free body, a rotation about the hinge for a
 *      hinged one, nothing for a kinematic one). For two free bodies the push goes along their
 *      relative velocity after the impulses when that separates them (within 60 degrees of n): then
 *      m_a dc_a = -m_b dc_b is parallel to v_a - v_b and sum m c x v does not change, so angular
 *      momentum is kept through the push too.
 * A few passes over all pairs propagate through chains (a ball on a box on the ground).
 * Coefficients: restitution max(e_a, e_b) (a bouncy ball bounces on a dead floor), friction
 * sqrt(mu_a mu_b) (a frictionless collider makes the contact frictionless).
 * A hinged body enters through its moment about the hinge line: an impulse J at p changes theta' by
 * a.((p - h) x J) / I_a, so its share of K along n is (a.((p - h) x n))^2 / I_a (rigid.c, hinge_frame). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mat3.h"
#include "world/rigid_contact.h"

enum { MAX_CONTACTS = 16, PASSES = 10, VELOCITY_ITERATIONS = 16, PUSH_ROUNDS = 4 };
enum { KINEMATIC = 0, FREE = 1, HINGED = 2 };

typedef struct contact {
  double p[3], n[3], depth;
} contact;

typedef struct rbody {
  cl_collider *c;
  cl_collider_shape s; /* pose at t1; for a dynamic body its current state */
  int type;
  double inv_m;        /* free */
  double Iinv[3];      /* free: principal inverse moments (body frame) */
  double a[3], hp[3];  /* hinged: unit axis, hinge point */
  double Ia;           /* hinged: moment of inertia about the hinge line */
  double bound;        /* bounding-sphere radius about the centre (plane: unused) */
} rbody;

static double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static void load(rbody *b, cl_collider *c, double t1) {
  memset(b, 0, sizeof *b);
  b->c = c;
  cl_collider_pose(c, t1, &b->s); /* dynamic: t_add == t1, so this is the state itself */
  const cl_collider_def *d = &c->def;
  b->bound = d->kind == CL_COLLIDER_SPHERE ? d->radius : sqrt(dot(d->half_extents, d->half_extents));
  if (!d->dynamic) return;
  double I[3];
  cl_rigid_body_inertia(d, I);
  if (d->hinged) {
    b->type = HINGED;
    double na = sqrt(dot(d->hinge_axis, d->hinge_axis)), r[3], Ir[3];
    for (int k = 0; k < 3; ++k) {
      b->a[k] = d->hinge_axis[k] / na;
      b->hp[k] = d->hinge_point[k];
      r[k] = b->s.center[k] - b->hp[k];
    }
    cl_rigid_apply_inertia(b->s.R, I, b->a, Ir);
    double ra = dot(r, b->a);
    b->Ia = dot(b->a, Ir) + d->mass * (dot(r, r) - ra * ra);
  } else {
    b->type = FREE;
    b->inv_m = 1.0 / d->mass;
    for (int k = 0; k < 3; ++k) b->Iinv[k] = 1.0 / I[k];
  }
}

/* Write a dynamic body's state back into its def (valid at t1 == t_add). */
static void store(const rbody *b) {
  if (b->type == KINEMATIC) return;
  cl_collider_def *d = &b->c->def;
  for (int k = 0; k < 3; ++k) {
    d->center[k] = b->s.center[k];
    d->velocity[k] = b->s.velocity[k];
    d->angular_velocity[k] = b->s.omega[k];
  }
  for (int k = 0; k < 9; ++k) d->rotation[k] = b->s.R[k];
}

/* Velocity of the body's material point at p. For a hinged body velocity = w x (c - h), so this is
 * w x (p - h), the motion about the hinge. */
static void velocity_at(const rbody *b, const double p[3], double v[3]) {
  double r[3] = {p[0] - b->s.center[0], p[1] - b->s.center[1], p[2] - b->s.center[2]}, wr[3];
  cross(b->s.omega, r, wr);
  for (int k = 0; k < 3; ++k) v[k] = b->s.velocity[k] + wr[k];
}

/* Velocity change of the point p along the unit d per unit impulse along d at p. */
static double response(const rbody *b, const double p[3], const double d[3]) {
  if (b->type == KINEMATIC) return 0.0;
  if (b->type == HINGED) {
    double rh[3] = {p[0] - b->hp[0], p[1] - b->hp[1], p[2] - b->hp[2]}, rd[3];
    cross(rh, d, rd);
    double k = dot(b->a, rd);
    return k * k / b->Ia;
  }
  double r[3] = {p[0] - b->s.center[0], p[1] - b->s.center[1], p[2] - b->s.center[2]}, rd[3], q[3], qr[3];
  cross(r, d, rd);
  cl_rigid_apply_inertia(b->s.R, b->Iinv, rd, q);
  cross(q, r, qr);
  return b->inv_m + dot(d, qr);
}

/* Apply the impulse J (N s) at p. */
static void apply_impulse(rbody *b, const double p[3], const double J[3]) {
  if (b->type == KINEMATIC) return;
  if (b->type == HINGED) {
    double rh[3] = {p[0] - b->hp[0], p[1] - b->hp[1], p[2] - b->hp[2]}, rJ[3], rc[3];
    cross(rh, J, rJ);
    double theta_dot = dot(b->s.omega, b->a) + dot(b->a, rJ) / b->Ia;
    for (int k = 0; k < 3; ++k) {
      b->s.omega[k] = theta_dot * b->a[k];
      rc[k] = b->s.center[k] - b->hp[k];
    }
    cross(b->s.omega, rc, b->s.velocity); /* the hinge takes the rest */
    return;
  }
  double r[3] = {p[0] - b->s.center[0], p[1] - b->s.center[1], p[2] - b->s.center[2]}, rJ[3], dw[3];
  cross(r, J, rJ);
  cl_rigid_apply_inertia(b->s.R, b->Iinv, rJ, dw);
  for (int k = 0; k < 3; ++k) {
    b->s.velocity[k] += b->inv_m * J[k];
    b->s.omega[k] += dw[k];
  }
}

/* ---- detection: contacts with n pushing A away from B ---------------------------------------- */

/* Sphere (c, r) against an oriented box: normal from the box towards the sphere. Exact: the closest
 * box point when the centre is outside, the face of least penetration when it is inside. */
static int sphere_box(const double c[3], double r, const cl_collider_shape *box, double margin, contact *k) {
  const double *R = box->R, *h = box->half;
  double d[3] = {c[0] - box->center[0], c[1] - box->center[1], c[2] - box->center[2]}, l[3], q[3];
  int inside = 1;
  for (int j = 0; j < 3; ++j) {
    l[j] = R[j] * d[0] + R[3 + j] * d[1] + R[6 + j] * d[2];
    q[j] = l[j] > h[j] ? h[j] : (l[j] < -h[j] ? -h[j] : l[j]);
    if (q[j] != l[j]) inside = 0;
  }
  if (!inside) {
    double diff[3] = {l[0] - q[0], l[1] - q[1], l[2] - q[2]};
    double dist = sqrt(dot(diff, diff));
    if (!(dist < r + margin)) return 0;
    for (int i = 0; i < 3; ++i) {
      k->n[i] = (R[3 * i] * diff[0] + R[3 * i + 1] * diff[1] + R[3 * i + 2] * diff[2]) / dist;
      k->p[i] = box->center[i] + R[3 * i] * q[0] + R[3 * i + 1] * q[1] + R[3 * i + 2] * q[2];
    }
    k->depth = r - dist;
    return 1;
  }
  int f = 0;
  for (int j = 1; j < 3; ++j)
    if (h[j] - fabs(l[j]) < h[f] - fabs(l[f])) f = j;
  double gap = h[f] - fabs(l[f]), sgn = l[f] >= 0.0 ? 1.0 : -1.0;
  for (int i = 0; i < 3; ++i) {
    k->n[i] = sgn * R[3 * i + f];
    k->p[i] = c[i] + gap * k->n[i];
  }
  k->depth = r + gap;
  return 1;
}

/* A point strictly inside a box: the normal of the nearest face, out of the box. */
static int point_in_box(const double x[3], const cl_collider_shape *box, double margin, contact *k) {
  const double *R = box->R, *h = box->half;
  double d[3] = {x[0] - box->center[0], x[1] - box->center[1], x[2] - box->center[2]}, l[3];
  for (int j = 0; j < 3; ++j) {
    l[j] = R[j] * d[0] + R[3 + j] * d[1] + R[6 + j] * d[2];
    if (!(fabs(l[j]) < h[j] + margin)) return 0;
  }
  int f = 0;
  for (int j = 1; j < 3; ++j)
    if (h[j] - fabs(l[j]) < h[f] - fabs(l[f])) f = j;
  double sgn = l[f] >= 0.0 ? 1.0 : -1.0;
  for (int i = 0; i < 3; ++i) {
    k->n[i] = sgn * R[3 * i + f];
    k->p[i] = x[i];
  }
  k->depth = h[f] - fabs(l[f]);
  return 1;
}

static void corner(const cl_collider_shape *box, int m, double q[3]) {
  double l[3] = {(m & 1) ? box->half[0] : -box->half[0], (m & 2) ? box->half[1] : -box->half[1],
                 (m & 4) ? box->half[2] : -box->half[2]};
  for (int i = 0; i < 3; ++i) q[i] = box->center[i] + box->R[3 * i] * l[0] + box->R[3 * i + 1] * l[1] + box->R[3 * i + 2] * l[2];
}

static void flip(contact *k) {
  for (int i = 0; i < 3; ++i) k->n[i] = -k->n[i];
}

/* Clip the segment x0 + t (x1 - x0), t in [0, 1], to the box grown by margin (Liang-Barsky slabs in
 * the box frame); on a non-empty part, its midpoint. */
static int clip_segment(const double x0[3], const double x1[3], const cl_collider_shape *box, double margin,
                        double mid[3]) {
  const double *R = box->R;
  double t0 = 0.0, t1 = 1.0;
  for (int j = 0; j < 3; ++j) {
    double l0 = 0.0, d = 0.0, hj = box->half[j] + margin;
    for (int i = 0; i < 3; ++i) {
      l0 += R[3 * i + j] * (x0[i] - box->center[i]);
      d += R[3 * i + j] * (x1[i] - x0[i]);
    }
    if (fabs(d) < 1e-300) {
      if (!(fabs(l0) < hj)) return 0;
      continue;
    }
    double ta = (-hj - l0) / d, tb = (hj - l0) / d;
    if (ta > tb) {
      double tmp = ta;
      ta = tb;
      tb = tmp;
    }
    if (ta > t0) t0 = ta;
    if (tb < t1) t1 = tb;
    if (!(t0 < t1)) return 0;
  }
  double tm = 0.5 * (t0 + t1);
  for (int i = 0; i < 3; ++i) mid[i] = x0[i] + tm * (x1[i] - x0[i]);
  return 1;
}

/* Box-box overlap with no corner of either box inside the other (edges crossing like an X, or an
 * edge across a face): the separating axis test over the 15 axes (3 + 3 face normals, 9 edge-edge
 * cross products; Gottschalk, Lin & Manocha, OBBTree, SIGGRAPH 1996) gives the normal and depth of
 * least overlap; the contact points are the midpoints of the parts of each box's 12 edges inside the
 * other box. */
static int box_box_edges(const cl_collider_shape *a, const cl_collider_shape *b, double margin, contact *out) {
  double axes[15][3];
  int na = 0;
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < 3; ++i) {
      axes[na][i] = a->R[3 * i + k];
      axes[na + 1][i] = b->R[3 * i + k];
    }
    na += 2;
  }
  for (int k = 0; k < 3; ++k)
    for (int m = 0; m < 3; ++m) {
      double ea[3] = {a->R[k], a->R[3 + k], a->R[6 + k]}, eb[3] = {b->R[m], b->R[3 + m], b->R[6 + m]}, c[3];
      cross(ea, eb, c);
      double len = sqrt(dot(c, c));
      if (len < 1e-6) continue; /* parallel edges: covered by the face axes */
      for (int i = 0; i < 3; ++i) axes[na][i] = c[i] / len;
      ++na;
    }
  double d[3] = {a->center[0] - b->center[0], a->center[1] - b->center[1], a->center[2] - b->center[2]};
  double best = INFINITY, n[3] = {0.0, 1.0, 0.0};
  for (int q = 0; q < na; ++q) {
    const double *L = axes[q];
    double ra = 0.0, rb = 0.0;
    for (int k = 0; k < 3; ++k) {
      ra += a->half[k] * fabs(L[0] * a->R[k] + L[1] * a->R[3 + k] + L[2] * a->R[6 + k]);
      rb += b->half[k] * fabs(L[0] * b->R[k] + L[1] * b->R[3 + k] + L[2] * b->R[6 + k]);
    }
    double dl = dot(L, d), overlap = ra + rb - fabs(dl);
    if (!(overlap > -margin)) return 0; /* a separating axis */
    if (overlap < best) {
      best = overlap;
      for (int i = 0; i < 3; ++i) n[i] = dl >= 0.0 ? L[i] : -L[i]; /* from B towards A */
    }
  }
  int count = 0;
  for (int side = 0; side < 2; ++side) {
    const cl_collider_shape *s = side ? b : a, *o = side ? a : b;
    for (int k = 0; k < 3 && count < MAX_CONTACTS; ++k)
      for (int e = 0; e < 4 && count < MAX_CONTACTS; ++e) {
        double l0[3], l1[3], x0[3], x1[3];
        l0[k] = -s->half[k];
        l1[k] = s->half[k];
        l0[(k + 1) % 3] = l1[(k + 1) % 3] = (e & 1) ? s->half[(k + 1) % 3] : -s->half[(k + 1) % 3];
        l0[(k + 2) % 3] = l1[(k + 2) % 3] = (e & 2) ? s->half[(k + 2) % 3] : -s->half[(k + 2) % 3];
        for (int i = 0; i < 3; ++i) {
          x0[i] = s->center[i] + s->R[3 * i] * l0[0] + s->R[3 * i + 1] * l0[1] + s->R[3 * i + 2] * l0[2];
          x1[i] = s->center[i] + s->R[3 * i] * l1[0] + s->R[3 * i + 1] * l1[1] + s->R[3 * i + 2] * l1[2];
        }
        if (!clip_segment(x0, x1, o, margin, out[count].p)) continue;
        for (int i = 0; i < 3; ++i) out[count].n[i] = n[i];
        out[count].depth = best;
        ++count;
      }
  }
  return count;
}

static int detect(const rbody *A, const rbody *B, double margin, contact *out) {
  const cl_collider_shape *a = &A->s, *b = &B->s;
  double d[3] = {a->center[0] - b->center[0], a->center[1] - b->center[1], a->center[2] - b->center[2]};
  double reach = A->bound + B->bound + margin;
  if (b->kind != CL_COLLIDER_PLANE && dot(d, d) > reach * reach) return 0;
  int n = 0;
  if (a->kind == CL_COLLIDER_SPHERE) {
    if (b->kind == CL_COLLIDER_PLANE) {
      double phi = dot(d, b->normal) - a->radius;
      if (!(phi < margin)) return 0;
      for (int i = 0; i < 3; ++i) {
        out->n[i] = b->normal[i];
        out->p[i] = a->center[i] - a->radius * b->normal[i];
      }
      out->depth = -phi;
      return 1;
    }
    if (b->kind == CL_COLLIDER_SPHERE) {
      double dist = sqrt(dot(d, d)), rs = a->radius + b->radius;
      if (!(dist < rs + margin)) return 0;
      /* coincident centres: no direction to choose from; push along +y (documented) */
      double u[3] = {0.0, 1.0, 0.0};
      if (dist > 1e-12 * rs)
        for (int i = 0; i < 3; ++i) u[i] = d[i] / dist;
      out->depth = rs - dist;
      for (int i = 0; i < 3; ++i) {
        out->n[i] = u[i];
        out->p[i] = b->center[i] + (b->radius - 0.5 * out->depth) * u[i]; /* middle of the overlap */
      }
      return 1;
    }
    return sphere_box(a->center, a->radius, b, margin, out);
  }
  /* A is a box */
  if (b->kind == CL_COLLIDER_PLANE) {
    for (int m = 0; m < 8; ++m) {
      double q[3], e[3];
      corner(a, m, q);
      for (int i = 0; i < 3; ++i) e[i] = q[i] - b->center[i];
      double phi = dot(e, b->normal);
      if (!(phi < margin)) continue;
      for (int i = 0; i < 3; ++i) {
        out[n].n[i] = b->normal[i];
        out[n].p[i] = q[i];
      }
      out[n].depth = -phi;
      ++n;
    }
    return n;
  }
  if (b->kind == CL_COLLIDER_SPHERE) {
    if (!sphere_box(b->center, b->radius, a, margin, out)) return 0;
    flip(out);
    return 1;
  }
  for (int m = 0; m < 8; ++m) {
    double q[3];
    corner(a, m, q);
    if (point_in_box(q, b, margin, out + n)) ++n;
  }
  for (int m = 0; m < 8; ++m) {
    double q[3];
    corner(b, m, q);
    if (point_in_box(q, a, margin, out + n)) flip(out + n++);
  }
  if (n == 0) n = box_box_edges(a, b, margin, out);
  return n;
}

/* ---- position projection ---------------------------------------------------------------------- */


/* Lever of a hinged body's motion along n at p: dp.n = k dtheta. */
static double hinge_lever(const rbody *b, const double p[3], const double n[3]) {
  double rh[3] = {p[0] - b->hp[0], p[1] - b->hp[1], p[2] - b->hp[2]}, rn[3];
  cross(rh, n, rn);
  double k = dot(b->a, rn);
  /* a contact almost in line with the hinge cannot be pushed out by turning (|dtheta| would blow up) */
  return fabs(k) > 0.1 * sqrt(dot(rh, rh)) ? k : 0.0;
}

/* Positional inverse mass along n at p: how far p moves along n per unit "position impulse". */
static double position_weight(const rbody *b, const double p[3], const double n[3]) {
  if (b->type == FREE) return b->inv_m;
  if (b->type == HINGED) {
    double k = hinge_lever(b, p, n);
    return k * k / b->Ia;
  }
  return 0.0;
}

static void shift(rbody *b, double P, const double p[3], const double n[3]) {
  if (b->type == FREE) {
    for (int k = 0; k < 3; ++k) b->s.center[k] += P * b->inv_m * n[k];
  } else if (b->type == HINGED) {
    double th = P * hinge_lever(b, p, n) / b->Ia, Q[9], r[3], R[9];
    cl_rotation_axis_angle(b->a, th, Q);
    for (int k = 0; k < 3; ++k) r[k] = b->s.center[k] - b->hp[k];
    for (int i = 0; i < 3; ++i) {
      b->s.center[i] = b->hp[i] + Q[3 * i] * r[0] + Q[3 * i + 1] * r[1] + Q[3 * i + 2] * r[2];
      for (int j = 0; j < 3; ++j)
        R[3 * i + j] = Q[3 * i] * b->s.R[j] + Q[3 * i + 1] * b->s.R[3 + j] + Q[3 * i + 2] * b->s.R[6 + j];
    }
    memcpy(b->s.R, R, sizeof R);
    for (int k = 0; k < 3; ++k) r[k] = b->s.center[k] - b->hp[k];
    cross(b->s.omega, r, b->s.velocity);
  }
}

/* Remove the penetration of contact k. Returns 0 if neither body can move along n there. */
static int push_apart(rbody *A, rbody *B, const contact *k) {
  if (A->type == FREE && B->type == FREE) {
    double u[3], un = 1.0;
    for (int i = 0; i < 3; ++i) u[i] = A->s.velocity[i] - B->s.velocity[i];
    double nu = sqrt(dot(u, u));
    if (nu > 0.0 && dot(u, k->n) >= 0.5 * nu) { /* separating within 60 degrees of n: keeps sum m c x v */
      for (int i = 0; i < 3; ++i) u[i] /= nu;
      un = dot(u, k->n);
    } else {
      for (int i = 0; i < 3; ++i) u[i] = k->n[i];
    }
    double s = k->depth / ((A->inv_m + B->inv_m) * un);
    for (int i = 0; i < 3; ++i) {
      A->s.center[i] += s * A->inv_m * u[i];
      B->s.center[i] -= s * B->inv_m * u[i];
    }
    return 1;
  }
  double wa = position_weight(A, k->p, k->n), wb = position_weight(B, k->p, k->n);
  if (!(wa + wb > 0.0)) return 0;
  double P = k->depth / (wa + wb);
  shift(A, P, k->p, k->n);
  shift(B, -P, k->p, k->n);
  return 1;
}

/* ---- one pair --------------------------------------------------------------------------------- */

static int resolve_pair(rbody *A, rbody *B, double h, double v_rest, double margin, cl_rigid_contact_stats *st) {
  contact k[MAX_CONTACTS];
  int n = detect(A, B, margin, k);
  if (n == 0) return 0;
  double e = fmax(A->s.restitution, B->s.restitution), mu = sqrt(A->s.friction * B->s.friction);
  double target[MAX_CONTACTS], lam[MAX_CONTACTS], K[MAX_CONTACTS], f[MAX_CONTACTS][3];
  for (int i = 0; i < n; ++i) {
    double va[3], vb[3], vr[3];
    velocity_at(A, k[i].p, va);
    velocity_at(B, k[i].p, vb);
    for (int j = 0; j < 3; ++j) vr[j] = va[j] - vb[j];
    double vn = dot(vr, k[i].n);
    K[i] = response(A, k[i].p, k[i].n) + response(B, k[i].p, k[i].n);
    if (k[i].depth > 0.0) {
      target[i] = vn < -v_rest ? -e * vn : 0.0;
    } else if (vn >= -v_rest) {
      /* resting contact within the margin (speculative, Catto 2013): may close the gap in one substep
       * but not go further, so a box does not rock between its edges */
      target[i] = k[i].depth / h;
    } else {
      K[i] = 0.0; /* a fast approach: let it touch, then it bounces with its restitution */
    }
    lam[i] = 0.0;
    f[i][0] = f[i][1] = f[i][2] = 0.0;
    if (k[i].depth > st->max_depth) st->max_depth = k[i].depth;
  }
  st->pairs += 1;
  st->contacts += n;
  for (int it = 0; it < VELOCITY_ITERATIONS; ++it) {
    for (int i = 0; i < n; ++i) {
      if (!(K[i] > 0.0)) continue;
      const double *p = k[i].p, *nn = k[i].n;
      double va[3], vb[3], vr[3], J[3], mJ[3];
      velocity_at(A, p, va);
      velocity_at(B, p, vb);
      for (int j = 0; j < 3; ++j) vr[j] = va[j] - vb[j];
      double lnew = fmax(lam[i] + (target[i] - dot(vr, nn)) / K[i], 0.0), dl = lnew - lam[i];
      lam[i] = lnew;
      for (int j = 0; j < 3; ++j) {
        J[j] = dl * nn[j];
        mJ[j] = -J[j];
      }
      apply_impulse(A, p, J);
      apply_impulse(B, p, mJ);
      if (!(mu > 0.0)) continue;
      velocity_at(A, p, va);
      velocity_at(B, p, vb);
      for (int j = 0; j < 3; ++j) vr[j] = va[j] - vb[j];
      double vn = dot(vr, nn), vt[3];
      for (int j = 0; j < 3; ++j) vt[j] = vr[j] - vn * nn[j];
      double nvt = sqrt(dot(vt, vt));
      if (!(nvt > 1e-15)) continue;
      double t[3] = {vt[0] / nvt, vt[1] / nvt, vt[2] / nvt};
      double Kt = response(A, p, t) + response(B, p, t);
      if (!(Kt > 0.0)) continue;
      double fn[3], fmag;
      for (int j = 0; j < 3; ++j) fn[j] = f[i][j] - nvt / Kt * t[j];
      fmag = sqrt(dot(fn, fn));
      if (fmag > mu * lam[i]) /* Coulomb cone */
        for (int j = 0; j < 3; ++j) fn[j] *= mu * lam[i] / fmag;
      for (int j = 0; j < 3; ++j) {
        J[j] = fn[j] - f[i][j];
        mJ[j] = -J[j];
        f[i][j] = fn[j];
      }
      apply_impulse(A, p, J);
      apply_impulse(B, p, mJ);
    }
  }
  /* position: deepest contact first, re-detect after each push */
  for (int round = 0; round < PUSH_ROUNDS; ++round) {
    if (round > 0) n = detect(A, B, margin, k);
    int deepest = -1;
    for (int i = 0; i < n; ++i)
      if (k[i].depth > 0.0 && (deepest < 0 || k[i].depth > k[deepest].depth)) deepest = i;
    if (deepest < 0 || !push_apart(A, B, &k[deepest])) break;
  }
  return 1;
}

int cl_rigid_contact_broad_phase = 1;

/* Resolve one (dynamic i, other j) pair in place; 1 if it had a contact. */
static int resolve_slots(cl_world *w, int32_t i, int32_t j, double h, double t1, double v_rest, double margin,
                         cl_rigid_contact_stats *st) {
  rbody A, B;
  st->tested++;
  load(&A, cl_pool_at(&w->colliders, i), t1);
  load(&B, cl_pool_at(&w->colliders, j), t1);
  if (!resolve_pair(&A, &B, h, v_rest, margin, st)) return 0;
  store(&A);
  store(&B);
  return 1;
}

/* ---- broad phase ---------------------------------------------------------------------------- */

/* Sweep and prune along x over the colliders' bounding boxes (centre +- bounding-sphere radius, widened
 * by the contact margin and a slack for the pushes earlier pairs of the same pass make), then the
 * candidate pairs in the all-pairs order (dynamic slot i, then slot j): every pair the all-pairs loop
 * would resolve is resolved in the same order unless a push within the pass moved a body farther than
 * the slack, and the next pass catches that one. Planes are unbounded: paired with every dynamic body.
 * 2000 spheres in a heap took 2.5 s per step all-pairs. */
typedef struct sap_item {
  double lo, hi, ylo, yhi, zlo, zhi;
  int32_t slot;
  int dynamic;
} sap_item;

static int cmp_item(const void *pa, const void *pb) {
  const sap_item *a = pa, *b = pb;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  return (a->slot > b->slot) - (a->slot < b->slot);
}

static int cmp_pair(const void *pa, const void *pb) {
  const int64_t *a = pa, *b = pb;
  return (*a > *b) - (*a < *b);
}

/* The candidate pairs (i dynamic, j other), each packed as i * 2^32 + j and sorted; NULL and 0 pairs
 * when there is nothing to do. Grows w->rigid_scratch (allocation only when the collider count or the
 * pair count outgrows it). */
static int64_t *candidate_pairs(cl_world *w, double t1, double margin, int64_t *npairs) {
  *npairs = 0;
  const int32_t slots = w->colliders.slots;
  size_t need = sizeof(sap_item) * (size_t)(slots > 0 ? slots : 1);
  if (need > w->rigid_scratch_size) {
    void *p = realloc(w->rigid_scratch, need);
    if (!p) {
      *npairs = -1; /* no memory: the caller falls back to all pairs */
      return NULL;
    }
    w->rigid_scratch = p;
    w->rigid_scratch_size = need;
  }
  sap_item *it = w->rigid_scratch;
  int32_t n = 0, nplanes = 0, ndyn = 0;
  for (int32_t i = 0; i < slots; ++i) {
    cl_collider *c = cl_pool_at(&w->colliders, i);
    if (!c) continue;
    if (c->def.kind == CL_COLLIDER_PLANE) {
      ++nplanes;
      continue;
    }
    cl_collider_shape s;
    cl_collider_pose(c, t1, &s);
    const cl_collider_def *d = &c->def;
    double r = d->kind == CL_COLLIDER_SPHERE ? d->radius : sqrt(dot(d->half_extents, d->half_extents));
    double e = r + margin + 0.25 * r; /* slack: a quarter of the size for pushes within the pass */
    it[n] = (sap_item){s.center[0] - e, s.center[0] + e, s.center[1] - e, s.center[1] + e,
                       s.center[2] - e, s.center[2] + e, i, d->dynamic != 0};
    ndyn += d->dynamic != 0;
    ++n;
  }
  if (ndyn == 0) return NULL;
  if (n > 1) qsort(it, (size_t)n, sizeof *it, cmp_item);
  int64_t *pairs = w->rigid_pairs;
  int64_t cap = w->rigid_pairs_cap, np = 0;
#define PUSH_PAIR(a, b)                                                              \
  do {                                                                               \
    if (np == cap) {                                                                 \
      int64_t nc = cap ? 2 * cap : 1024;                                             \
      int64_t *q = realloc(pairs, sizeof(int64_t) * (size_t)nc);                     \
      if (!q) {                                                                      \
        *npairs = -1;                                                                \
        return NULL;                                                                 \
      }                                                                              \
      pairs = w->rigid_pairs = q;                                                    \
      cap = w->rigid_pairs_cap = nc;                                                 \
    }                                                                                \
    pairs[np++] = ((int64_t)(a) << 32) | (int64_t)(b);                               \
  } while (0)
  for (int32_t a = 0; a < n; ++a)
    for (int32_t b = a + 1; b < n && it[b].lo <= it[a].hi; ++b) {
      if (!it[a].dynamic && !it[b].dynamic) continue;
      if (it[b].ylo > it[a].yhi || it[a].ylo > it[b].yhi || it[b].zlo > it[a].zhi || it[a].zlo > it[b].zhi) continue;
      int32_t sa = it[a].slot, sb = it[b].slot;
      if (it[a].dynamic && it[b].dynamic)
        PUSH_PAIR(sa < sb ? sa : sb, sa < sb ? sb : sa);
      else if (it[a].dynamic)
        PUSH_PAIR(sa, sb);
      else
        PUSH_PAIR(sb, sa);
    }
  if (nplanes > 0)
    for (int32_t i = 0; i < slots; ++i) {
      cl_collider *c = cl_pool_at(&w->colliders, i);
      if (!c || !c->def.dynamic) continue;
      for (int32_t j = 0; j < slots; ++j) {
        cl_collider *p = cl_pool_at(&w->colliders, j);
        if (p && p->def.kind == CL_COLLIDER_PLANE) PUSH_PAIR(i, j);
      }
    }
#undef PUSH_PAIR
  if (np > 1) qsort(pairs, (size_t)np, sizeof *pairs, cmp_pair); /* pairs is NULL when there are none */
  *npairs = np;
  return pairs;
}

void cl_rigid_contacts(cl_world *w, double h, double t1, cl_rigid_contact_stats *out) {
  cl_rigid_contact_stats st = {0, 0, 0.0, 0};
  const double v_rest = 2.0 * sqrt(dot(w->gravity, w->gravity)) * h;
  /* resting-contact margin: a few times the fall of one substep from rest (g h^2 / 2), so the corners
   * of a box lying flat all count as contacts; 1e-6 m without gravity (then such contacts do nothing
   * unless the bodies approach) */
  const double margin = fmax(2.0 * v_rest * h, 1e-6);
  for (int pass = 0; pass < PASSES; ++pass) {
    int found = 0;
    int64_t np = 0;
    const int64_t *pairs = cl_rigid_contact_broad_phase ? candidate_pairs(w, t1, margin, &np) : NULL;
    if (cl_rigid_contact_broad_phase && pairs) {
      for (int64_t k = 0; k < np; ++k)
        found |= resolve_slots(w, (int32_t)(pairs[k] >> 32), (int32_t)(pairs[k] & 0xffffffff), h, t1, v_rest,
                               margin, &st);
    } else if (!cl_rigid_contact_broad_phase || np < 0) {
      for (int32_t i = 0; i < w->colliders.slots; ++i) {
        cl_collider *ca = cl_pool_at(&w->colliders, i);
        if (!ca || !ca->def.dynamic) continue;
        for (int32_t j = 0; j < w->colliders.slots; ++j) {
          cl_collider *cb = cl_pool_at(&w->colliders, j);
          if (!cb || j == i || (cb->def.dynamic && j < i)) continue; /* each dynamic pair once */
          found |= resolve_slots(w, i, j, h, t1, v_rest, margin, &st);
        }
      }
    }
    if (!found) break;
  }
  if (out) *out = st;
}
