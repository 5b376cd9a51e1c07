/* Entry "cholmod" of the linear-solver table (linear_solver.h): a CHOLMOD factor (cholmod_solver.h)
 * as the preconditioner of the projected CG (cg.h).
 *
 *   analyse  the CSC pattern of A's upper triangle, its value map and CHOLMOD's symbolic analysis
 *            (fill-reducing ordering, supernodes): once per pattern
 *   setup    a numeric factorisation of A with the set-up's constraint mask (fixed dofs become
 *            identity rows), or, with reuse_factor, possibly none (below)
 *   solve    CG preconditioned by the factor, z = L^-T L^-1 r (or by def.wrap around it); with a factor
 *            of this very matrix and mask CG stops after one iteration
 *
 * Reuse (reuse_factor = 1, refactor_iterations > 0): a factor of an older matrix is still a symmetric
 * positive definite preconditioner, only a worse one, so a set-up need not factorise. It does when
 *   - there is no usable factor (none yet, or the last one met a non-positive pivot),
 *   - the constraint mask differs from the one the factor was made with,
 *   - the last solve needed more than refactor_iterations CG iterations, or
 *   - "rent or buy": the iterations spent since the factorisation beyond the one a fresh factor needs
 *     (the rent paid for an old factor) have cost more than the factorisation did (the price of a new
 *     one), or will have by the end of the next set-up's solves by the forecast: the rent of the last
 *     set-up whose solves ran on an older factor. Without the forecast, a problem whose matrix changes
 *     a lot between set-ups (the multigrid's coarsest level under the contact rounds of the Charpy
 *     impact: 10-25 iterations on a one-set-up-old factor against 1) would pay a whole set-up's rent
 *     before every factorisation; with it the entry buys at once while renting is dear (there: 304
 *     factorisations and 2020 coarse CG iterations in 153 steps, against 195 and 4501 without). A
 *     set-up that factorises on the forecast alone lowers it by a tenth, so a cheaper phase is found
 *     again after at most log(R / F) / log(1 / 0.9) such set-ups (R the rent seen, F the price; a
 *     quarter took 275 and 2631 there, more time in all). The plain rule's ski-rental bound (at most
 *     twice the best fixed refactoring interval) then no longer holds as such: a purchase on the
 *     forecast may buy one factorisation that renting would have avoided.
 *     Costs are counted in flops, so runs are reproducible: the factorisation's flop count from
 *     CHOLMOD; one preconditioned iteration = the two triangular solves (4 flops per entry of L) and a
 *     product with A (18 per 3x3 block), weighted 4x when L is larger than CL_CHOL_CACHE_BYTES,
 *     because such iterations run at a quarter of the factorisation's flop rate, which is dense
 *     BLAS-3 (the ratio of time per flop measured on the benchmark machine: the Charpy bar's
 *     factorisation, 1.78 Gflop in about 70 ms, against an iteration of 18.6 Mflop in about 3 ms,
 *     docs/solvers/corotational.md), and 1x below:
 *     a small factor's iterations run from cache and its factorisation's small supernodes get little
 *     from BLAS-3 (the coarsest level of "50/all" on the Charpy bar: 45k entries of L, a factorisation
 *     of 3.6 Mflop in 0.49 ms, an iteration of 0.31 Mflop in 0.058 ms, a ratio of 8.4 where the
 *     flops say 11.8).
 * With direct_fresh a solve on a factor of its very matrix and mask is the factor's direct solve
 * (no CG: the multigrid's coarsest level, where CG's product with A and vector work were most of a
 * solve on a fresh factor).
 * A solve whose CG reaches its cap with a factor already used by an earlier solve renews the factor
 * and tries once more. A solve with a mask other than the factor's keeps the factor (the projected CG
 * is exact on its own mask). While no usable factor exists, block-Jacobi PCG solves. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "linalg/linear_solver.h"

/* The size of a factor (8 bytes per entry of L) up to which its iterations are priced as running
 * from cache (the rent-or-buy rule above): the second-level cache of one core of the benchmark machine
 * (AMD EPYC, 512 KiB) and a little more. */
#define CL_CHOL_CACHE_BYTES (1024.0 * 1024.0)

typedef struct chol_entry {
  cl_cholmod *chol;        /* NULL before analysis */
  cl_cg_workspace *ws;
  int32_t n;               /* block rows of the analysed pattern */
  int64_t nnzb;
  uint8_t *fixed_factor;   /* 3n: the mask the factor was made with */
  int factor_ok;           /* the last factorisation succeeded: the factor is a usable preconditioner */
  int refactor;            /* factorise at the next set-up */
  int fresh;               /* a set-up ran since the last solve (it already tried to factorise) */
  int current;             /* the factor is of the matrix and mask of the last set-up (made by it or since) */
  int32_t solves_on_factor;/* solves since the last factorisation */
  double factor_cost;      /* flops of the last factorisation */
  double iteration_cost;   /* weighted flops of one preconditioned CG iteration (see the top) */
  double rent;             /* spent since the factorisation on iterations a fresh factor would not need */
  double interval_rent;    /* of which since the last set-up */
  int stale_interval;      /* the solves since the last set-up ran on a factor of an older matrix */
  double forecast;         /* the rent expected of a set-up on an older factor (see the top) */
  cl_precond_wrap wrap;    /* of the solve running now */
  int64_t factorizations, solves, iterations;
} chol_entry;

