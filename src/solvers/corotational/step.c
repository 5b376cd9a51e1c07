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
 * Two-way contact (dynamic colliders, docs/RIGID_BODIES.md): the impulse a contact node receives is
 * known only after the re-solve. Its row of eq 3.8 reads (A v')_j = b_j + R_j, where R_j =
 * (A dv - r0)_j is what the constraint added over the step; the node then leaves the step with the
 * collider's response velocity v_c instead of the landing velocity v'_j = (x_c - x_j) / dt, one more
 * change m_j (v_c - v'_j). So the contact gave node j the impulse
 *     I_j = R_j + m_j (v_c,j - v'_j)                                           (N s)
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

/* Constrained islands: shift the free dofs' dv by one vector d (per component) so that the residual
 * of eq 3.8 summed over the free rows, e = sum_free (A dv - r0), vanishes. The sum over the free rows
 * of A times such a uniform shift is G d with G_rc = sum over free dofs (i, r), (j, c) of A_(ir)(jc):
 * G = (1 + dt alpha) M_free I + (dt^2 + dt beta) sum_{held i, held j} K_ij, symmetric positive
 * definite (w^T A w > 0 for the shift vector w), so d = -G^-1 e. A uniform shift of the free nodes
 * is a rigid translation of all but the held nodes: it changes the elastic forces only next to the
 * held nodes, by the order of the solver tolerance. The residual that is left in single rows is the
 * solver's tolerance; the momentum it would carry is gone, so the held rows' reactions account for
 * the whole momentum change of the island. One pass over A. */
static void balance_free_rows(cl_corot_island *isl) {
  const cl_bsr *A = isl->A;
  const uint8_t *fx = isl->fixed;
  double e[3] = {0.0, 0.0, 0.0}, G[9] = {0.0};
  for (int32_t i = 0; i < A->n; ++i) {
    const uint8_t *fi = fx + 3 * (size_t)i;
    if (fi[0] && fi[1] && fi[2]) continue;
    double res[3] = {-isl->r0[3 * i], -isl->r0[3 * i + 1], -isl->r0[3 * i + 2]};
    for (int64_t q = A->row_ptr[i]; q < A->row_ptr[i + 1]; ++q) {
      const double *B = A->val + 9 * q, *d = isl->dv + 3 * (size_t)A->col[q];
      const uint8_t *fj = fx + 3 * (size_t)A->col[q];
      for (int r = 0; r < 3; ++r) {
        res[r] += B[3 * r] * d[0] + B[3 * r + 1] * d[1] + B[3 * r + 2] * d[2];
        if (fi[r]) continue;
        for (int c = 0; c < 3; ++c)
          if (!fj[c]) G[3 * r + c] += B[3 * r + c];
      }
    }
    for (int r = 0; r < 3; ++r)
      if (!fi[r]) e[r] += res[r];
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
  for (int32_t l = 0; l < isl->nnodes; ++l)
    for (int c = 0; c < 3; ++c)
      if (!fx[3 * l + c]) isl->dv[3 * l + c] += d[c];
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

/* Project the predicted end state (xp, vp) of a node of mass m through the colliders in order (as
 * cl_collider_project does). Returns 0 if none was touched; else the code stored in isl->contact:
 * 1 + the index of the first dynamic collider touched (which receives the node's contact impulse
 * after the re-solve, contact_impulses), or CONTACT_KINEMATIC when there is none to pay back (only
 * kinematic colliders, or an index too large for the code: then any dynamic collider touched gets
 * the projection's m dv, the old approximation). A further dynamic collider the node touches in the
 * same step gets its share m dv of the projection at once. */
enum { CONTACT_KINEMATIC = 255 };
static uint8_t project_node(const cl_collider_view *view, double *xp, double *vp, double m) {
  int touched = 0, first = -1;
  double given[3] = {0.0, 0.0, 0.0};
  for (int32_t c = 0; c < view->count; ++c) {
    const cl_collider_shape *sh = &view->shapes[c];
    const cl_collider_view one = {1, sh};
    const double v0[3] = {vp[0], vp[1], vp[2]};
    if (!cl_collider_project(&one, xp, vp)) continue;
    ++touched;
    if (!sh->impulse || !(m > 0.0)) continue;
    if (first < 0 && c < CONTACT_KINEMATIC - 1) {
      first = c;
      continue;
    }
    const double I[3] = {m * (vp[0] - v0[0]), m * (vp[1] - v0[1]), m * (vp[2] - v0[2])};
    give_back(sh, xp, I);
    for (int k = 0; k < 3; ++k) given[k] += I[k];
  }
  if (!touched) return 0;
  if (first < 0) return (uint8_t)CONTACT_KINEMATIC;
  /* the first collider will be charged the node's whole impulse after the re-solve: credit it now
   * with what the others took, at the node's end point where it is charged */
  if (given[0] != 0.0 || given[1] != 0.0 || given[2] != 0.0) {
    const double back[3] = {-given[0], -given[1], -given[2]};
    give_back(&view->shapes[first], xp, back);
  }
  return (uint8_t)(first + 1);
}

/* After the re-solve: the reaction of every contact node's whole contact impulse I_j = R_j +
 * m (v_c - v') (see the top of the file) goes to its first dynamic collider, which project_node has
 * already credited with what other dynamic colliders the node touched took: the colliders together
 * receive exactly -I_j. */
static void contact_impulses(const cl_corot_island *isl, const cl_body_state *st, const cl_collider_view *view) {
  for (int32_t l = 0; l < isl->nnodes; ++l) {
    const uint8_t code = isl->contact[l];
    if (code == 0 || code == CONTACT_KINEMATIC) continue;
    const cl_collider_shape *sh = &view->shapes[code - 1];
    const int32_t i = isl->nodes[l];
    double R[3], I[3];
    row_residual(isl, l, R);
    for (int c = 0; c < 3; ++c) {
      const double vland = isl->v[3 * l + c] + isl->dv[3 * l + c];
      I[c] = R[c] + st->m[i] * (isl->cv[3 * l + c] - vland);
    }
    give_back(sh, isl->cx + 3 * (size_t)l, I);
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
    int32_t ncontact = 0, ndynamic = 0;
    if (in->colliders->count) {
      for (int32_t l = 0; l < isl->nnodes; ++l) {
        if (isl->fixed[3 * l]) continue;
        const int32_t i = isl->nodes[l];
        double xp[3], vp[3];
        for (int c = 0; c < 3; ++c) {
          vp[c] = isl->v[3 * l + c] + isl->dv[3 * l + c];
          xp[c] = st->x[3 * (size_t)i + c] + dt * vp[c];
        }
        /* no impulse is recorded here: what the contact gives the node is known after the re-solve */
        const uint8_t code = project_node(in->colliders, xp, vp, st->m[i]);
        if (!code) continue;
        isl->contact[l] = code;
        ++ncontact;
        ndynamic += code != CONTACT_KINEMATIC;
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
        if (ndynamic) {
          if (conserve) balance_free_rows(isl);
          contact_impulses(isl, st, in->colliders);
        }
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
