/* CHOLMOD wrapper: pattern once, values by gather, analyse once, refactor, solve with reused
 * workspaces. See cholmod_solver.h. */
#include "linalg/cholmod_solver.h"

#include "linalg/blas_threads.h"

#include <cholmod.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/alloc.h"
#include "base/error.h"
#include "linalg/supernodal_solve.h"

struct cl_cholmod {
  cholmod_common cc;
  int started;          /* cc initialised by cholmod_l_start */
  cholmod_sparse *A;    /* 3n x 3n, stype = 1 (upper triangle), sorted, packed: the pattern the
                           fill-reducing ordering is chosen for */
  cholmod_sparse *S;    /* the lower triangle of P A P^T (stype = -1), P that ordering: the matrix the
                           factor is made of, so CHOLMOD reads it as it is (see cl_cholmod_analyse) */
  int64_t *smap;        /* nnz: index into the BSR value array of each entry of S */
  SuiteSparse_long *perm; /* 3n: row k of P A P^T is row perm[k] of A */
  double *work;         /* 3n: P b in the solves */
  cholmod_factor *L;    /* NULL until the first analysis; of S, in its own (natural) order */
  cholmod_dense *X, *Y, *E; /* solve2 result and workspaces, reused between solves */
  int64_t *map;         /* nnz: index into the BSR value array of each CSC entry */
  uint8_t *fixed;       /* 3n or NULL */
  int32_t nb;           /* nodes of the BSR matrix */
  int64_t nnzb;         /* its block count, to catch a matrix with another pattern */
  int factor_ok;        /* last factorisation succeeded */
  cl_supernodal *sn;    /* our own triangular solves on L (supernodal_solve.h); NULL if unused */
  int sn_ok;            /* sn matches the current numeric factor */
  int solve_mode;       /* cl_cholmod_solve_mode */
  int threads;          /* for the own sweeps */
  cl_cholmod_stats st;
};

/* CHOLMOD reports errors through a handler without a context pointer, so the message goes to a
 * thread-local buffer that the calling wrapper function reads right after the call. */
static _Thread_local char g_cholmod_msg[256];

static void cholmod_handler(int status, const char *file, int line, const char *message) {
  snprintf(g_cholmod_msg, sizeof g_cholmod_msg, "CHOLMOD status %d at %s:%d: %s", status,
           file ? file : "?", line, message ? message : "");
}

