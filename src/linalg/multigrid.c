/* The Galerkin multigrid's hierarchy: analysis (grid, sampling, transfers, plans) and set-up (Galerkin
 * products, smoothers, coarse factor). See multigrid.h; the cycle is in multigrid_cycle.c. */
#include "linalg/multigrid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/timer.h"
#include "linalg/multigrid_internal.h"
#include "linalg/multigrid_sampling.h"
#include "linalg/vec.h"

static void free_levels(cl_mg *mg) {
  for (int32_t l = 0; l < CL_MG_MAX_COARSE + 1; ++l) {
    mg_level *L = &mg->lev[l];
    cl_bsr_destroy(L->own);
    cl_mg_transfer_free(&L->T);
    cl_mg_galerkin_free(&L->G);
    free(L->handles);
    free(L->dinv);
    free(L->trace);
    free(L->list);
    free(L->mark);
    free(L->raised);
    cl_node_coloring_free(&L->colors);
    free(L->b);
    free(L->x);
    free(L->r);
    memset(L, 0, sizeof *L);
  }
  cl_mg_coarse_free(&mg->coarse);
  free(mg->fixed);
  free(mg->changed);
  mg->fixed = NULL;
  mg->changed = NULL;
  mg->nlev = 0;
  mg->usable = 0;
  mg->has_fixed = 0;
}

cl_status cl_mg_create(cl_mg **out) {
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mg_create: out is NULL");
  *out = cl_calloc(1, sizeof **out, "Galerkin multigrid");
  return *out ? CL_OK : CL_ERR_OUT_OF_MEMORY;
}

void cl_mg_destroy(cl_mg *mg) {
  if (!mg) return;
  free_levels(mg);
  free(mg);
}

static cl_status check_positions(const cl_linear_solver_def *def, int32_t n) {
  if (!def->mg_positions)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "parameter 'mg_positions' is NULL: the Galerkin multigrid needs the rest positions of the %d nodes "
                   "(3 per node, m) to sample its levels and build its prolongation", n);
  if (def->mg_position_count != n)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "parameter 'mg_position_count' = %d must equal the matrix's %d block rows (one position per node)",
                   def->mg_position_count, n);
  for (int64_t d = 0; d < 3 * (int64_t)n; ++d)
    if (!isfinite(def->mg_positions[d]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "parameter 'mg_positions': coordinate %lld of node %lld is %g (not finite)",
                     (long long)(d % 3), (long long)(d / 3), def->mg_positions[d]);
  return CL_OK;
}

static cl_status alloc_vectors(mg_level *L, int32_t n, int smoothed) {
  const size_t n3 = 3 * (size_t)n + 1;
  L->b = cl_malloc(sizeof(double) * n3, "multigrid level vectors");
  L->x = cl_calloc(n3, sizeof(double), "multigrid level vectors");
  L->r = cl_malloc(sizeof(double) * n3, "multigrid level vectors");
  if (smoothed) L->dinv = cl_malloc(sizeof(double) * 3 * n3, "multigrid smoother diagonal");
  return L->b && L->x && L->r && (!smoothed || L->dinv) ? CL_OK : CL_ERR_OUT_OF_MEMORY;
}

/* The transfers of every level (sec 3.3): one farthest point sampling whose prefixes are the levels'
 * handles, a geodesic Voronoi partition per level, and the frames of the composite clusters. */
