/* Contact between rigid colliders (world/rigid_contact.c, docs/RIGID_BODIES.md "Contact between rigid
 * bodies"): resting and bouncing on a kinematic plane, head-on and off-centre collisions of free spheres
 * (momentum, energy, angular momentum), a box resting on the ground and on another box, friction from a
 * moving kinematic box, a hinged hammer hitting a sphere, and bad input. Without the contact pass every
 * one of these bodies passes through the other. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleave/world.h"
#include "base/error.h"
#include "world/rigid_contact.h"
#include "world/world.h"

#define assert_near(a, b, tol) near_((a), (b), (tol), #a, __FILE__, __LINE__)
static void near_(double a, double b, double tol, const char *what, const char *file, int line) {
  if (!(fabs(a - b) <= tol)) {
    print_error("%s = %.17g, expected %.17g within %g\n", what, a, b, tol);
    _fail(file, line);
  }
}

static cl_world *make_world(double dt, double gy) {
  cl_world_def def;
  cl_world_def_default(&def);
  def.dt = dt;
  def.substeps = 1;
  def.gravity[0] = def.gravity[2] = 0.0;
  def.gravity[1] = gy;
  cl_world *w = NULL;
  assert_int_equal(cl_world_create(&def, &w), CL_OK);
  return w;
}

static cl_id add(cl_world *w, const cl_collider_def *d) {
  cl_id id = 0;
  assert_int_equal(cl_world_add_collider(w, d, &id), CL_OK);
  return id;
}

static cl_id add_ground(cl_world *w, double restitution, double friction) {
  cl_collider_def d;
  cl_collider_def_default(&d, CL_COLLIDER_PLANE);
  d.restitution = restitution;
  d.friction = friction;
  return add(w, &d);
}

static cl_id add_ball(cl_world *w, double x, double y, double z, double vx, double vy, double r, double m,
                      double e, double mu) {
  cl_collider_def d;
  cl_collider_def_default(&d, CL_COLLIDER_SPHERE);
  d.dynamic = 1;
  d.mass = m;
  d.radius = r;
  d.center[0] = x;
  d.center[1] = y;
  d.center[2] = z;
  d.velocity[0] = vx;
  d.velocity[1] = vy;
  d.restitution = e;
  d.friction = mu;
  return add(w, &d);
}

static void get(cl_world *w, cl_id id, double c[3], double v[3], double om[3]) {
  if (c) assert_int_equal(cl_collider_get_center(w, id, c), CL_OK);
  if (v) assert_int_equal(cl_collider_get_velocity(w, id, v), CL_OK);
  if (om) assert_int_equal(cl_collider_get_angular_velocity(w, id, om), CL_OK);
}

static double norm3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* A sphere dropped on a kinematic plane (e = 0) lands and stays at height = radius: no sinking, no
 * jitter over 2 s (the gravity of each substep is taken out by the contact and the push). */
static void test_sphere_rests_on_plane(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, -9.81);
  add_ground(w, 0.0, 0.5);
  cl_id s = add_ball(w, 0.0, 0.5, 0.0, 0.0, 0.0, 0.1, 2.0, 0.0, 0.5);
  assert_int_equal(cl_world_step(w, 500), CL_OK); /* lands at t = 0.29 s */
  double worst_y = 0.0, worst_v = 0.0;
  for (int i = 0; i < 1500; ++i) {
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    double c[3], v[3];
    get(w, s, c, v, NULL);
    worst_y = fmax(worst_y, fabs(c[1] - 0.1));
    worst_v = fmax(worst_v, norm3(v));
  }
  print_message("sphere at rest: max |y - r| = %.3g m, max |v| = %.3g m/s over 1.5 s\n", worst_y, worst_v);
  assert_true(worst_y <= 1e-9);
  assert_true(worst_v <= 1e-9);
  cl_world_destroy(w);
}

/* With restitution e the ball (bottom 1 m above the ground) climbs back to e^2 of its drop height,
 * then e^4. Tolerance 1 % of the drop height: the impact speed is taken at the end of the substep in
 * which the ball penetrates (up to g h too fast) and the push adds up to g h^2 / 2 of height. */