static double now_ms(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/* Turn a failed CHOLMOD call into a cl_status with its message. */
static cl_status cholmod_failure(const cl_cholmod *c, const char *what) {
  if (c->cc.status == CHOLMOD_OUT_OF_MEMORY)
    return cl_fail(CL_ERR_OUT_OF_MEMORY, "CHOLMOD %s: out of memory (%s)", what, g_cholmod_msg);
  return cl_fail(CL_ERR_EXTERNAL, "CHOLMOD %s failed with status %d (%s)", what, c->cc.status,
                 g_cholmod_msg[0] ? g_cholmod_msg : "no message");
}

void cl_cholmod_destroy(cl_cholmod *c) {
  if (!c) return;
  if (c->started) {
    cholmod_l_free_dense(&c->X, &c->cc);
    cholmod_l_free_dense(&c->Y, &c->cc);
    cholmod_l_free_dense(&c->E, &c->cc);
    cholmod_l_free_factor(&c->L, &c->cc);
    cholmod_l_free_sparse(&c->A, &c->cc);
    cholmod_l_free_sparse(&c->S, &c->cc);
    cholmod_l_finish(&c->cc);
  }
  cl_supernodal_destroy(c->sn);
  free(c->smap);
  free(c->perm);
  free(c->work);
  free(c->map);
  free(c->fixed);
  free(c);
}

cl_status cl_cholmod_create(const cl_bsr *A, const uint8_t *fixed, cl_cholmod **out) {
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cholmod_create: out is NULL");
  *out = NULL;
  if (!A) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cholmod_create: A is NULL");
  if (A->n_cols != A->n || A->n < 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cholmod_create: A must be square with >= 1 block row (n %d, n_cols %d)",
                   A->n, A->n_cols);
  const int32_t nb = A->n;
  /* the upper triangle is read through the lower pattern below, so both must match */
  for (int32_t I = 0; I < nb; ++I)
    for (int64_t s = A->row_ptr[I]; s < A->row_ptr[I + 1]; ++s)
      if (A->col[s] > I && cl_bsr_find(A, A->col[s], I) < 0)
        return cl_fail(CL_ERR_INVALID_ARGUMENT,
                       "cl_cholmod_create: pattern is not symmetric: block (%d, %d) present, (%d, %d) missing",
                       I, A->col[s], A->col[s], I);
  /* count the upper triangle: column 3J+c holds 3 rows per block (I, J) with I < J, and c+1 rows
   * of the diagonal block */
  int64_t nnz = 0;
  for (int32_t J = 0; J < nb; ++J) {
    if (A->diag[J] < 0) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cholmod_create: node %d has no diagonal block", J);
    int64_t below = 0;
    for (int64_t s = A->row_ptr[J]; s < A->row_ptr[J + 1] && A->col[s] < J; ++s) ++below;
    nnz += 9 * below + 6;
  }
  cl_cholmod *c = cl_calloc(1, sizeof *c, "CHOLMOD solver");
  if (!c) return CL_ERR_OUT_OF_MEMORY;
  c->threads = 1;
  c->nb = nb;
  c->nnzb = A->nnzb;
  g_cholmod_msg[0] = '\0';
  cholmod_l_start(&c->cc);
  c->started = 1;
  c->cc.print = 0; /* no printing from a library: errors come back as cl_status messages */
  c->cc.error_handler = cholmod_handler;
  c->cc.supernodal = CHOLMOD_SUPERNODAL;   /* 3D FEM factors are dense enough for BLAS-3 supernodes */
  c->cc.quick_return_if_not_posdef = 1;    /* stop at the first bad pivot; we report it */
  const int64_t n = 3 * (int64_t)nb;
  c->A = cholmod_l_allocate_sparse((size_t)n, (size_t)n, (size_t)nnz, 1, 1, 1, CHOLMOD_REAL, &c->cc);
  c->map = cl_malloc(sizeof(int64_t) * (size_t)nnz, "CHOLMOD value map");
  if (!c->A || !c->map) {
    cl_status s = c->A ? CL_ERR_OUT_OF_MEMORY : cholmod_failure(c, "allocate_sparse");
    cl_cholmod_destroy(c);
    return s;
  }
  SuiteSparse_long *Ap = c->A->p, *Ai = c->A->i;
  int64_t k = 0;
  for (int32_t J = 0; J < nb; ++J)
    for (int comp = 0; comp < 3; ++comp) {
      const int64_t j = 3 * (int64_t)J + comp;
      Ap[j] = k;
      /* rows of column j in increasing order: blocks I <= J of row J (the pattern is symmetric,
       * so they are the blocks (I, J) of column J), component rows r */
      for (int64_t s = A->row_ptr[J]; s < A->row_ptr[J + 1] && A->col[s] <= J; ++s) {
        const int32_t I = A->col[s];
        const int64_t slot = I == J ? A->diag[J] : cl_bsr_find(A, I, J);
        if (slot < 0) {
          cl_cholmod_destroy(c);
          return cl_fail(CL_ERR_INVALID_ARGUMENT,
                         "cl_cholmod_create: pattern is not symmetric: block (%d, %d) present, (%d, %d) missing", J, I, I, J);
        }
        const int rmax = I == J ? comp : 2;
        for (int r = 0; r <= rmax; ++r) {
          Ai[k] = 3 * (int64_t)I + r;
          c->map[k] = 9 * slot + 3 * r + comp; /* A(3I+r, 3J+c) */
          ++k;
        }
      }
    }
  Ap[n] = k;
  memset(c->A->x, 0, sizeof(double) * (size_t)nnz); /* defined values until the first gather */
  if (fixed) {
    cl_status s = cl_cholmod_set_fixed(c, fixed);
    if (s < 0) {
      cl_cholmod_destroy(c);
      return s;
    }
  }
  c->st.n = n;
  c->st.nnz_a = nnz;
  *out = c;
  return CL_OK;
}

cl_status cl_cholmod_set_fixed(cl_cholmod *c, const uint8_t *fixed) {
  if (!c) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cholmod_set_fixed: NULL solver");
  if (!fixed) {
    free(c->fixed);
    c->fixed = NULL;
    return CL_OK;
  }
  const size_t n = 3 * (size_t)c->nb;
  if (!c->fixed) {
    c->fixed = cl_malloc(n, "CHOLMOD constraint mask");
    if (!c->fixed) return CL_ERR_OUT_OF_MEMORY;
  }
  memcpy(c->fixed, fixed, n);
  return CL_OK;
}

/* The own sweeps keep pointers into L and a cut of its elimination tree: both end with the analysis. */
static void drop_sweeps(cl_cholmod *c) {
  cl_supernodal_destroy(c->sn);
  c->sn = NULL;
  c->sn_ok = 0;
}

void cl_cholmod_invalidate_analysis(cl_cholmod *c) {
  if (!c) return;
  drop_sweeps(c);
  cholmod_l_free_factor(&c->L, &c->cc);
  c->factor_ok = 0;
}

/* S = the lower triangle of P A P^T for perm, with smap: entry k = (i, j) of A's upper triangle goes
 * to (row, col) = (max, min) of (iperm[i], iperm[j]). A counting sort by row, then one by column in
 * that order, leaves the rows of each column increasing, as CHOLMOD wants them. */
static cl_status permuted_lower(cl_cholmod *c) {
  const int64_t n = 3 * (int64_t)c->nb, nnz = (int64_t)((SuiteSparse_long *)c->A->p)[n];
  const SuiteSparse_long *Ap = c->A->p, *Ai = c->A->i;
  cholmod_l_free_sparse(&c->S, &c->cc);
  free(c->smap);
  c->smap = cl_malloc(sizeof(int64_t) * (size_t)(nnz + 1), "CHOLMOD permuted map");
  int64_t *iperm = cl_malloc(sizeof(int64_t) * (size_t)n, "CHOLMOD permutation");
  int64_t *rc = cl_malloc(sizeof(int64_t) * 2 * (size_t)(nnz + 1), "CHOLMOD permutation"); /* row, col */
  int64_t *order = cl_malloc(sizeof(int64_t) * (size_t)(nnz + 1), "CHOLMOD permutation");
  int64_t *next = cl_malloc(sizeof(int64_t) * ((size_t)n + 1), "CHOLMOD permutation");
  c->S = cholmod_l_allocate_sparse((size_t)n, (size_t)n, (size_t)nnz, 1, 1, -1, CHOLMOD_REAL, &c->cc);
  cl_status st = CL_OK;
  if (!c->smap || !iperm || !rc || !order || !next || !c->S) {
    st = c->S ? CL_ERR_OUT_OF_MEMORY : cholmod_failure(c, "allocate_sparse");
  } else {
    for (int64_t k = 0; k < n; ++k) iperm[c->perm[k]] = k;
    for (int64_t j = 0; j < n; ++j)
      for (SuiteSparse_long k = Ap[j]; k < Ap[j + 1]; ++k) {
        const int64_t a = iperm[Ai[k]], b = iperm[j];
        rc[2 * k] = a > b ? a : b;
        rc[2 * k + 1] = a > b ? b : a;
      }
    /* by row */
    for (int64_t r = 0; r <= n; ++r) next[r] = 0;
    for (int64_t k = 0; k < nnz; ++k) next[rc[2 * k] + 1]++;
    for (int64_t r = 0; r < n; ++r) next[r + 1] += next[r];
    for (int64_t k = 0; k < nnz; ++k) order[next[rc[2 * k]]++] = k;
    /* then by column, rows increasing within each */
    SuiteSparse_long *Sp = c->S->p, *Si = c->S->i;
    for (int64_t j = 0; j <= n; ++j) Sp[j] = 0;
    for (int64_t k = 0; k < nnz; ++k) Sp[rc[2 * k + 1] + 1]++;
    for (int64_t j = 0; j < n; ++j) Sp[j + 1] += Sp[j];
    for (int64_t j = 0; j < n; ++j) next[j] = Sp[j];
    for (int64_t q = 0; q < nnz; ++q) {
      const int64_t k = order[q], at = next[rc[2 * k + 1]]++;
      Si[at] = rc[2 * k];
      c->smap[at] = c->map[k];
    }
    memset(c->S->x, 0, sizeof(double) * (size_t)nnz);
  }
  free(iperm);
  free(rc);
  free(order);
  free(next);
  return st;
}

/* The fill-reducing ordering P is chosen on A (CHOLMOD's default methods, postordered); the factor is
 * then analysed for S = P A P^T in its natural order, without postordering (S's elimination tree is
 * already postordered, so the supernodes are the same). Why: cholmod_l_factorize takes a matrix of
 * a factor in natural order as it is, where for any other order it makes the permuted transpose at
 * every factorisation (cholmod_l_transpose_sym, with its allocations, was a quarter of the
 * factorisation of the multigrid's coarsest level); the permutation moves to the solves (two
 * gathers of 3n values). */
cl_status cl_cholmod_analyse(cl_cholmod *c) {
  if (!c) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cholmod_analyse: NULL solver");
  drop_sweeps(c);
  cholmod_l_free_factor(&c->L, &c->cc);
  c->factor_ok = 0;
  g_cholmod_msg[0] = '\0';
  const int64_t n = 3 * (int64_t)c->nb;
  double t0 = now_ms();
  cholmod_factor *L0 = cholmod_l_analyze(c->A, &c->cc); /* reads the pattern only */
  if (!L0 || c->cc.status < CHOLMOD_OK) {
    cholmod_l_free_factor(&L0, &c->cc);
    return cholmod_failure(c, "analyze");
  }
  const int ordering = L0->ordering;
  if (!c->perm) c->perm = cl_malloc(sizeof(SuiteSparse_long) * (size_t)n, "CHOLMOD permutation");
  if (!c->work) c->work = cl_malloc(sizeof(double) * (size_t)n, "CHOLMOD permuted vector");
  if (!c->perm || !c->work) {
    cholmod_l_free_factor(&L0, &c->cc);
    return CL_ERR_OUT_OF_MEMORY;
  }
  for (int64_t k = 0; k < n; ++k) c->perm[k] = L0->Perm ? ((const SuiteSparse_long *)L0->Perm)[k] : k;
  cholmod_l_free_factor(&L0, &c->cc);
  CL_TRY(permuted_lower(c));
  const int nmethods = c->cc.nmethods, method0 = c->cc.method[0].ordering, postorder = c->cc.postorder;
  c->cc.nmethods = 1;
  c->cc.method[0].ordering = CHOLMOD_NATURAL;
  c->cc.postorder = 0;
  c->L = cholmod_l_analyze(c->S, &c->cc);
  c->cc.nmethods = nmethods;
  c->cc.method[0].ordering = method0;
  c->cc.postorder = postorder;
  c->st.analyse_ms = now_ms() - t0;
  if (!c->L || c->cc.status < CHOLMOD_OK) {
    cholmod_l_free_factor(&c->L, &c->cc);
    return cholmod_failure(c, "analyze");
  }
  const SuiteSparse_long *P = c->L->Perm;
  for (int64_t k = 0; P && k < n; ++k)
    if (P[k] != k) {
      cholmod_l_free_factor(&c->L, &c->cc);
      return cl_fail(CL_ERR_EXTERNAL, "cl_cholmod_analyse: CHOLMOD reordered the permuted matrix (column %lld)",
                     (long long)k);
    }
  c->st.analyses++;
  c->st.nnz_l = c->cc.lnz;
  c->st.ordering = ordering;
  return CL_OK;
}

/* Gather values into S through its map; fixed dofs become identity rows/columns. Returns 0 on NaN/Inf. */
static int fill_values(cl_cholmod *c, const cl_bsr *A) {
  const int64_t n = 3 * (int64_t)c->nb;
  const SuiteSparse_long *Sp = c->S->p, *Si = c->S->i, *perm = c->perm;
  double *Sx = c->S->x;
  const double *v = A->val;
  const int64_t *map = c->smap;
  const uint8_t *fx = c->fixed;
  int ok = 1;
#pragma omp parallel for schedule(static) reduction(&& : ok) if (n > 6000)
  for (int64_t j = 0; j < n; ++j) {
    for (SuiteSparse_long k = Sp[j]; k < Sp[j + 1]; ++k) {
      double a = v[map[k]];
      if (fx && (fx[perm[j]] || fx[perm[Si[k]]])) a = (Si[k] == j) ? 1.0 : 0.0;
      ok = ok && isfinite(a);
      Sx[k] = a;
    }
  }
  return ok;
}

/* cholmod_l_factorize in no more threads than the caller asked for. CHOLMOD's supernodal numeric
 * factorisation (SuiteSparse 5) runs its scatter and assembly loops in OpenMP teams of
 * CHOLMOD_OMP_NUM_THREADS threads, a size fixed when the library was compiled (4 in Debian's
 * package) whatever the caller's count. On the 2-core benchmark machine the teams' start-ups and
 * barriers cost more than the loops gain: the multigrid's coarsest level on the Charpy bar (600
 * unknowns, 3.6 Mflop) took 1.9 ms per factorisation against 0.53 ms in one thread, and the whole
 * Charpy bar's matrix (20k unknowns, 2.0 Gflop) 140-205 ms with threads = 2 against 95 ms with the
 * teams kept in the calling thread (docs/solvers/graph_fem.md, "The coarsest level's cost"). So
 * unless the caller asked for at least a team's threads, the factorisation runs with
 * max-active-levels at the caller's active level (0 outside any parallel region): those regions run
 * in the calling thread alone. The loops assign disjoint entries, so the factor is the same to the
 * bit; the BLAS keeps the caller's count (cl_blas_set_threads). The setting is an ICV of the calling
 * task (OpenMP 5: per data environment) and is restored. */
static int factorize_in_threads(cl_cholmod *c) {
#ifdef _OPENMP
  if (c->threads < CHOLMOD_OMP_NUM_THREADS) {
    const int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(omp_get_active_level());
    const int ok = cholmod_l_factorize(c->S, c->L, &c->cc);
    omp_set_max_active_levels(levels);
    return ok;
  }
#endif
  return cholmod_l_factorize(c->S, c->L, &c->cc);
}

cl_status cl_cholmod_factorize(cl_cholmod *c, const cl_bsr *A) {
  if (!c || !A) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cholmod_factorize: NULL argument");
  if (A->n != c->nb || A->nnzb != c->nnzb)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "cl_cholmod_factorize: matrix has %d nodes and %lld blocks; the solver was built for %d and %lld",
                   A->n, (long long)A->nnzb, c->nb, (long long)c->nnzb);
  c->factor_ok = 0;
  c->st.factorizations++;
  if (!c->L) CL_TRY(cl_cholmod_analyse(c));
  if (!fill_values(c, A)) return cl_fail(CL_ERR_NUMERICAL, "cl_cholmod_factorize: the matrix has NaN or Inf entries");
  g_cholmod_msg[0] = '\0';
  cl_blas_set_threads(c->threads); /* the BLAS under the supernodal factor: the caller's threads */
  double t0 = now_ms();
  int ok = factorize_in_threads(c);
  c->st.factorize_ms = now_ms() - t0;
  c->st.flops = c->cc.fl;
  c->st.supernodal = c->L->is_super ? 1 : 0;
  if (c->cc.status == CHOLMOD_NOT_POSDEF) {
    /* L->minor is the first column whose pivot was not positive; report node and component */
    int64_t col = (int64_t)c->L->minor;
    int64_t orig = col; /* perm maps the factor's column to the matrix's */
    if (col < (int64_t)c->L->n) orig = c->perm[col];
    return cl_fail(CL_WARN_NOT_POSDEF,
                   "CHOLMOD: matrix not positive definite: non-positive pivot at column %lld of the factor "
                   "(dof %lld = node %lld, component %lld)", (long long)col, (long long)orig,
                   (long long)(orig / 3), (long long)(orig % 3));
  }
  if (!ok || c->cc.status < CHOLMOD_OK) return cholmod_failure(c, "factorize");
  c->factor_ok = 1;
  c->sn_ok = 0;
  if (c->solve_mode != CL_CHOLMOD_SOLVE_CHOLMOD && c->L->is_super && c->L->is_ll) {
    cl_status r = cl_supernodal_update(&c->sn, c->L, c->solve_mode == CL_CHOLMOD_SOLVE_SINGLE
                                                         ? CL_SUPERNODAL_SINGLE : CL_SUPERNODAL_DOUBLE);
    if (r < 0) return cl_fail_context(r, "cl_cholmod_factorize: ");
    cl_supernodal_set_perm(c->sn, c->perm); /* L is of P A P^T: the sweeps apply P */
    c->sn_ok = 1;
  }
  return CL_OK;
}