static cl_status build_transfers(cl_mg *mg, const cl_mg_grid *grid, const cl_bsr *A, const double *x) {
  const int32_t n = A->n, kmax = grid->count[0];
  double *len = cl_malloc(sizeof(double) * ((size_t)A->nnzb + 1), "multigrid edge lengths");
  double *dist = cl_malloc(sizeof(double) * (size_t)n, "multigrid distances");
  int32_t *picks = cl_malloc(sizeof(int32_t) * (size_t)kmax, "multigrid samples");
  int32_t *label = cl_malloc(sizeof(int32_t) * (size_t)n, "multigrid labels");
  int32_t *comp = cl_malloc(sizeof(int32_t) * (size_t)n, "multigrid labels");
  int32_t *parent = cl_malloc(sizeof(int32_t) * (size_t)kmax, "multigrid labels");
  cl_mg_frame *frames = cl_malloc(sizeof(cl_mg_frame) * (size_t)kmax, "multigrid frames");
  cl_status st = len && dist && picks && label && comp && parent && frames ? CL_OK : CL_ERR_OUT_OF_MEMORY;
  if (st >= 0) {
    cl_mg_edge_lengths(A, x, len);
    st = cl_mg_farthest_points(A, len, kmax, picks, NULL);
  }
  for (int32_t l = 0; st >= 0 && l < grid->coarse_levels; ++l) {
    const int32_t k = grid->count[l];
    mg_level *C = &mg->lev[l + 1];
    C->nhandles = k;
    C->handles = cl_malloc(sizeof(int32_t) * (size_t)k, "multigrid handles");
    if (!C->handles) {
      st = CL_ERR_OUT_OF_MEMORY;
      break;
    }
    memcpy(C->handles, picks, sizeof(int32_t) * (size_t)k);
    /* every node to its nearest handle of this level, along the mesh */
    st = cl_mg_geodesic_voronoi(A, len, picks, k, dist, label);
    if (st < 0) break;
    if (l == 0) {
      memcpy(comp, label, sizeof(int32_t) * (size_t)n);
      st = cl_mg_transfer_from_nodes(n, x, label, k, &mg->lev[0].T);
    } else {
      /* a finer handle (itself a mesh node) to the handle nearest to its node; the composite cluster
       * of each node follows */
      const int32_t kf = grid->count[l - 1];
      for (int32_t j = 0; j < kf; ++j) parent[j] = label[picks[j]];
      for (int32_t i = 0; i < n; ++i) comp[i] = comp[i] >= 0 ? parent[comp[i]] : -1;
      st = cl_mg_frames(n, x, comp, k, frames);
      if (st >= 0) st = cl_mg_transfer_from_handles(kf, mg->lev[l - 1].T.frame, parent, k, frames, &mg->lev[l].T);
    }
  }
  free(len);
  free(dist);
  free(picks);
  free(label);
  free(comp);
  free(parent);
  free(frames);
  return st;
}

cl_status cl_mg_analyse(cl_mg *mg, const cl_linear_solver_def *def, const cl_bsr *A) {
  const uint64_t t0 = cl_time_ns();
  free_levels(mg);
  memset(&mg->st, 0, sizeof mg->st);
  cl_mg_grid grid;
  CL_TRY(cl_mg_grid_parse(def->mg_grid, &grid));
  CL_TRY(cl_mg_grid_check(&grid, def->mg_grid, A->n, cl_mg_connected_nodes(A)));
  CL_TRY(check_positions(def, A->n));
  mg->threads = def->threads;
  mg->lev[0].A = A;
  cl_status st = build_transfers(mg, &grid, A, def->mg_positions);
  mg->nlev = 1 + grid.coarse_levels;
  for (int32_t l = 0; st >= 0 && l + 1 < mg->nlev; ++l) {
    st = cl_mg_galerkin_analyse(mg->lev[l].A, &mg->lev[l].T, mg->threads, &mg->lev[l].G, &mg->lev[l + 1].own);
    if (st >= 0) mg->lev[l + 1].A = mg->lev[l + 1].own;
  }
  for (int32_t l = 0; st >= 0 && l < mg->nlev; ++l) {
    mg->lev[l].blocks = mg->lev[l].A->nnzb;
    st = alloc_vectors(&mg->lev[l], mg->lev[l].A->n, l + 1 < mg->nlev);
    if (st >= 0 && l >= 1) {
      const size_t nh = (size_t)mg->lev[l].A->n / 4 + 1;
      mg->lev[l].trace = cl_calloc(nh, sizeof(double), "multigrid traces");
      mg->lev[l].list = cl_malloc(sizeof(int32_t) * nh, "multigrid traces");
      mg->lev[l].mark = cl_calloc(nh, 1, "multigrid traces");
      mg->lev[l].raised = cl_calloc(nh, 1, "multigrid traces");
      if (!mg->lev[l].trace || !mg->lev[l].list || !mg->lev[l].mark || !mg->lev[l].raised) st = CL_ERR_OUT_OF_MEMORY;
    }
    /* for every smoother: cl_linear_solver_configure may choose the coloured one after the analysis */
    if (st >= 0 && l + 1 < mg->nlev) st = cl_node_coloring_make(mg->lev[l].A, CL_MG_COLOR_BLOCK, &mg->lev[l].colors);
  }
  if (st >= 0) st = cl_mg_coarse_analyse(&mg->coarse, def, mg->lev[mg->nlev - 1].A);
  if (st >= 0) {
    mg->fixed = cl_calloc(3 * (size_t)A->n + 1, 1, "multigrid mask");
    mg->changed = cl_malloc(sizeof(int32_t) * ((size_t)A->n + 1), "multigrid mask");
    if (!mg->fixed || !mg->changed) st = CL_ERR_OUT_OF_MEMORY;
  }
  if (st < 0) {
    free_levels(mg);
    return st;
  }
  mg->lev[0].A = NULL; /* the set-up gives the matrix */
  mg->st.levels = mg->nlev;
  mg->st.analyse_ms = 1e-6 * (double)(cl_time_ns() - t0);
  return CL_OK;
}

