/* One time step of the graph-based FEM (the paper's Algorithm 2 at the finest level, with the solve
 * through linalg's table): element forces and stiffness, assembly of eq 3, the held dofs and the
 * contact active set of fem/system.h, the linear solve with the entry named by linear_solver, and
 * x' = x + dt v'. One linearised solve per step, as the paper's eq 3 (no Newton iterations); with
 * tangent_every > 1 a step may keep the last fresh step's A and set-up (lagged.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/timer.h"
#include "fem/mg_params.h"
#include "solvers/graph_fem/gfem.h"

/* The instance of the linear-solver entry, created and analysed on first use (the multigrid's
 * hierarchy from the rest positions: its geodesics run over the rest shape). */
cl_status cl_gfem_linear_solver(cl_gfem *s, const cl_body_state *st) {
  if (s->ls) return CL_OK;
  const char *name = cl_linear_solver_name((int32_t)s->p[GF_LINEAR_SOLVER]);
  cl_linear_solver_def def;
  cl_linear_solver_def_default(&def);
  def.rel_tol = s->p[GF_TOLERANCE];
  def.max_iter = (int32_t)s->p[GF_MAX_ITERATIONS];
  def.threads = s->threads;
  cl_fem_mg_def(&def, s->p + GF_GRID, s->grid);
  def.mg_positions = st->X;
  def.mg_position_count = st->n;
  /* a factor kept from an earlier set-up (cholmod) is turned into the frames of now; entries that make
   * their preconditioner at every set-up ignore the wrap */
  def.wrap = cl_fem_frame_wrap_of(&s->fwrap);
  s->lsdef = def;
  cl_status c = cl_linear_solver_create(name, &def, &s->ls);
  /* at bind: the world names the body */
  const char *keys = (int32_t)s->p[GF_LINEAR_SOLVER] == 2 ? " (params grid and mg_*)" : "";
  if (c < 0) return cl_fail_context(c, "solver 'graph_fem', linear solver '%s'%s: ", name, keys);
  cl_status r = cl_linear_solver_analyse(s->ls, s->sys.A);
  if (r < 0) return cl_fail_context(r, "solver 'graph_fem', linear solver '%s'%s: ", name, keys);
  s->analysed = 1;
  return CL_OK;
}

typedef struct solve_ctx {
  cl_gfem *s;
  cl_step_report *rep;
  int lagged; /* the set-up of the last fresh step's A holds (lagged.c) */
} solve_ctx;

/* Whether the step's first solve starts from dv = 0 on the free dofs instead of the last step's dv
 * (parameter initial_guess; docs/solvers/graph_fem.md, "The initial guess"). A solve that stops
 * short of convergence, the paper's fixed V-cycles, returns dv = dv* + E (g - dv*) from the guess g
 * (E the cycles' error operator): from g = 0 that is (I - E) dv*, a fraction of backward Euler's
 * update on the modes the cycles barely reduce, which stays stable; from the last step's dv it adds
 * E dv_prev, a memory of the last step's change that the integrator does not damp. */
static int zero_guess(const cl_gfem *s) {
  const int guess = (int)s->p[GF_INITIAL_GUESS];
  if (guess == 2) return 1;
  if (guess == 1) return 0;
  return (int)s->p[GF_LINEAR_SOLVER] == 2 && s->p[GF_MG_MODE] != 0.0;
}

/* A dv = r0 with the system's mask; the first solve of a step sets the entry up with the new A
 * (a lagged step keeps the set-up made with its A and the same mask). */
static cl_status solve(void *ctx, cl_fem_system *sys, int again) {
  solve_ctx *c = ctx;
  cl_gfem *s = c->s;
  const uint8_t *mask = sys->ncons ? sys->fixed : NULL;
  if (!again) {
    cl_status r = c->lagged ? CL_OK : cl_linear_solver_setup(s->ls, sys->A, mask);
    if (r < 0) return cl_fail_context(r, "%s: linear solver set-up: ", s->body);
    if (zero_guess(s))
      for (int64_t d = 0; d < 3 * (int64_t)sys->n; ++d)
        if (!sys->fixed[d]) sys->dv[d] = 0.0;
  }
  /* a contact round's re-solve (galerkin_mg, mode fixed) continues from the last solve's dv: its own
   * count of V-cycles, contact_cycles */
  const int fixed_mg = (int)s->p[GF_LINEAR_SOLVER] == 2 && s->p[GF_MG_MODE] != 0.0;
  const int32_t rc = (int32_t)s->p[GF_CONTACT_CYCLES];
  const int recycle = again && fixed_mg && rc > 0 && rc != s->lsdef.mg_cycles;
  if (recycle) {
    cl_linear_solver_def d = s->lsdef;
    d.mg_cycles = rc;
    CL_TRY(cl_linear_solver_configure(s->ls, &d));
  }
  cl_fem_system_tell_solver(sys, s->ls); /* a contact's friction stiffness (fem/system.h) */
  cl_linear_result res;
  cl_status r = cl_linear_solver_solve(s->ls, sys->r0, sys->dv, mask, &res);
  if (recycle) CL_TRY(cl_linear_solver_configure(s->ls, &s->lsdef));
  c->rep->iterations += res.iterations;
  if (res.rel_residual > c->rep->residual) c->rep->residual = res.rel_residual;
  if (r < 0) return cl_fail_context(r, "%s: linear solve: ", s->body);
  /* the paper's fixed-cycle multigrid stops where its cycles stop by design: its residual is in the
   * statistics, not a warning every step */
  if (r == CL_WARN_NOT_CONVERGED && fixed_mg) return CL_OK;
  if (r == CL_WARN_NOT_CONVERGED)
    return cl_fail(CL_WARN_NOT_CONVERGED, "%s: the linear solve did not converge in %d iterations (relative residual "
                   "%.3g, tolerance %.3g); raise max_iterations, use linear_solver = \"cholmod\" or a smaller dt",
                   s->body, res.iterations, res.rel_residual, s->p[GF_TOLERANCE]);
  return r;
}

