/* One time step of the corotational solver (thesis Alg. 1):
 *
 *   UpdateOrientations + CalculateStiffnessMatrix + AddPlasticityForce   element.c (parallel)
 *   DynamicsAssembly                                                     assembly.c, per island
 *   ConjugateGradientSolver                                              linsolve.c, per island
 *   IntegrateNodePositions  x' = x + dt v'                                here
 *
 * Colliders: after the solve, free nodes whose end position would lie inside a collider are held on
 * its surface with the velocity cl_collider_project gives them (restitution, Coulomb friction) and
 * the island is solved again with them as constraints: contact as a constraint of the implicit step
 * (as in Baraff & Witkin 1998), not a correction after it. Nodes still inside after that are
 * projected.
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

/* (A dv - r0)_row for one local row: the constraint force times dt. */
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
  CL_TRY(cl_corot_update_elements(s, st, dt, 1));
  tm->element_ms = cl_time_ms() - t;

  /* constraint masks and the dv that lands each held node on its target */
  for (int32_t k = 0; k < s->nislands; ++k) {
    cl_corot_island *isl = &s->islands[k];
    memset(isl->fixed, 0, 3 * (size_t)isl->nnodes);
    isl->ncons = 0;
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
    for (int c = 0; c < 3; ++c) {
      isl->fixed[3 * l + c] = 1;
      isl->dv[3 * l + c] = (cs->target_x[3 * j + c] - st->x[3 * (size_t)i + c]) / dt - st->v[3 * (size_t)i + c];
    }
  }

  cl_status warn = CL_OK;
  const int conserve = s->p[CL_COROT_CONSERVE_MOMENTUM] != 0.0;
  for (int32_t k = 0; k < s->nislands; ++k) {
    cl_corot_island *isl = &s->islands[k];
    t = cl_time_ms();
    cl_corot_assemble_island(s, st, in, isl);
    tm->assembly_ms += cl_time_ms() - t;
    t = cl_time_ms();
    cl_status r = cl_corot_solve_island(s, isl, k, 0, rep);
    if (r < 0) return r;
    if (r > warn) warn = r;
    /* contacts: free nodes whose end position lies inside a collider are held on its surface (with
     * the velocity the collider's response gives them) and the island is solved again, so the rest
     * of the body feels the contact within the step instead of a layer of nodes being moved after it */
    memset(isl->contact, 0, (size_t)isl->nnodes);
    int32_t ncontact = 0;
    if (in->colliders->count) {
      for (int32_t l = 0; l < isl->nnodes; ++l) {
        if (isl->fixed[3 * l]) continue;
        const int32_t i = isl->nodes[l];
        double xp[3], vp[3];
        for (int c = 0; c < 3; ++c) {
          vp[c] = isl->v[3 * l + c] + isl->dv[3 * l + c];
          xp[c] = st->x[3 * (size_t)i + c] + dt * vp[c];
        }
        if (!cl_collider_project_mass(in->colliders, xp, vp, st->m[i])) continue;
        isl->contact[l] = 1;
        ++ncontact;
        for (int c = 0; c < 3; ++c) {
          isl->cx[3 * l + c] = xp[c];
          isl->cv[3 * l + c] = vp[c];
          isl->fixed[3 * l + c] = 1;
          isl->dv[3 * l + c] = (xp[c] - st->x[3 * (size_t)i + c]) / dt - isl->v[3 * l + c];
        }
      }
      if (ncontact) {
        isl->ncons += ncontact;
        r = cl_corot_solve_island(s, isl, k, 1, rep);
        if (r < 0) return r;
        if (r > warn) warn = r;
      }
    }
    tm->solve_ms += cl_time_ms() - t;

    t = cl_time_ms();
    if (isl->ncons == 0 && conserve) conserve_momentum(s, st, in, isl);
    for (int32_t l = 0; l < isl->nnodes; ++l) {
      const int32_t i = isl->nodes[l];
      double *x = st->x + 3 * (size_t)i, *v = st->v + 3 * (size_t)i;
      if (isl->contact[l]) {
        for (int c = 0; c < 3; ++c) {
          x[c] = isl->cx[3 * l + c];
          v[c] = isl->cv[3 * l + c];
        }
        continue;
      }
      if (isl->fixed[3 * l]) continue;
      for (int c = 0; c < 3; ++c) {
        v[c] = isl->v[3 * l + c] + isl->dv[3 * l + c];
        x[c] += dt * v[c];
      }
      if (in->colliders->count) cl_collider_project_mass(in->colliders, x, v, st->m[i]);
    }
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
  /* held nodes: exactly on target, reaction from their rows */
  for (int32_t j = 0; j < cs->count; ++j) {
    const int32_t i = cs->nodes[j];
    const int32_t k = s->node_island[i];
    double *x = st->x + 3 * (size_t)i, *v = st->v + 3 * (size_t)i, *react = cs->reaction + 3 * (size_t)j;
    if (k >= 0) {
      double rr[3];
      row_residual(&s->islands[k], s->node_local[i], rr);
      for (int c = 0; c < 3; ++c) react[c] = rr[c] / dt;
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