int cl_mg_usable(const cl_mg *mg) { return mg && mg->usable; }

int cl_mg_same_mask(const cl_mg *mg, const uint8_t *fixed) {
  if (!mg || !mg->fixed || mg->nlev < 1) return 0;
  const size_t n3 = 3 * (size_t)mg->lev[0].T.n_fine;
  if (!fixed) return !mg->has_fixed;
  if (!mg->has_fixed) {
    for (size_t d = 0; d < n3; ++d)
      if (fixed[d]) return 0;
    return 1;
  }
  return memcmp(fixed, mg->fixed, n3) == 0;
}

static int all_finite(const cl_bsr *A) {
  const int64_t m = 9 * A->nnzb;
  int ok = 1;
#pragma omp parallel for schedule(static) reduction(& : ok) if (m > 200000)
  for (int64_t q = 0; q < m; ++q) ok &= isfinite(A->val[q]) ? 1 : 0;
  return ok;
}

/* Whether the rows of A's nodes that no handle gathers are finite: the nodes in no element (their row
 * is their diagonal block), which the Galerkin product does not read. nodes: those to look at
 * (count of them), or all n when NULL. */
static int loose_rows_finite(const cl_bsr *A, const cl_mg_transfer *T, const int32_t *nodes, int32_t count) {
  const int32_t m = nodes ? count : A->n;
  for (int32_t q = 0; q < m; ++q) {
    const int32_t i = nodes ? nodes[q] : q;
    if (T->handle[i] >= 0) continue;
    const int64_t s0 = A->row_ptr[i];
    if (!cl_vec_all_finite(9 * (A->row_ptr[i + 1] - s0), A->val + 9 * s0)) return 0;
  }
  return 1;
}

/* Level l + 1's matrix made again from level l's: all of it, or (rows != NULL) its handle rows rows[]
 * only. Regularised as it is made; the first handle that shows A not positive definite is noted.
 * Returns whether the rows of level l's matrix the product read are finite (level 0: the check of the
 * set-up's matrix, folded into the product, which reads all of it but the loose rows); when not, the
 * new matrix is left unregularised and unusable. */
