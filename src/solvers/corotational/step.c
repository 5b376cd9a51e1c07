/* One time step of the corotational solver (thesis Alg. 1):
 *
 *   UpdateOrientations + CalculateStiffnessMatrix + AddPlasticityForce   element.c (parallel)
 *   DynamicsAssembly                                                     assembly.c, per island
 *   ConjugateGradientSolver                                              linsolve.c, per island
 *   IntegrateNodePositions  x' = x + dt v'                                here
 *
 * Supports and contact are fem/system.c's, shared with the other FEM solvers (its header has the
 * method); in short: supports and contact solve in local frames. A node held in some directions only (a support of the
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
 * prediction put the node. The contact's normal velocity leaves the step at the collider's, reflected
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

/* The solve callback of the contact rounds (fem/system.h): the island's linear solve again, keeping
 * the step's set-up. */
typedef struct solve_ctx {
  cl_corot *s;
  cl_corot_island *isl;
  int32_t index;
  cl_step_report *rep;
} solve_ctx;

static cl_status solve_again(void *ctx, cl_fem_system *sys, int again) {
  solve_ctx *c = ctx;
  cl_fem_system_tell_solver(sys, c->isl->ls); /* a contact's friction stiffness (fem/system.h) */
  return cl_corot_solve_island(c->s, c->isl, c->index, again, c->rep);
}

/* Solve one island: the constraints and supports, then the contact active set (fem/system.c). */
static cl_status solve_island(cl_corot *s, const cl_body_state *st, const cl_step_input *in, int32_t k,
                              cl_step_report *rep, cl_status *warn) {
  cl_corot_island *isl = &s->islands[k];
  const double dt = in->dt;
  double t = cl_time_ms();
  cl_corot_assemble_island(s, st, in, isl);
  const double r2 = cl_fem_system_prepare(&isl->sys, st, dt);
  if (s->statics) /* the merit of the Newton iteration (static.c) */
    s->static_res2 += r2 + cl_fem_system_cone_excess2(&isl->sys, in->colliders);
  s->timing.assembly_ms += cl_time_ms() - t;
  t = cl_time_ms();
  solve_ctx ctx = {s, isl, k, rep};
  cl_status r = solve_again(&ctx, &isl->sys, 0);
  if (r < 0) return r;
  if (r > *warn) *warn = r;
  r = cl_fem_contact_rounds(&isl->sys, st, in->colliders, dt, solve_again, &ctx);
  if (r < 0) return r;
  if (r > *warn) *warn = r;
  cl_fem_system_finish(&isl->sys, in->colliders, s->p[CL_COROT_CONSERVE_MOMENTUM] != 0.0);
  s->timing.solve_ms += cl_time_ms() - t;
  return CL_OK;
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
  s->X = st->X;
  if (st->n > s->node_cap || st->ncells != s->ntets)
    return cl_fail(CL_ERR_STATE, "the body state changed size outside the solver (%d nodes, %d cells; the "
                   "solver knows %d cells)", st->n, st->ncells, s->ntets);

  double t = cl_time_ms();
  CL_TRY(cl_corot_update_elements(s, st, dt, !s->statics));
  tm->element_ms = cl_time_ms() - t;

  /* constraint masks and the dv that lands each held node on its target */
  for (int32_t k = 0; k < s->nislands; ++k) {
    s->islands[k].sys.statics = s->statics;
    cl_fem_system_begin(&s->islands[k].sys, st, s->statics ? s->keep_contacts : 0,
                        s->statics && s->keep_contacts ? in->colliders : NULL);
  }
  const cl_constraint_set *cs = &in->constraints;
  for (int32_t j = 0; j < cs->count; ++j) {
    const int32_t i = cs->nodes[j];
    if (i < 0 || i >= st->n)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "constraint %d holds node %d outside [0, %d)", j, i, st->n);
    const int32_t k = s->node_island[i];
    if (k < 0) continue;
    cl_fem_hold_constraint(&s->islands[k].sys, s->node_local[i], cs->target_x + 3 * (size_t)j, st->x + 3 * (size_t)i,
                           st->v + 3 * (size_t)i, dt);
  }
  const cl_support_set *ss = &in->supports;
  for (int32_t j = 0; j < ss->count; ++j) {
    const int32_t i = ss->nodes[j];
    if (i < 0 || i >= st->n)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "support %d holds node %d outside [0, %d)", j, i, st->n);
    const int32_t k = s->node_island[i];
    if (k < 0) continue;
    cl_fem_hold_support(&s->islands[k].sys, s->node_local[i], ss->axes + 9 * (size_t)j, ss->held[j],
                        ss->target_x + 3 * (size_t)j, st->x + 3 * (size_t)i, st->v + 3 * (size_t)i, dt);
  }

  /* the last step's contacts, held where the nodes are predicted to meet their colliders (fem/system.h;
   * the skin a fraction of the edge of the regular tet of the mean volume, V = a^3 / (6 sqrt 2)); an
   * island made by this step's topology change starts without them */
  if (s->p[CL_COROT_CONTACT_SEED] != 0.0) {
    const double skin = CL_FEM_SEED_SKIN * cbrt(6.0 * sqrt(2.0) * s->mean_volume);
    for (int32_t k = 0; k < s->nislands; ++k) cl_fem_seed_contacts(&s->islands[k].sys, st, in->colliders, dt, skin);
  }

  cl_status warn = CL_OK;
  const int conserve = s->p[CL_COROT_CONSERVE_MOMENTUM] != 0.0;
  for (int32_t k = 0; k < s->nislands; ++k) {
    cl_corot_island *isl = &s->islands[k];
    CL_TRY(solve_island(s, st, in, k, rep, &warn));
    t = cl_time_ms();
    if (isl->sys.ncons == 0 && conserve)
      cl_fem_conserve_momentum(&isl->sys, st, in->gravity, in->f_ext, dt, 1.0 + dt * s->p[CL_COROT_ALPHA]);
    cl_fem_system_update(&isl->sys, st, in->colliders, dt);
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
      const double *I = cl_fem_support_impulse(&s->islands[k].sys, s->node_local[i]);
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
      const double *I = cl_fem_impulse(&s->islands[k].sys, s->node_local[i]);
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