cl_status cl_gfem_step(void *solver, cl_body_state *st, const cl_step_input *in, cl_step_report *rep) {
  cl_gfem *s = solver;
  const double dt = in->dt;
  rep->iterations = 0;
  rep->residual = 0.0;
  s->threads = in->threads > 0 ? in->threads : 1;
  if (st->n != s->nnodes || st->ncells != s->ntets)
    return cl_fail(CL_ERR_STATE, "%s: the body state changed size outside the solver (%d nodes, %d cells; the solver "
                   "knows %d and %d)", s->body, st->n, st->ncells, s->nnodes, s->ntets);
  cl_fem_system *sys = &s->sys;
  cl_fem_system_begin(sys, st, sys->statics ? s->keep_contacts : 0,
                      sys->statics && s->keep_contacts ? in->colliders : NULL);
  const cl_constraint_set *cs = &in->constraints;
  for (int32_t j = 0; j < cs->count; ++j) {
    const int32_t i = cs->nodes[j];
    if (i < 0 || i >= st->n)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "constraint %d holds node %d outside [0, %d)", j, i, st->n);
    cl_fem_hold_constraint(sys, i, cs->target_x + 3 * (size_t)j, st->x + 3 * (size_t)i, st->v + 3 * (size_t)i, dt);
  }
  const cl_support_set *ss = &in->supports;
  for (int32_t j = 0; j < ss->count; ++j) {
    const int32_t i = ss->nodes[j];
    if (i < 0 || i >= st->n)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "support %d holds node %d outside [0, %d)", j, i, st->n);
    cl_fem_hold_support(sys, i, ss->axes + 9 * (size_t)j, ss->held[j], ss->target_x + 3 * (size_t)j,
                        st->x + 3 * (size_t)i, st->v + 3 * (size_t)i, dt);
  }
  /* the last step's contacts, held where the nodes are predicted to meet their colliders (fem/system.h) */
  if (s->p[GF_CONTACT_SEED] != 0.0)
    cl_fem_seed_contacts(sys, st, in->colliders, dt, CL_FEM_SEED_SKIN * s->mean_edge);

  /* the held dofs are known: does this step keep the last fresh A (lagged.c)? Then the element pass
   * makes forces only and the assembly b and r0 only */
  int lagged = cl_gfem_lag_decide(s, in);
  double t = cl_time_ms();
  CL_TRY(cl_gfem_update_elements(s, st));
  if (lagged && !cl_gfem_lag_within_drift(s)) { /* moved too far from the kept tangent: a fresh one */
    lagged = 0;
    CL_TRY(cl_gfem_update_elements(s, st));
  }
  s->element_ms = cl_time_ms() - t;

  t = cl_time_ms();
  cl_gfem_assemble(s, st, in, !lagged);
  cl_gfem_lag_note(s, in, lagged);
  s->static_res2 = cl_fem_system_prepare(sys, st, dt); /* a static iteration's merit (static.c) */
  if (sys->statics) s->static_res2 += cl_fem_system_cone_excess2(sys, in->colliders);
  s->assembly_ms = cl_time_ms() - t;

  t = cl_time_ms();
  CL_TRY(cl_gfem_linear_solver(s, st));
  solve_ctx ctx = {s, rep, lagged};
  cl_status warn = solve(&ctx, sys, 0);
  if (warn < 0) return warn;
  cl_status r = cl_fem_contact_rounds(sys, st, in->colliders, dt, solve, &ctx);
  if (r < 0) return r;
  if (r > warn) warn = r;
  cl_fem_system_finish(sys, in->colliders, 1);
  cl_gfem_lag_end(s);
  s->solve_ms = cl_time_ms() - t;

  t = cl_time_ms();
  if (sys->ncons == 0 && !sys->statics) cl_fem_conserve_momentum(sys, st, in->gravity, in->f_ext, dt, 1.0 + dt * s->p[GF_ALPHA]);
  cl_fem_system_update(sys, st, in->colliders, dt);
  for (int32_t j = 0; j < ss->count; ++j) {
    const int32_t i = ss->nodes[j];
    double *x = st->x + 3 * (size_t)i, *v = st->v + 3 * (size_t)i;
    const double *axes = ss->axes + 9 * (size_t)j, *I = cl_fem_support_impulse(sys, i);
    cl_support_project(axes, ss->held[j], ss->target_x + 3 * (size_t)j, x);
    cl_support_project(axes, ss->held[j], ss->target_v + 3 * (size_t)j, v);
    for (int c = 0; c < 3; ++c) ss->reaction[3 * j + c] = I[c] / dt;
  }
  for (int32_t j = 0; j < cs->count; ++j) {
    const int32_t i = cs->nodes[j];
    const double *I = cl_fem_impulse(sys, i);
    for (int c = 0; c < 3; ++c) {
      cs->reaction[3 * j + c] = I[c] / dt;
      st->x[3 * (size_t)i + c] = cs->target_x[3 * j + c];
      st->v[3 * (size_t)i + c] = cs->target_v[3 * j + c];
    }
  }
  s->update_ms = cl_time_ms() - t;
  s->iterations = rep->iterations;
  s->residual = rep->residual;
  s->steps++;
  return warn;
}