static int coarse_level(cl_mg *mg, const cl_linear_solver_def *def, int32_t l, const int32_t *rows, int32_t count,
                        int32_t *bad_level, int32_t *bad_handle, double *bad_pivot) {
  mg_level *L = &mg->lev[l], *C = &mg->lev[l + 1];
  const uint8_t *mask = l == 0 && mg->has_fixed ? mg->fixed : NULL;
  int32_t bh;
  double bp;
  if (rows) {
    if (!cl_mg_galerkin_product_rows(&L->G, &L->T, L->A, mask, def->threads, rows, count, C->own)) return 0;
    cl_mg_regularize_handles(&L->G, &L->T, mask, def->mg_regularization, C->own, rows, count, C->trace, C->raised,
                             &bh, &bp);
  } else {
    if (!cl_mg_galerkin_product(&L->G, &L->T, L->A, mask, def->threads, C->own)) return 0;
    cl_mg_regularize(&L->G, &L->T, mask, def->mg_regularization, C->own, C->trace, C->raised, &bh, &bp);
  }
  C->regularized = 0; /* the kept rows' pivots count as the set-up raised them */
  for (int32_t k = 0; k < L->T.n_handles; ++k) C->regularized += C->raised[k];
  if (bh >= 0 && *bad_level < 0) {
    *bad_level = l + 1;
    *bad_handle = bh;
    *bad_pivot = bp;
  }
  return 1;
}

static cl_status non_finite(int *reason) {
  *reason = CL_SOLVE_NON_FINITE;
  return cl_fail(CL_ERR_NUMERICAL, "Galerkin multigrid set-up: the matrix has NaN or Inf entries");
}

/* After the coarse matrices: the bad-pivot verdict, the smoothers' diagonal blocks and the coarse
 * factor; the hierarchy is usable on success. */
static cl_status finish_setup(cl_mg *mg, const cl_linear_solver_def *def, int32_t bad_level, int32_t bad_handle,
                              double bad_pivot, const int32_t *nodes0, int32_t count0, int *reason) {
  const uint8_t *mask = mg->has_fixed ? mg->fixed : NULL;
  if (bad_level >= 0) {
    *reason = CL_SOLVE_NOT_POSDEF;
    return cl_fail(CL_WARN_NOT_POSDEF,
                   "Galerkin multigrid set-up: the matrix is not positive definite on the free dofs (the coarse "
                   "matrix of level %d has the pivot %.3g times its mean diagonal at handle %d, where the "
                   "prolongation is not degenerate)", bad_level, bad_pivot, bad_handle);
  }
  for (int32_t l = 0; l + 1 < mg->nlev; ++l) {
    /* nodes0: only these level-0 blocks changed (cl_mg_update_mask) */
    cl_status s = l == 0 && nodes0 ? cl_bsr_diag_inverse_nodes(mg->lev[0].A, mask, nodes0, count0, mg->lev[0].dinv)
                                   : cl_bsr_diag_inverse(mg->lev[l].A, l == 0 ? mask : NULL, mg->lev[l].dinv);
    if (s < 0) {
      *reason = CL_SOLVE_NOT_POSDEF;
      return cl_fail_context(CL_WARN_NOT_POSDEF, "Galerkin multigrid set-up, smoother of level %d: ", l);
    }
  }
  const uint64_t tc = cl_time_ns();
  cl_status s = cl_mg_coarse_factor(&mg->coarse, def, mg->lev[mg->nlev - 1].A);
  mg->st.coarse_factor_ms = 1e-6 * (double)(cl_time_ns() - tc);
  if (s != CL_OK) {
    *reason = s == CL_WARN_NOT_POSDEF ? CL_SOLVE_NOT_POSDEF : s == CL_ERR_NUMERICAL ? CL_SOLVE_NON_FINITE : CL_SOLVE_INVALID;
    if (s == CL_WARN_NOT_POSDEF) s = cl_fail_context(s, "Galerkin multigrid set-up, coarsest level: ");
    return s;
  }
  mg->usable = 1;
  return CL_OK;
}

static void set_mask(cl_mg *mg, const uint8_t *fixed, size_t n3) {
  mg->has_fixed = 0;
  if (fixed)
    for (size_t d = 0; d < n3 && !mg->has_fixed; ++d) mg->has_fixed = fixed[d] != 0;
  if (mg->has_fixed) memcpy(mg->fixed, fixed, n3);
  else memset(mg->fixed, 0, n3);
}