static void test_bounce_height(void **state) {
  (void)state;
  const double e = 0.8, r = 0.05, H = 1.0;
  cl_world *w = make_world(1e-4, -9.81);
  add_ground(w, 0.0, 0.5); /* restitution max(0.8, 0) = 0.8 */
  cl_id s = add_ball(w, 0.0, H + r, 0.0, 0.0, 0.0, r, 1.0, e, 0.5);
  double peak[2] = {0.0, 0.0}, vy_prev = 0.0;
  int bounce = 0;
  for (int i = 0; i < 30000 && bounce < 3; ++i) { /* up to 3 s */
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    double c[3], v[3];
    get(w, s, c, v, NULL);
    if (vy_prev < 0.0 && v[1] > 0.0) ++bounce;                  /* just bounced */
    if (bounce >= 1 && bounce <= 2) peak[bounce - 1] = fmax(peak[bounce - 1], c[1] - r);
    vy_prev = v[1];
  }
  print_message("bounce: peaks %.5f m and %.5f m, expected %.5f and %.5f\n", peak[0], peak[1], e * e * H,
                e * e * e * e * H);
  assert_near(peak[0], e * e * H, 0.01 * H);
  assert_near(peak[1], e * e * e * e * H, 0.01 * H);
  cl_world_destroy(w);
}

/* Two equal free spheres, e = 1, head on, zero gravity: they exchange velocities; linear momentum is
 * kept to 1e-12 and kinetic energy to 1e-12 (one contact: the first impulse is exact, the next
 * iterations add nothing). */
static void test_head_on_exchange(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, 0.0);
  cl_id a = add_ball(w, -0.5, 0.0, 0.0, 1.0, 0.0, 0.1, 1.5, 1.0, 0.0);
  cl_id b = add_ball(w, 0.5, 0.0, 0.0, -0.5, 0.0, 0.1, 1.5, 1.0, 0.0);
  double P0 = 1.5 * (1.0 - 0.5), E0 = 0.5 * 1.5 * (1.0 + 0.25);
  assert_int_equal(cl_world_step(w, 1000), CL_OK);
  double va[3], vb[3], oa[3], ob[3], ca[3], cb[3];
  get(w, a, ca, va, oa);
  get(w, b, cb, vb, ob);
  assert_near(va[0], -0.5, 1e-12);
  assert_near(vb[0], 1.0, 1e-12);
  assert_near(1.5 * (va[0] + vb[0]), P0, 1e-12);
  assert_near(0.5 * 1.5 * (va[0] * va[0] + vb[0] * vb[0]), E0, 1e-12 * E0);
  assert_true(norm3(oa) == 0.0 && norm3(ob) == 0.0);
  assert_true(cb[0] - ca[0] > 0.2); /* apart */
  cl_world_destroy(w);
}

/* Angular momentum about the origin of a set of free spheres (orbital + spin). */
static void angular_momentum(cl_world *w, const cl_id *ids, const double *m, const double *r, int n, double L[3],
                             double P[3]) {
  for (int k = 0; k < 3; ++k) L[k] = P[k] = 0.0;
  for (int i = 0; i < n; ++i) {
    double c[3], v[3], om[3], I = 0.4 * m[i] * r[i] * r[i];
    get(w, ids[i], c, v, om);
    L[0] += m[i] * (c[1] * v[2] - c[2] * v[1]) + I * om[0];
    L[1] += m[i] * (c[2] * v[0] - c[0] * v[2]) + I * om[1];
    L[2] += m[i] * (c[0] * v[1] - c[1] * v[0]) + I * om[2];
    for (int k = 0; k < 3; ++k) P[k] += m[i] * v[k];
  }
}

/* Off-centre hit with friction (e = 0.7, mu = 0.4), zero gravity: both spheres spin and deflect; the
 * impulses act at one point with opposite signs and the push goes along the relative velocity, so
 * linear momentum and the angular momentum about the fixed origin are kept to 1e-12. */