cl_status cl_cholmod_solve(cl_cholmod *c, const double *b, double *x) {
  if (!c || !b || !x) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cholmod_solve: NULL argument");
  if (!c->factor_ok)
    return cl_fail(CL_ERR_STATE, "cl_cholmod_solve: no valid factorisation (factorize first, or the last one failed)");
  const int64_t n = 3 * (int64_t)c->nb;
  double t0 = now_ms();
  if (c->sn_ok) { /* the sweeps apply P themselves */
    cl_supernodal_solve(c->sn, b, x, c->threads);
    int finite = 1;
    for (int64_t i = 0; i < n; ++i) finite = finite && isfinite(x[i]);
    if (!finite)
      return cl_fail(CL_ERR_NUMERICAL, "cl_cholmod_solve: the solution has NaN or Inf (right-hand side or factor)");
    c->st.solve_ms = now_ms() - t0;
    c->st.solves++;
    return CL_OK;
  }
  /* CHOLMOD's solve with the factor of P A P^T (natural order): B wraps P b, which solve2 only reads;
   * X is CHOLMOD's own (solve2 may reallocate a wrong-sized X, which must not be our memory) */
  double *y = c->work;
  for (int64_t k = 0; k < n; ++k) y[k] = b[c->perm[k]];
  cholmod_dense B;
  memset(&B, 0, sizeof B);
  B.nrow = (size_t)n;
  B.ncol = 1;
  B.nzmax = (size_t)n;
  B.d = (size_t)n;
  B.x = y;
  B.xtype = CHOLMOD_REAL;
  B.dtype = CHOLMOD_DOUBLE;
  g_cholmod_msg[0] = '\0';
  int ok = cholmod_l_solve2(CHOLMOD_A, c->L, &B, NULL, &c->X, NULL, &c->Y, &c->E, &c->cc);
  if (!ok || !c->X || c->cc.status < CHOLMOD_OK) return cholmod_failure(c, "solve2");
  const double *ys = c->X->x;
  int finite = 1;
  for (int64_t k = 0; k < n; ++k) finite = finite && isfinite(ys[k]);
  if (!finite) return cl_fail(CL_ERR_NUMERICAL, "cl_cholmod_solve: the solution has NaN or Inf (right-hand side or factor)");
  for (int64_t k = 0; k < n; ++k) x[c->perm[k]] = ys[k]; /* x = P^T y */
  c->st.solve_ms = now_ms() - t0;
  c->st.solves++;
  return CL_OK;
}

cl_status cl_cholmod_precond(void *ctx, const double *r, double *z) {
  return cl_cholmod_solve((cl_cholmod *)ctx, r, z);
}

void cl_cholmod_get_stats(const cl_cholmod *c, cl_cholmod_stats *stats) {
  if (!stats) return;
  if (!c) {
    memset(stats, 0, sizeof *stats);
    return;
  }
  *stats = c->st;
}

cl_status cl_cholmod_set_solve_mode(cl_cholmod *c, cl_cholmod_solve_mode mode, int threads) {
  if (!c) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cholmod_set_solve_mode: NULL solver");
  if (threads < 1 || threads > 1024)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cholmod_set_solve_mode: threads = %d is outside [1, 1024]", threads);
  c->threads = threads;
  if ((int)mode < CL_CHOLMOD_SOLVE_CHOLMOD || (int)mode > CL_CHOLMOD_SOLVE_SINGLE)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_cholmod_set_solve_mode: mode %d is outside [0, 2]", (int)mode);
  if ((int)mode == c->solve_mode) return CL_OK;
  c->solve_mode = (int)mode;
  c->sn_ok = 0; /* takes effect at the next factorisation */
  return CL_OK;
}