cl_status cl_mg_setup(cl_mg *mg, const cl_linear_solver_def *def, const cl_bsr *A, const uint8_t *fixed,
                      int *reason) {
  const uint64_t t0 = cl_time_ns();
  mg->usable = 0;
  mg->st.setups++;
  mg->lev[0].A = A;
  set_mask(mg, fixed, 3 * (size_t)A->n);
  /* eq 14, level by level, each coarse matrix made positive definite where P's null space leaves it
   * singular (degenerate clusters, fixed clusters); the first product checks A's values as it reads
   * them, and the loose rows it does not read are checked apart */
  const uint64_t tg = cl_time_ns();
  int32_t bad_level = -1, bad_handle = -1;
  double bad_pivot = 0.0;
  if (!loose_rows_finite(A, &mg->lev[0].T, NULL, 0)) return non_finite(reason);
  for (int32_t l = 0; l + 1 < mg->nlev; ++l)
    if (!coarse_level(mg, def, l, NULL, 0, &bad_level, &bad_handle, &bad_pivot) && l == 0) return non_finite(reason);
  mg->st.galerkin_ms = 1e-6 * (double)(cl_time_ns() - tg);
  const cl_status s = finish_setup(mg, def, bad_level, bad_handle, bad_pivot, NULL, 0, reason);
  if (s != CL_OK) return s; /* warnings too: the hierarchy is not usable */
  mg->st.setup_ms = 1e-6 * (double)(cl_time_ns() - t0);
  return CL_OK;
}

cl_status cl_mg_update_mask(cl_mg *mg, const cl_linear_solver_def *def, const cl_bsr *A, const uint8_t *fixed,
                            int *reason) {
  const int32_t n = A->n;
  if (!mg->usable || mg->nlev < 2 || A != mg->lev[0].A) return cl_mg_setup(mg, def, A, fixed, reason);
  /* the nodes whose mask changes, and the handles of level 1 whose rows read them: their own and
   * their neighbours' (a row of A_1 gathers the blocks (a, b) of its members a) */
  mg_level *L = &mg->lev[0], *C = &mg->lev[1];
  const int32_t nh = L->T.n_handles;
  int32_t changed = 0, count = 0;
  for (int32_t k = 0; k < nh; ++k) C->mark[k] = 0;
  for (int32_t i = 0; i < n; ++i) {
    int differs = 0;
    for (int c = 0; c < 3; ++c) {
      const int now = fixed ? fixed[3 * (int64_t)i + c] != 0 : 0;
      differs |= now != (mg->fixed[3 * (int64_t)i + c] != 0);
    }
    if (!differs) continue;
    mg->changed[changed++] = i;
    for (int64_t s = A->row_ptr[i]; s < A->row_ptr[i + 1]; ++s) {
      const int32_t k = L->T.handle[A->col[s]];
      if (k >= 0) C->mark[k] = 1;
    }
  }
  if (changed > n / 4) return cl_mg_setup(mg, def, A, fixed, reason); /* a new set-up costs no more */
  const uint64_t t0 = cl_time_ns();
  mg->usable = 0;
  mg->st.mask_updates++;
  set_mask(mg, fixed, 3 * (size_t)n);
  for (int32_t k = 0; k < nh; ++k)
    if (C->mark[k]) C->list[count++] = k;
  const uint64_t tg = cl_time_ns();
  int32_t bad_level = -1, bad_handle = -1;
  double bad_pivot = 0.0;
  /* the values that changed are in the rows of the changed nodes and of their neighbours, which the
   * rows made again read: checked there */
  if (!loose_rows_finite(A, &L->T, mg->changed, changed) ||
      !coarse_level(mg, def, 0, C->list, count, &bad_level, &bad_handle, &bad_pivot))
    return non_finite(reason);
  for (int32_t l = 1; l + 1 < mg->nlev; ++l) coarse_level(mg, def, l, NULL, 0, &bad_level, &bad_handle, &bad_pivot);
  mg->st.galerkin_ms = 1e-6 * (double)(cl_time_ns() - tg);
  const cl_status s = finish_setup(mg, def, bad_level, bad_handle, bad_pivot, mg->changed, changed, reason);
  if (s != CL_OK) return s; /* warnings too: the hierarchy is not usable */
  mg->st.setup_ms = 1e-6 * (double)(cl_time_ns() - t0);
  return CL_OK;
}