static void test_off_centre_angular_momentum(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, 0.0);
  double m[2] = {1.0, 2.0}, r[2] = {0.1, 0.15};
  cl_id ids[2];
  ids[0] = add_ball(w, -0.5, 0.12, 0.03, 2.0, 0.0, r[0], m[0], 0.7, 0.4);
  ids[1] = add_ball(w, 0.3, 0.0, 0.0, 0.0, 0.0, r[1], m[1], 0.7, 0.4);
  double L0[3], P0[3], L1[3], P1[3];
  angular_momentum(w, ids, m, r, 2, L0, P0);
  assert_int_equal(cl_world_step(w, 1000), CL_OK);
  angular_momentum(w, ids, m, r, 2, L1, P1);
  double oa[3], vb[3];
  get(w, ids[0], NULL, NULL, oa);
  get(w, ids[1], NULL, vb, NULL);
  double dL[3] = {L1[0] - L0[0], L1[1] - L0[1], L1[2] - L0[2]}, dP[3] = {P1[0] - P0[0], P1[1] - P0[1], P1[2] - P0[2]};
  print_message("off-centre: |dP| = %.3g, |dL| = %.3g (|L0| = %.3g), spin %.3f rad/s, hit sphere (%.3f, %.3f, %.3f) m/s\n",
                norm3(dP), norm3(dL), norm3(L0), norm3(oa), vb[0], vb[1], vb[2]);
  assert_true(norm3(vb) > 0.5);  /* it was hit */
  assert_true(vb[1] < -0.1);     /* deflected away from the offset */
  assert_true(norm3(oa) > 0.5);  /* friction spun the striker */
  assert_true(norm3(dP) <= 1e-12 * norm3(P0));
  assert_true(norm3(dL) <= 1e-12 * norm3(P0) * 1.0); /* relative to |P| x 1 m */
  cl_world_destroy(w);
}

static cl_id add_box(cl_world *w, const double c[3], const double h[3], double tilt_z, double m, double e, double mu,
                     int dynamic, const double v[3]) {
  cl_collider_def d;
  cl_collider_def_default(&d, CL_COLLIDER_BOX);
  d.dynamic = dynamic;
  d.mass = dynamic ? m : 0.0;
  d.restitution = e;
  d.friction = mu;
  for (int k = 0; k < 3; ++k) {
    d.center[k] = c[k];
    d.half_extents[k] = h[k];
    if (v) d.velocity[k] = v[k];
  }
  double cs = cos(tilt_z), sn = sin(tilt_z);
  double R[9] = {cs, -sn, 0, sn, cs, 0, 0, 0, 1};
  memcpy(d.rotation, R, sizeof R);
  return add(w, &d);
}

/* A box dropped tilted (10 degrees) on the ground lands on an edge, tips flat and rests: after
 * settling max |v| <= 1e-9 m/s and |w| <= 1e-9 rad/s over the last second (no rocking between edges:
 * the resting-contact margin), its height within 1e-5 m of half its height (the push is linear, so a
 * tilt below g h^2 / 2 over its length, here 1e-5 rad, is not levelled). */
static void test_box_rests(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, -9.81);
  add_ground(w, 0.0, 0.6);
  double c[3] = {0.0, 0.35, 0.0}, h[3] = {0.2, 0.05, 0.1};
  cl_id b = add_box(w, c, h, 10.0 * 3.14159265358979 / 180.0, 3.0, 0.2, 0.6, 1, NULL);
  assert_int_equal(cl_world_step(w, 1500), CL_OK);
  double worst_y = 0.0, worst_v = 0.0, worst_w = 0.0;
  for (int i = 0; i < 1000; ++i) {
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    double x[3], v[3], om[3];
    get(w, b, x, v, om);
    worst_y = fmax(worst_y, fabs(x[1] - h[1]));
    worst_v = fmax(worst_v, norm3(v));
    worst_w = fmax(worst_w, norm3(om));
  }
  double R[9];
  assert_int_equal(cl_collider_get_rotation(w, b, R), CL_OK);
  print_message("box at rest: max |y - h| = %.3g m, max |v| = %.3g m/s, max |w| = %.3g rad/s, R_yy = %.9f\n",
                worst_y, worst_v, worst_w, R[4]);
  assert_true(fabs(R[4]) > 1.0 - 1e-6); /* flat: its short axis is vertical */
  assert_true(worst_y <= 1e-5);
  assert_true(worst_v <= 1e-9);
  assert_true(worst_w <= 1e-9);
  cl_world_destroy(w);
}

/* A ball dropped on a dynamic box on the ground (dynamic-dynamic sphere-box on top of box-plane):
 * the stack settles, the ball at 2 h + r. */