static cl_status chol_create(void **data) {
  chol_entry *e = cl_calloc(1, sizeof *e, "CHOLMOD linear solver");
  if (!e) return CL_ERR_OUT_OF_MEMORY;
  *data = e;
  return CL_OK;
}

static void drop(chol_entry *e) {
  cl_cholmod_destroy(e->chol);
  cl_cg_workspace_destroy(e->ws);
  free(e->fixed_factor);
  e->chol = NULL;
  e->ws = NULL;
  e->fixed_factor = NULL;
}

static void chol_destroy(void *data) {
  chol_entry *e = data;
  if (!e) return;
  drop(e);
  free(e);
}

static cl_status chol_analyse(void *data, const cl_linear_solver_def *def, const cl_bsr *A) {
  (void)def;
  chol_entry *e = data;
  drop(e);
  e->factor_ok = 0;
  e->refactor = 1;
  e->fresh = 0;
  e->solves_on_factor = 0;
  e->stale_interval = e->current = 0;
  e->forecast = e->interval_rent = 0.0;
  e->n = A->n;
  e->nnzb = A->nnzb;
  e->fixed_factor = cl_calloc(3 * (size_t)A->n, 1, "CHOLMOD factor mask");
  if (!e->fixed_factor) return CL_ERR_OUT_OF_MEMORY;
  CL_TRY(cl_cg_workspace_create(A->n, &e->ws));
  CL_TRY(cl_cholmod_create(A, NULL, &e->chol));
  return cl_cholmod_analyse(e->chol);
}

/* Is `fixed` (NULL = nothing fixed) the mask of the factor? */
static int same_mask(const chol_entry *e, const uint8_t *fixed) {
  const size_t n3 = 3 * (size_t)e->n;
  if (fixed) return memcmp(fixed, e->fixed_factor, n3) == 0;
  for (size_t d = 0; d < n3; ++d)
    if (e->fixed_factor[d]) return 0;
  return 1;
}

/* A numeric factorisation with the mask `fixed`. A non-positive pivot is not an error here: it leaves
 * factor_ok = 0 (block-Jacobi PCG solves until the next factorisation) and returns the warning. */
static cl_status factorize(chol_entry *e, const cl_linear_solver_def *def, const cl_bsr *A, const uint8_t *fixed,
                           cl_solve_reason *reason) {
  CL_TRY(cl_cholmod_set_fixed(e->chol, fixed));
  /* the thread count may change between set-ups: set it with the mode before every factorisation */
  CL_TRY(cl_cholmod_set_solve_mode(e->chol, (cl_cholmod_solve_mode)def->factor_solve, def->threads));
  cl_status r = cl_cholmod_factorize(e->chol, A);
  cl_cholmod_stats cs;
  cl_cholmod_get_stats(e->chol, &cs);
  e->factor_cost = cs.flops;
  const double weight = 8.0 * cs.nnz_l > CL_CHOL_CACHE_BYTES ? 4.0 : 1.0;
  e->iteration_cost = weight * (4.0 * cs.nnz_l + 18.0 * (double)A->nnzb);
  e->rent = e->interval_rent = 0.0;
  e->stale_interval = 0;
  e->factorizations++;
  e->factor_ok = e->current = r == CL_OK;
  e->refactor = 0;
  e->solves_on_factor = 0;
  if (fixed) memcpy(e->fixed_factor, fixed, 3 * (size_t)e->n);
  else memset(e->fixed_factor, 0, 3 * (size_t)e->n);
  if (def->wrap.refreshed) def->wrap.refreshed(def->wrap.ctx);
  if (r == CL_WARN_NOT_POSDEF) *reason = CL_SOLVE_NOT_POSDEF;
  else if (r == CL_ERR_NUMERICAL) *reason = CL_SOLVE_NON_FINITE;
  else if (r < 0) *reason = CL_SOLVE_INVALID;
  return r;
}

static cl_status chol_setup(void *data, const cl_linear_solver_def *def, const cl_bsr *A, const uint8_t *fixed,
                            cl_solve_reason *reason) {
  chol_entry *e = data;
  const int every = !def->reuse_factor || def->refactor_iterations == 0;
  cl_status r = CL_OK;
  if (e->stale_interval) e->forecast = e->interval_rent; /* the set-up that ends here kept an old factor */
  e->stale_interval = 1; /* unless a factorisation follows */
  e->interval_rent = 0.0;
  int buy = e->factorizations == 0 || e->refactor || every || !e->factor_ok || !same_mask(e, fixed);
  if (!buy && e->rent + e->forecast > e->factor_cost) {
    buy = 1;
    e->forecast *= 0.9; /* bought on the forecast alone: trust it less */
  }
  if (buy) r = factorize(e, def, A, fixed, reason);
  else e->current = 0;
  e->fresh = 1;
  return r;
}