cl_status cl_mg_refresh_fine(cl_mg *mg, const cl_bsr *A, int *reason) {
  if (!mg->usable) {
    *reason = CL_SOLVE_INVALID;
    return cl_fail(CL_ERR_STATE, "Galerkin multigrid: no usable set-up to keep");
  }
  const uint64_t t0 = cl_time_ns();
  mg->usable = 0;
  mg->lev[0].A = A;
  if (!all_finite(A)) return non_finite(reason); /* no Galerkin product here to fold the check into */
  cl_status s = cl_bsr_diag_inverse(A, mg->has_fixed ? mg->fixed : NULL, mg->lev[0].dinv);
  if (s < 0) {
    *reason = CL_SOLVE_NOT_POSDEF;
    return cl_fail_context(CL_WARN_NOT_POSDEF, "Galerkin multigrid set-up, smoother of level 0: ");
  }
  mg->usable = 1;
  mg->st.reuses++;
  mg->st.galerkin_ms = mg->st.coarse_factor_ms = 0.0;
  mg->st.setup_ms = 1e-6 * (double)(cl_time_ns() - t0);
  return CL_OK;
}

cl_status cl_mg_refresh_smoother(cl_mg *mg, const cl_bsr *A) {
  if (!mg->usable || !mg->lev[0].dinv || mg->lev[0].A != A) return CL_OK;
  cl_status s = cl_bsr_diag_inverse(A, mg->has_fixed ? mg->fixed : NULL, mg->lev[0].dinv);
  if (s < 0) return cl_fail_context(CL_WARN_NOT_POSDEF, "Galerkin multigrid, smoother of level 0: ");
  return CL_OK;
}

void cl_mg_note_solve(cl_mg *mg, double ms, int32_t cycles, double factor) {
  if (!mg) return;
  mg->st.solve_ms = ms;
  mg->st.cycle_factor = cycles > 0 ? factor : 0.0;
}

void cl_mg_get_stats(const cl_mg *mg, cl_mg_stats *out) {
  if (!out) return;
  memset(out, 0, sizeof *out);
  if (!mg) return;
  *out = mg->st;
  if (mg->coarse.ls) {
    cl_linear_solver_stats cs;
    cl_linear_solver_get_stats(mg->coarse.ls, &cs);
    out->coarse_factorizations = cs.factorizations;
    out->coarse_iterations = mg->coarse.iterations;
  }
  for (int32_t l = 0; l < mg->nlev; ++l) {
    const mg_level *L = &mg->lev[l];
    cl_mg_level_stats *o = &out->level[l];
    o->nodes = l == 0 ? L->T.n_fine : L->own->n;
    o->handles = L->nhandles;
    o->blocks = L->blocks;
    o->degenerate = l >= 1 ? mg->lev[l - 1].T.degenerate : 0;
    o->regularized = L->regularized;
    o->smooth_ms = L->ms;
    o->colors = L->colors.colors;
  }
}

const cl_bsr *cl_mg_level_matrix(const cl_mg *mg, int32_t l) {
  return mg && l >= 0 && l < mg->nlev ? mg->lev[l].A : NULL;
}

const cl_mg_transfer *cl_mg_level_transfer(const cl_mg *mg, int32_t l) {
  return mg && l >= 0 && l + 1 < mg->nlev ? &mg->lev[l].T : NULL;
}

const int32_t *cl_mg_level_handles(const cl_mg *mg, int32_t l) {
  return mg && l >= 1 && l < mg->nlev ? mg->lev[l].handles : NULL;
}