static void test_stack(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, -9.81);
  add_ground(w, 0.0, 0.5);
  double c[3] = {0.0, 0.1, 0.0}, h[3] = {0.3, 0.1, 0.3};
  cl_id b = add_box(w, c, h, 0.0, 5.0, 0.0, 0.5, 1, NULL);
  cl_id s = add_ball(w, 0.0, 0.6, 0.0, 0.0, 0.0, 0.1, 1.0, 0.3, 0.5);
  assert_int_equal(cl_world_step(w, 2000), CL_OK);
  double xs[3], vs[3], xb[3], vb[3];
  get(w, s, xs, vs, NULL);
  get(w, b, xb, vb, NULL);
  print_message("stack: box y = %.9f (0.1), ball y = %.9f (0.3), |v| %.3g %.3g\n", xb[1], xs[1], norm3(vb),
                norm3(vs));
  assert_near(xb[1], 0.1, 1e-6);
  assert_near(xs[1], 0.3, 1e-6);
  assert_true(norm3(vs) <= 1e-6 && norm3(vb) <= 1e-6);
  cl_world_destroy(w);
}

/* A ball and a box dropped onto a long kinematic box moving at 1 m/s along x pick up its motion
 * through friction: the box slides until it moves with the belt (vx = 1); the solid ball rolls, its
 * contact point moving with the belt, which leaves it at vx = 2/7 m/s (friction impulse J:
 * v = J/m, w r = 5 J / (2 m), v + w r = 1). */
static void test_friction_from_moving_box(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, -9.81);
  double cb[3] = {0.0, -0.5, 0.0}, hb[3] = {20.0, 0.5, 2.0}, vbelt[3] = {1.0, 0.0, 0.0};
  add_box(w, cb, hb, 0.0, 0.0, 0.0, 0.5, 0, vbelt);
  cl_id s = add_ball(w, 0.0, 0.15, 0.0, 0.0, 0.0, 0.1, 1.0, 0.0, 0.5);
  double c2[3] = {0.0, 0.1, 1.0}, h2[3] = {0.1, 0.05, 0.1};
  cl_id b = add_box(w, c2, h2, 0.0, 2.0, 0.0, 0.5, 1, NULL);
  assert_int_equal(cl_world_step(w, 600), CL_OK);
  double xs[3], vs[3], os[3], xbx[3], vbx[3];
  get(w, s, xs, vs, os);
  get(w, b, xbx, vbx, NULL);
  double contact_vx = vs[0] + os[2] * 0.1; /* v + w x (-r y) along x */
  print_message("belt: ball vx = %.6f (2/7 = %.6f), contact point vx = %.6f, box vx = %.6f, heights %.6f %.6f\n",
                vs[0], 2.0 / 7.0, contact_vx, vbx[0], xs[1], xbx[1]);
  assert_near(vs[0], 2.0 / 7.0, 1e-3);
  assert_near(contact_vx, 1.0, 1e-3);
  assert_near(vbx[0], 1.0, 1e-6);
  assert_near(xs[1], 0.1, 1e-6);
  assert_near(xbx[1], 0.05, 1e-6);
  cl_world_destroy(w);
}

/* A hinged hammer (box on a z hinge, zero gravity) swings into a free sphere: the sphere leaves, the
 * hammer slows, and the hinge distance is kept. The angular momentum about the hinge axis is kept by
 * the impulse (the hinge reaction has no moment about its own axis) but not exactly by the position
 * push, which moves the sphere off its line: kept to 1e-3 of its value. */