/* cl_precond_fn of CG with a wrap: z = W(r) around z = A_f^-1 r. */
static cl_status wrapped(void *ctx, const double *r, double *z) {
  chol_entry *e = ctx;
  return e->wrap.apply(e->wrap.ctx, cl_cholmod_precond, e->chol, r, z);
}

static cl_status factor_cg(chol_entry *e, const cl_linear_solver_def *def, const cl_bsr *A, const double *b,
                           double *x, const uint8_t *fixed, cl_linear_result *res) {
  e->wrap = def->wrap;
  if (def->wrap.apply) return cl_linear_cg(A, def, CL_PRECOND_USER, wrapped, e, e->ws, b, x, fixed, res);
  return cl_linear_cg(A, def, CL_PRECOND_USER, cl_cholmod_precond, e->chol, e->ws, b, x, fixed, res);
}

static cl_status chol_solve(void *data, const cl_linear_solver_def *def, const cl_bsr *A, const double *b, double *x,
                            const uint8_t *fixed, cl_linear_result *res) {
  chol_entry *e = data;
  cl_solve_reason why = CL_SOLVE_CONVERGED;
  cl_status r;
  /* a solve after a set-up uses what the set-up made; a later solve (another mask) makes a factor only
   * when none is usable */
  if (!e->fresh && (e->factorizations == 0 || !e->factor_ok)) {
    r = factorize(e, def, A, fixed, &why);
    res->factorizations++;
    if (r < 0) {
      res->reason = why;
      return r;
    }
  }
  e->fresh = 0;
  e->solves++;
  if (!e->factor_ok) {
    r = cl_linear_cg(A, def, CL_PRECOND_BLOCK_JACOBI, NULL, NULL, e->ws, b, x, fixed, res);
    e->iterations += res->iterations;
    return r;
  }
  if (def->direct_fresh && e->current && !def->wrap.apply && same_mask(e, fixed)) {
    /* the factor is this matrix's: its direct solve is the answer CG would reach in one iteration, to
     * rounding, without CG's product with A and its vector work */
    r = cl_cholmod_solve(e->chol, b, x);
    res->iterations += 1;
    e->iterations += 1;
    e->solves_on_factor++;
    if (r < 0) res->reason = r == CL_ERR_NUMERICAL ? CL_SOLVE_NON_FINITE : CL_SOLVE_INVALID;
    return r;
  }
  r = factor_cg(e, def, A, b, x, fixed, res);
  int32_t last = res->iterations; /* iterations of the last attempt: what the reuse rules judge */
  if (r == CL_WARN_NOT_CONVERGED && e->solves_on_factor > 0) {
    /* the old factor is too far from A: renew it and try once more */
    const int32_t before = res->iterations;
    r = factorize(e, def, A, fixed, &why);
    res->factorizations++;
    if (r < 0) {
      res->reason = why;
      e->iterations += res->iterations;
      return r;
    }
    if (e->factor_ok) r = factor_cg(e, def, A, b, x, fixed, res);
    else r = cl_linear_cg(A, def, CL_PRECOND_BLOCK_JACOBI, NULL, NULL, e->ws, b, x, fixed, res);
    last = res->iterations - before;
  }
  e->iterations += res->iterations;
  e->solves_on_factor++;
  if (last > def->refactor_iterations) e->refactor = 1;
  if (last > 1) {
    e->rent += e->iteration_cost * (double)(last - 1);
    e->interval_rent += e->iteration_cost * (double)(last - 1);
  }
  if (e->rent > e->factor_cost) e->refactor = 1;
  return r;
}

static void chol_stats(const void *data, cl_linear_solver_stats *out) {
  const chol_entry *e = data;
  out->factorizations = e->factorizations;
  out->solves = e->solves;
  out->iterations = e->iterations;
  if (!e->chol) return;
  cl_cholmod_stats cs;
  cl_cholmod_get_stats(e->chol, &cs);
  out->analyses = cs.analyses;
  out->n = cs.n;
  out->factor_flops = cs.flops;
  out->factor_entries = cs.nnz_l;
}

const cl_cholmod *cl_linear_cholmod_object(const void *data) { return data ? ((const chol_entry *)data)->chol : NULL; }

const cl_linear_solver_ops cl_linear_cholmod_ops = {
    .name = "cholmod",
    .help = "a sparse Cholesky factor (CHOLMOD) as CG preconditioner, reused across set-ups while it pays "
            "(rent or buy); a direct solve when fresh",
    .reuses_setup = 1,
    .create = chol_create,
    .destroy = chol_destroy,
    .analyse = chol_analyse,
    .setup = chol_setup,
    .solve = chol_solve,
    .stats = chol_stats,
};