static void test_hinged_hammer(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, 0.0);
  cl_collider_def d;
  cl_collider_def_default(&d, CL_COLLIDER_BOX);
  d.dynamic = 1;
  d.hinged = 1;
  d.mass = 3.0;
  d.half_extents[0] = 0.04;
  d.half_extents[1] = 0.08;
  d.half_extents[2] = 0.06;
  d.center[0] = -0.5;
  d.center[1] = 0.0;
  d.hinge_point[1] = 0.0; /* hinge at the origin, hammer at (-0.5, 0) */
  d.hinge_axis[2] = 1.0;
  d.angular_velocity[2] = -4.0; /* swings through -y ... */
  d.restitution = 0.5;
  d.friction = 0.2;
  cl_id hm = add(w, &d);
  /* the hammer centre moves at 2 m/s along +y initially (w x r = -4 z x -0.5 x = 2 y); put the ball on its path, 0.8 rad ahead */
  cl_id s = add_ball(w, -0.5 * cos(0.8), 0.5 * sin(0.8), 0.0, 0.0, 0.0, 0.06, 1.0, 0.5, 0.2);
  double I3 = 3.0 / 3.0 * (0.04 * 0.04 + 0.08 * 0.08), Ia = I3 + 3.0 * 0.25;
  double Lz0 = Ia * -4.0;
  assert_int_equal(cl_world_step(w, 400), CL_OK);
  double xh[3], oh[3], xs[3], vs[3], os[3];
  get(w, hm, xh, NULL, oh);
  get(w, s, xs, vs, os);
  double Lz = Ia * oh[2] + 1.0 * (xs[0] * vs[1] - xs[1] * vs[0]) + 0.4 * 1.0 * 0.06 * 0.06 * os[2];
  print_message("hammer: w %.4f -> %.4f rad/s, ball v (%.4f, %.4f), Lz %.6f -> %.6f, hinge distance %.15f\n", -4.0,
                oh[2], vs[0], vs[1], Lz0, Lz, norm3(xh));
  assert_true(fabs(oh[2]) < 3.5);            /* slowed by the hit */
  assert_true(norm3(vs) > 1.0);              /* the ball was hit */
  assert_near(norm3(xh), 0.5, 1e-12);        /* still on its hinge */
  assert_near(Lz, Lz0, 1e-3 * fabs(Lz0));
  cl_world_destroy(w);
}

/* Two boxes: a dynamic box falls on a kinematic box (corner test) and rests on its top face. Direct
 * call of the pass: a box overlapping the kinematic one is reported with its depth. */
static void test_box_on_box_and_stats(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, -9.81);
  double c0[3] = {0.0, -0.5, 0.0}, h0[3] = {1.0, 0.5, 1.0};
  add_box(w, c0, h0, 0.3, 0.0, 0.0, 0.5, 0, NULL); /* tilted 0.3 rad about z: a slope */
  double c1[3] = {0.0, 0.4, 0.0}, h1[3] = {0.1, 0.1, 0.1};
  cl_id b = add_box(w, c1, h1, 0.3, 1.0, 0.0, 0.5, 1, NULL);
  assert_int_equal(cl_world_step(w, 1000), CL_OK);
  /* friction 0.5 > tan 0.3 = 0.31: it stays on the slope, its bottom face on the slope's top face */
  double x[3], v[3];
  get(w, b, x, v, NULL);
  double nrm[3] = {-sin(0.3), cos(0.3), 0.0}; /* the slope's top face normal */
  double dist = (x[0] - c0[0]) * nrm[0] + (x[1] - c0[1]) * nrm[1] + (x[2] - c0[2]) * nrm[2];
  print_message("box on slope: distance to the slope's centre plane %.9f (0.6), |v| = %.3g\n", dist, norm3(v));
  assert_near(dist, 0.6, 1e-5);
  assert_true(norm3(v) < 1e-3);

  /* sink it by 1 cm and call the pass directly */
  cl_collider *c;
  assert_int_equal(cl_world_collider(w, b, &c), CL_OK);
  for (int k = 0; k < 3; ++k) c->def.center[k] -= 0.01 * nrm[k];
  cl_rigid_contact_stats st;
  cl_rigid_contacts(w, 1e-3, w->time, &st);
  print_message("direct pass: %d pairs, %d contacts, depth %.6f\n", st.pairs, st.contacts, st.max_depth);
  assert_true(st.contacts >= 4);
  assert_near(st.max_depth, 0.01, 1e-4);
  get(w, b, x, NULL, NULL);
  dist = (x[0] - c0[0]) * nrm[0] + (x[1] - c0[1]) * nrm[1] + (x[2] - c0[2]) * nrm[2];
  assert_near(dist, 0.6, 1e-5); /* pushed back out */
  cl_world_destroy(w);
}

/* Two boxes whose edges cross like an X (no corner of either inside the other), zero gravity: a bar
 * turned 45 degrees about x (lowest edge along x) falls at 1 m/s onto a kinematic cube turned 45
 * degrees about z (top edge along z), e = 1. The separating-axis pass finds the edge-edge contact
 * (normal +y, at the crossing point right below the bar's centre): the bar comes straight back at
 * 1 m/s without spin, after sinking at most one substep's travel. Corners alone would let it fall
 * 0.5 m into the cube before any corner got inside. */
static void test_edge_edge(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, 0.0);
  const double c = sqrt(0.5);
  cl_collider_def d;
  cl_collider_def_default(&d, CL_COLLIDER_BOX);
  double Rz[9] = {c, -c, 0, c, c, 0, 0, 0, 1};
  memcpy(d.rotation, Rz, sizeof Rz);
  d.restitution = 1.0;
  d.friction = 0.0;
  add(w, &d); /* the cube: half extents 0.5, top edge at y = 0.7071 */
  cl_collider_def_default(&d, CL_COLLIDER_BOX);
  double Rx[9] = {1, 0, 0, 0, c, -c, 0, c, c};
  memcpy(d.rotation, Rx, sizeof Rx);
  d.half_extents[0] = 0.5;
  d.half_extents[1] = d.half_extents[2] = 0.1;
  d.center[1] = 1.0; /* lowest edge at 1 - 0.1414 = 0.8586: 0.1515 m above the cube's edge */
  d.velocity[1] = -1.0;
  d.dynamic = 1;
  d.mass = 2.0;
  d.restitution = 1.0;
  d.friction = 0.0;
  cl_id bar = add(w, &d);
  double ymin = 1.0;
  for (int i = 0; i < 400; ++i) {
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    double x[3];
    get(w, bar, x, NULL, NULL);
    ymin = fmin(ymin, x[1]);
  }
  double x[3], v[3], om[3];
  get(w, bar, x, v, om);
  print_message("edge-edge: lowest centre %.6f m (touch at %.6f), v (%.3g, %.12f, %.3g), |w| %.3g\n", ymin,
                2.0 * 0.1 * c + 0.5 * 2.0 * c, v[0], v[1], v[2], norm3(om));
  assert_true(ymin > 0.1 * 2.0 * c + 0.5 * 2.0 * c - 1.001e-3);
  assert_near(v[1], 1.0, 1e-9);
  assert_true(fabs(v[0]) < 1e-9 && fabs(v[2]) < 1e-9 && norm3(om) < 1e-9);
  cl_world_destroy(w);
}

/* Bad input: a dynamic collider must have a positive mass (so no contact has a zero or infinite
 * inverse mass), and two spheres with the same centre get a finite push, not NaN. */
static void test_bad_input(void **state) {
  (void)state;
  cl_world *w = make_world(1e-3, 0.0);
  cl_collider_def d;
  cl_collider_def_default(&d, CL_COLLIDER_SPHERE);
  d.dynamic = 1;
  d.mass = 0.0;
  cl_id id = 0;
  assert_int_equal(cl_world_add_collider(w, &d, &id), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "mass = 0"));
  cl_id a = add_ball(w, 0.0, 0.0, 0.0, 0.0, 0.0, 0.1, 1.0, 0.5, 0.5);
  cl_id b = add_ball(w, 0.0, 0.0, 0.0, 0.0, 0.0, 0.1, 1.0, 0.5, 0.5);
  assert_int_equal(cl_world_step(w, 10), CL_OK);
  double ca[3], cb[3], va[3];
  get(w, a, ca, va, NULL);
  get(w, b, cb, NULL, NULL);
  assert_true(isfinite(ca[1]) && isfinite(cb[1]) && isfinite(va[1]));
  assert_near(fabs(ca[1] - cb[1]), 0.2, 1e-12); /* separated along y */
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sphere_rests_on_plane),    cmocka_unit_test(test_bounce_height),
      cmocka_unit_test(test_head_on_exchange),         cmocka_unit_test(test_off_centre_angular_momentum),
      cmocka_unit_test(test_box_rests),                cmocka_unit_test(test_stack),
      cmocka_unit_test(test_friction_from_moving_box), cmocka_unit_test(test_hinged_hammer),
      cmocka_unit_test(test_box_on_box_and_stats),     cmocka_unit_test(test_edge_edge),
      cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
