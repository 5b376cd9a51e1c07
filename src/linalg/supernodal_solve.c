/* Supernodal triangular solves for one right-hand side (see supernodal_solve.h for why). */
#include "linalg/supernodal_solve.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

/* A thread's share of the elimination tree: subtrees, each a contiguous range of supernodes in
 * CHOLMOD's postorder (a subtree's columns are [first column, last column], and every row of its
 * supernodes is either in that range or belongs to an ancestor outside the subtree: the "top"). */
typedef struct sn_range {
  int64_t first, last;   /* supernodes */
  int64_t last_col;      /* the subtree's last column: rows above it are top rows */
} sn_range;

struct cl_supernodal {
  int64_t n, nsuper;
  /* CHOLMOD's arrays, owned by the factor (valid until it is re-analysed or freed; the owner calls
   * cl_supernodal_update after every factorisation) */
  const SuiteSparse_long *super, *pi, *px, *rows, *perm;
  const double *xd;  /* values in double: the factor's own */
  float *xf;         /* values in single precision: a copy */
  size_t xf_cap;
  int precision;
  double *y;         /* n: the permuted right-hand side, solved in place */
  double *w;         /* largest supernode height: the rectangle below a diagonal block */
  int64_t w_cap, y_cap;
  /* tree parallelism (parts > 1): per part a list of subtrees; the rest ("top") in order. Part t runs on
   * thread t when there are enough threads, one after the other otherwise */
  int parts;
  int64_t *range_ofs;    /* parts + 1: part t owns ranges[range_ofs[t] .. range_ofs[t+1]) */
  sn_range *ranges;
  int64_t *top;          /* supernodes outside every subtree, ascending */
  int64_t ntop;
  double *ytop;          /* parts x n: each part's updates of top rows in the forward sweep */
  double *wt;            /* parts x w_cap: per-part scratch */
  int64_t *parent, *first_desc, *col_super; /* nsuper, nsuper, n */
  double *work;          /* nsuper: entries of L in the subtree */
  int64_t part_cap_super, part_cap_n;
};

void cl_supernodal_destroy(cl_supernodal *s) {
  if (!s) return;
  free(s->xf);
  free(s->y);
  free(s->w);
  free(s->range_ofs);
  free(s->ranges);
  free(s->top);
  free(s->ytop);
  free(s->wt);
  free(s->parent);
  free(s->first_desc);
  free(s->col_super);
  free(s->work);
  free(s);
}

/* The tree is always cut into this many parts, whatever the thread count, so that the result is
 * bitwise the same with 1 or 2 threads (the parts then run one after the other). */
enum { CL_SUPERNODAL_PARTS = 2 };

static cl_status partition_tree(cl_supernodal *s, int parts);

cl_status cl_supernodal_update(cl_supernodal **out, const cholmod_factor *L, cl_supernodal_precision precision) {
  if (!out || !L) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_supernodal_update: NULL argument");
  if (!L->is_super || !L->is_ll || L->xtype != CHOLMOD_REAL || !L->x || L->itype != CHOLMOD_LONG)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "cl_supernodal_update: the factor is not a numeric supernodal LL' factor of a real matrix "
                   "with 64-bit indices (is_super %d, is_ll %d, xtype %d)", L->is_super, L->is_ll, L->xtype);
  cl_supernodal *s = *out;
  const int fresh = s == NULL;
  if (!s) {
    s = cl_calloc(1, sizeof *s, "supernodal solve");
    if (!s) return cl_fail(CL_ERR_OUT_OF_MEMORY, "cl_supernodal_update: out of memory");
    *out = s;
  }
  s->n = (int64_t)L->n;
  s->nsuper = (int64_t)L->nsuper;
  s->super = L->super;
  s->pi = L->pi;
  s->px = L->px;
  s->rows = L->s;
  s->perm = L->Perm;
  s->xd = L->x;
  s->precision = (int)precision;
  int64_t hmax = 0;
  for (int64_t k = 0; k < s->nsuper; ++k) {
    const int64_t h = (int64_t)(s->pi[k + 1] - s->pi[k]);
    if (h > hmax) hmax = h;
  }
  if (hmax > s->w_cap) {
    free(s->w);
    s->w = cl_malloc((size_t)hmax * sizeof(double), "supernodal solve scratch");
    s->w_cap = s->w ? hmax : 0;
  }
  if (s->n > s->y_cap) {
    free(s->y);
    s->y = cl_malloc((size_t)s->n * sizeof(double), "supernodal solve scratch");
    s->y_cap = s->y ? s->n : 0;
  }
  if (!s->w || !s->y) return cl_fail(CL_ERR_OUT_OF_MEMORY, "cl_supernodal_update: out of memory");
  if (precision == CL_SUPERNODAL_SINGLE) {
    const size_t nx = (size_t)L->xsize;
    if (nx > s->xf_cap) {
      free(s->xf);
      s->xf = cl_malloc(nx * sizeof(float), "single-precision factor");
      s->xf_cap = s->xf ? nx : 0;
      if (!s->xf) return cl_fail(CL_ERR_OUT_OF_MEMORY, "cl_supernodal_update: out of memory (%zu values)", nx);
    }
    const double *x = L->x;
    for (size_t k = 0; k < nx; ++k) s->xf[k] = (float)x[k];
  }
  /* the tree depends on the symbolic analysis only: cut it once per analysis (the owner destroys this
   * structure when it re-analyses), not at every refactorisation */
  return fresh ? partition_tree(s, CL_SUPERNODAL_PARTS) : CL_OK;
}

/* ---- tree partition ---------------------------------------------------------------------------- */

/* LPT assignment of the candidate subtrees to `parts` bins; returns the largest bin's work. */
static double assign_bins(const double *work, const int64_t *cand, int64_t ncand, int parts, int *bin_of) {
  double load[64] = {0};
  double maxload = 0.0;
  for (int64_t q = 0; q < ncand; ++q) { /* cand is sorted by decreasing work */
    int best = 0;
    for (int t = 1; t < parts; ++t)
      if (load[t] < load[best]) best = t;
    load[best] += work[cand[q]];
    bin_of[q] = best;
    if (load[best] > maxload) maxload = load[best];
  }
  return maxload;
}

/* Insertion into cand (sorted by decreasing work, ties by index) */
static void cand_insert(int64_t *cand, int64_t *ncand, const double *work, int64_t k) {
  int64_t q = *ncand;
  while (q > 0 && (work[cand[q - 1]] < work[k] || (work[cand[q - 1]] == work[k] && cand[q - 1] > k))) {
    cand[q] = cand[q - 1];
    --q;
  }
  cand[q] = k;
  (*ncand)++;
}

/* Split the supernodal elimination tree into per-thread subtrees and a serial top (a simple form
 * of the subtree-to-thread mapping of parallel sparse triangular solves): starting from the roots,
 * the heaviest candidate subtree is opened (its root joins the top, its children become candidates)
 * while that lowers the estimated time, top work + the largest thread's share. Deterministic. */
static cl_status partition_tree(cl_supernodal *s, int parts) {
  const int64_t ns = s->nsuper, n = s->n;
  s->parts = 1;
  if (parts < 2 || ns < 2) return CL_OK;
  if (parts > 64) parts = 64;
  if (ns > s->part_cap_super || n > s->part_cap_n) {
    free(s->parent), free(s->first_desc), free(s->col_super), free(s->work), free(s->top), free(s->ranges);
    s->parent = cl_malloc(sizeof(int64_t) * (size_t)ns, "supernodal tree");
    s->first_desc = cl_malloc(sizeof(int64_t) * (size_t)ns, "supernodal tree");
    s->work = cl_malloc(sizeof(double) * (size_t)ns, "supernodal tree");
    s->top = cl_malloc(sizeof(int64_t) * (size_t)ns, "supernodal tree");
    s->ranges = cl_malloc(sizeof(sn_range) * (size_t)ns, "supernodal tree");
    s->col_super = cl_malloc(sizeof(int64_t) * (size_t)n, "supernodal tree");
    if (!s->parent || !s->first_desc || !s->work || !s->top || !s->ranges || !s->col_super) {
      s->part_cap_super = s->part_cap_n = 0;
      return cl_fail(CL_ERR_OUT_OF_MEMORY, "supernodal solve: out of memory for the tree partition");
    }
    s->part_cap_super = ns;
    s->part_cap_n = n;
  }
  int64_t *parent = s->parent, *first = s->first_desc, *cs = s->col_super;
  double *work = s->work;
  for (int64_t k = 0; k < ns; ++k)
    for (int64_t c = (int64_t)s->super[k]; c < (int64_t)s->super[k + 1]; ++c) cs[c] = k;
  for (int64_t k = 0; k < ns; ++k) {
    const int64_t nc = (int64_t)(s->super[k + 1] - s->super[k]), nr = (int64_t)(s->pi[k + 1] - s->pi[k]);
    parent[k] = nr > nc ? cs[s->rows[s->pi[k] + nc]] : -1;
    first[k] = k;
    work[k] = (double)nc * (double)nr;
  }
  /* CHOLMOD postorders the tree (parent after child, subtrees contiguous); check it, since the
   * ranges below rely on it, and stay serial if it does not hold */
  int64_t *count = s->top; /* scratch: subtree sizes */
  for (int64_t k = 0; k < ns; ++k) count[k] = 1;
  for (int64_t k = 0; k < ns; ++k) {
    const int64_t p = parent[k];
    if (p < 0) continue;
    if (p <= k) return CL_OK;
    if (first[k] < first[p]) first[p] = first[k];
    work[p] += work[k];
    count[p] += count[k];
  }
  for (int64_t k = 0; k < ns; ++k)
    if (k - first[k] + 1 != count[k]) return CL_OK;

  /* children lists in CSR (reusing ranges as scratch would alias; small separate arrays) */
  int64_t *child_ofs = cl_calloc((size_t)ns + 1, sizeof(int64_t), "supernodal tree");
  int64_t *child = cl_malloc(sizeof(int64_t) * (size_t)ns, "supernodal tree");
  int64_t *cand = cl_malloc(sizeof(int64_t) * (size_t)ns, "supernodal tree");
  int *bin_of = cl_malloc(sizeof(int) * (size_t)ns, "supernodal tree");
  uint8_t *in_top = cl_calloc((size_t)ns, 1, "supernodal tree");
  if (!child_ofs || !child || !cand || !bin_of || !in_top) {
    free(child_ofs), free(child), free(cand), free(bin_of), free(in_top);
    return cl_fail(CL_ERR_OUT_OF_MEMORY, "supernodal solve: out of memory for the tree partition");
  }
  for (int64_t k = 0; k < ns; ++k)
    if (parent[k] >= 0) child_ofs[parent[k] + 1]++;
  for (int64_t k = 0; k < ns; ++k) child_ofs[k + 1] += child_ofs[k];
  {
    int64_t *fill = cand; /* scratch */
    for (int64_t k = 0; k < ns; ++k) fill[k] = child_ofs[k];
    for (int64_t k = 0; k < ns; ++k)
      if (parent[k] >= 0) child[fill[parent[k]]++] = k;
  }
  /* candidates: the roots; open the heaviest while it pays */
  int64_t ncand = 0;
  for (int64_t k = 0; k < ns; ++k)
    if (parent[k] < 0) cand_insert(cand, &ncand, work, k);
  double topwork = 0.0;
  double best = assign_bins(work, cand, ncand, parts, bin_of);
  int64_t best_opened = 0, opened = 0;
  /* replay: remember the order in which subtrees were opened */
  int64_t *opened_list = s->top; /* scratch again (count no longer needed) */
  while (ncand > 0 && opened < ns) {
    const int64_t c = cand[0];
    if (child_ofs[c + 1] == child_ofs[c]) break; /* a leaf cannot be opened */
    memmove(cand, cand + 1, sizeof(int64_t) * (size_t)(ncand - 1));
    --ncand;
    const int64_t nc = (int64_t)(s->super[c + 1] - s->super[c]), nr = (int64_t)(s->pi[c + 1] - s->pi[c]);
    topwork += (double)nc * (double)nr;
    for (int64_t q = child_ofs[c]; q < child_ofs[c + 1]; ++q) cand_insert(cand, &ncand, work, child[q]);
    opened_list[opened++] = c;
    const double est = topwork + assign_bins(work, cand, ncand, parts, bin_of);
    if (est < best) {
      best = est;
      best_opened = opened;
    }
    if (topwork > best) break; /* opening more can only make the top heavier */
  }
  /* rebuild the best state */
  for (int64_t q = 0; q < best_opened; ++q) in_top[opened_list[q]] = 1;
  ncand = 0;
  for (int64_t k = 0; k < ns; ++k) {
    const int64_t p = parent[k];
    const int top_k = in_top[k];
    if (!top_k && (p < 0 || in_top[p])) cand_insert(cand, &ncand, work, k);
  }
  assign_bins(work, cand, ncand, parts, bin_of);
  /* ranges per thread, in candidate order within a thread */
  int64_t *ofs = cl_calloc((size_t)parts + 1, sizeof(int64_t), "supernodal tree");
  if (!ofs) {
    free(child_ofs), free(child), free(cand), free(bin_of), free(in_top);
    return cl_fail(CL_ERR_OUT_OF_MEMORY, "supernodal solve: out of memory for the tree partition");
  }
  for (int64_t q = 0; q < ncand; ++q) ofs[bin_of[q] + 1]++;
  for (int t = 0; t < parts; ++t) ofs[t + 1] += ofs[t];
  int64_t fillpos[64];
  for (int t = 0; t < parts; ++t) fillpos[t] = ofs[t];
  for (int64_t q = 0; q < ncand; ++q) {
    const int64_t k = cand[q];
    sn_range r = {first[k], k, (int64_t)s->super[k + 1] - 1};
    s->ranges[fillpos[bin_of[q]]++] = r;
  }
  /* the top: every supernode in no candidate subtree, ascending */
  uint8_t *covered = in_top; /* reuse: 1 = top so far; now mark subtree members 2 */
  for (int64_t q = 0; q < ncand; ++q)
    for (int64_t k = first[cand[q]]; k <= cand[q]; ++k) covered[k] = 2;
  s->ntop = 0;
  for (int64_t k = 0; k < ns; ++k)
    if (covered[k] != 2) s->top[s->ntop++] = k;
  free(s->range_ofs);
  s->range_ofs = ofs;
  free(child_ofs), free(child), free(cand), free(bin_of), free(in_top);
  /* per-thread scratch */
  free(s->ytop);
  free(s->wt);
  s->ytop = cl_calloc((size_t)parts * (size_t)n, sizeof(double), "supernodal solve scratch");
  s->wt = cl_malloc(sizeof(double) * (size_t)parts * (size_t)(s->w_cap > 0 ? s->w_cap : 1), "supernodal solve scratch");
  if (!s->ytop || !s->wt) return cl_fail(CL_ERR_OUT_OF_MEMORY, "supernodal solve: out of memory for per-thread scratch");
  s->parts = parts;
  return CL_OK;
}

/* ---- the sweeps -------------------------------------------------------------------------------- */

/* Per supernode, written once for each value type T. The supernode's nc columns are stored
 * column-major with leading dimension nr: rows 0..nc-1 the lower-triangular diagonal block, rows
 * nc..nr-1 the rectangle below it. Both sweeps work on one dense vector z of nr entries (the scratch
 * w): the block's own entries of y, then the rectangle's rows (zero in the forward sweep, gathered from
 * y in the backward one). The columns go in groups of eight (then one of four, then single columns),
 * so that the diagonal block below a group and the rectangle are one loop over the rows below it (a
 * column is contiguous from its diagonal to its last row) that loads and stores z once per group.
 * Forward, per group: solve the group's small triangle, then z[rows below] -= (the group's columns) *
 * (their solved entries); the rectangle's rows are then scattered once (rows above `last_col`, the
 * top of the tree, go to ytop instead when a thread works on a subtree). Backward, the groups from the
 * last: one dot product per column of the group with z below it, then the group's triangle.
 *
 * The products over a group are formed in T: in single precision eight lanes of float per
 * instruction and one conversion to double per row instead of one per entry (the factor's values
 * are rounded to float anyway; relative residual of one application 6.0e-7 against 2.4e-7 with
 * double products, and the same CG iterations on the Charpy bar). The factor (17 MB in single
 * precision for the 28k-tet Charpy bar) stays in this machine's cache between applications, so the
 * sweeps are bound by instructions, not by memory traffic: column by column, the diagonal block's
 * backward dot products were a scalar chain (a third of the backward sweep) and every entry of the
 * rectangle took a conversion (docs/solvers/corotational.md, "The sweeps in groups of eight").
 * Built for AVX2 and for the baseline x86-64 (GCC target_clones picks at load time). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CL_SN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CL_SN_CLONES
#endif
/* The next group of columns from column j of nc: eight, four, or what is left. Groups start at
 * multiples of 8, then at most one group of 4 and one of 1-3 columns: the backward sweep walks the
 * same groups in reverse (sn_group_last gives the start of the last one). */
static inline int64_t sn_group(int64_t j, int64_t nc) { return nc - j >= 8 ? 8 : nc - j >= 4 ? 4 : nc - j; }
static inline int64_t sn_group_last(int64_t nc) {
  const int64_t j8 = nc / 8 * 8, rem = nc - j8;
  return rem == 0 ? j8 - 8 : rem > 4 ? j8 + 4 : j8;
}
static inline int64_t sn_group_prev(int64_t j) { return j % 8 == 4 ? j - 4 : j - 8; }

#define CL_SUPERNODAL_KERNELS(T, FWD, BWD)                                                                 \
  CL_SN_CLONES static void FWD(const cl_supernodal *s, const T *vals, int64_t k, double *y, double *ytop,  \
                               int64_t last_col, double *z) {                                             \
    const int64_t k1 = (int64_t)s->super[k], nc = (int64_t)s->super[k + 1] - k1;                           \
    const int64_t p0 = (int64_t)s->pi[k], nr = (int64_t)s->pi[k + 1] - p0, m = nr - nc;                     \
    const T *V = vals + s->px[k];                                                                         \
    double *yk = y + k1;                                                                                  \
    memcpy(z, yk, sizeof(double) * (size_t)nc);                                                           \
    for (int64_t i = nc; i < nr; ++i) z[i] = 0.0;                                                         \
    for (int64_t j = 0, b; j < nc; j += b) {                                                              \
      b = sn_group(j, nc);                                                                                \
      for (int64_t q = 0; q < b; ++q) { /* the group's triangle */                                        \
        const T *col = V + (j + q) * nr;                                                                  \
        const double zq = z[j + q] / (double)col[j + q];                                                  \
        z[j + q] = zq;                                                                                    \
        for (int64_t i = j + q + 1; i < j + b; ++i) z[i] -= (double)col[i] * zq;                          \
      }                                                                                                   \
      const T *c0 = V + j * nr;                                                                           \
      if (b >= 4) {                                                                                       \
        const T *c1 = c0 + nr, *c2 = c1 + nr, *c3 = c2 + nr;                                              \
        const T z0 = (T)z[j], z1 = (T)z[j + 1], z2 = (T)z[j + 2], z3 = (T)z[j + 3];                      \
        if (b == 8) {                                                                                     \
          const T *c4 = c3 + nr, *c5 = c4 + nr, *c6 = c5 + nr, *c7 = c6 + nr;                             \
          const T z4 = (T)z[j + 4], z5 = (T)z[j + 5], z6 = (T)z[j + 6], z7 = (T)z[j + 7];                \
          for (int64_t i = j + 8; i < nr; ++i)                                                            \
            z[i] -= (double)((c0[i] * z0 + c1[i] * z1 + c2[i] * z2 + c3[i] * z3) +                        \
                             (c4[i] * z4 + c5[i] * z5 + c6[i] * z6 + c7[i] * z7));                        \
        } else                                                                                            \
          for (int64_t i = j + 4; i < nr; ++i)                                                            \
            z[i] -= (double)(c0[i] * z0 + c1[i] * z1 + c2[i] * z2 + c3[i] * z3);                          \
      } else                                                                                              \
        for (int64_t q = 0; q < b; ++q) {                                                                 \
          const T *col = c0 + q * nr;                                                                     \
          const double zq = z[j + q];                                                                     \
          for (int64_t i = j + b; i < nr; ++i) z[i] -= (double)col[i] * zq;                               \
        }                                                                                                 \
    }                                                                                                     \
    memcpy(yk, z, sizeof(double) * (size_t)nc);                                                           \
    const SuiteSparse_long *r = s->rows + p0 + nc;                                                        \
    const double *zr = z + nc;                                                                            \
    for (int64_t i = 0; i < m; ++i) {                                                                     \
      const int64_t row = (int64_t)r[i];                                                                  \
      if (row <= last_col) y[row] += zr[i];                                                               \
      else ytop[row] += zr[i];                                                                            \
    }                                                                                                     \
  }                                                                                                       \
  CL_SN_CLONES static void BWD(const cl_supernodal *s, const T *vals, int64_t k, double *y, double *z) {   \
    const int64_t k1 = (int64_t)s->super[k], nc = (int64_t)s->super[k + 1] - k1;                           \
    const int64_t p0 = (int64_t)s->pi[k], nr = (int64_t)s->pi[k + 1] - p0, m = nr - nc;                     \
    const T *V = vals + s->px[k];                                                                         \
    double *yk = y + k1;                                                                                  \
    const SuiteSparse_long *r = s->rows + p0 + nc;                                                        \
    memcpy(z, yk, sizeof(double) * (size_t)nc);                                                           \
    for (int64_t i = 0; i < m; ++i) z[nc + i] = y[r[i]];                                                  \
    for (int64_t j = sn_group_last(nc); j >= 0; j = sn_group_prev(j)) {                                   \
      const int64_t b = sn_group(j, nc);                                                                  \
      const T *c0 = V + j * nr;                                                                           \
      if (b == 8) {                                                                                       \
        const T *c1 = c0 + nr, *c2 = c1 + nr, *c3 = c2 + nr, *c4 = c3 + nr, *c5 = c4 + nr, *c6 = c5 + nr; \
        const T *c7 = c6 + nr;                                                                            \
        T d0 = 0, d1 = 0, d2 = 0, d3 = 0, d4 = 0, d5 = 0, d6 = 0, d7 = 0;                                 \
        _Pragma("omp simd reduction(+ : d0, d1, d2, d3, d4, d5, d6, d7)")                                 \
        for (int64_t i = j + 8; i < nr; ++i) {                                                            \
          const T zi = (T)z[i];                                                                           \
          d0 += c0[i] * zi, d1 += c1[i] * zi, d2 += c2[i] * zi, d3 += c3[i] * zi;                         \
          d4 += c4[i] * zi, d5 += c5[i] * zi, d6 += c6[i] * zi, d7 += c7[i] * zi;                         \
        }                                                                                                 \
        z[j] -= d0, z[j + 1] -= d1, z[j + 2] -= d2, z[j + 3] -= d3;                                       \
        z[j + 4] -= d4, z[j + 5] -= d5, z[j + 6] -= d6, z[j + 7] -= d7;                                   \
      } else if (b == 4) {                                                                                \
        const T *c1 = c0 + nr, *c2 = c1 + nr, *c3 = c2 + nr;                                              \
        T d0 = 0, d1 = 0, d2 = 0, d3 = 0;                                                                 \
        _Pragma("omp simd reduction(+ : d0, d1, d2, d3)")                                                 \
        for (int64_t i = j + 4; i < nr; ++i) {                                                            \
          const T zi = (T)z[i];                                                                           \
          d0 += c0[i] * zi, d1 += c1[i] * zi, d2 += c2[i] * zi, d3 += c3[i] * zi;                         \
        }                                                                                                 \
        z[j] -= d0, z[j + 1] -= d1, z[j + 2] -= d2, z[j + 3] -= d3;                                       \
      } else                                                                                              \
        for (int64_t q = 0; q < b; ++q) {                                                                 \
          const T *col = c0 + q * nr;                                                                     \
          double dot = 0.0;                                                                               \
          _Pragma("omp simd reduction(+ : dot)")                                                          \
          for (int64_t i = j + b; i < nr; ++i) dot += (double)col[i] * z[i];                              \
          z[j + q] -= dot;                                                                                \
        }                                                                                                 \
      for (int64_t q = b - 1; q >= 0; --q) { /* the group's triangle */                                   \
        const T *col = V + (j + q) * nr;                                                                  \
        double t = z[j + q];                                                                              \
        for (int64_t i = j + q + 1; i < j + b; ++i) t -= (double)col[i] * z[i];                           \
        z[j + q] = t / (double)col[j + q];                                                                \
      }                                                                                                   \
    }                                                                                                     \
    memcpy(yk, z, sizeof(double) * (size_t)nc);                                                           \
  }

CL_SUPERNODAL_KERNELS(double, forward_double, backward_double)
CL_SUPERNODAL_KERNELS(float, forward_single, backward_single)

static void forward(const cl_supernodal *s, int64_t k, double *y, double *ytop, int64_t last_col, double *w) {
  if (s->precision == CL_SUPERNODAL_SINGLE) forward_single(s, s->xf, k, y, ytop, last_col, w);
  else forward_double(s, s->xd, k, y, ytop, last_col, w);
}

static void backward(const cl_supernodal *s, int64_t k, double *y, double *w) {
  if (s->precision == CL_SUPERNODAL_SINGLE) backward_single(s, s->xf, k, y, w);
  else backward_double(s, s->xd, k, y, w);
}

void cl_supernodal_set_perm(cl_supernodal *s, const SuiteSparse_long *perm) {
  if (s) s->perm = perm;
}

void cl_supernodal_solve(cl_supernodal *s, const double *b, double *x, int threads) {
  const int64_t n = s->n;
  double *y = s->y;
  const SuiteSparse_long *perm = s->perm;
  if (perm)
    for (int64_t k = 0; k < n; ++k) y[k] = b[perm[k]];
  else
    memcpy(y, b, sizeof(double) * (size_t)n);
  if (s->parts <= 1) {
    for (int64_t k = 0; k < s->nsuper; ++k) forward(s, k, y, y, n, s->w);
    for (int64_t k = s->nsuper - 1; k >= 0; --k) backward(s, k, y, s->w);
  } else {
    const int T = s->parts, run = threads < 1 ? 1 : (threads < T ? threads : T);
    /* forward: subtrees in parallel, each thread's updates of top rows kept apart and summed */
#pragma omp parallel for schedule(static, 1) num_threads(run)
    for (int t = 0; t < T; ++t) {
      double *yt = s->ytop + (size_t)t * (size_t)n, *wt = s->wt + (size_t)t * (size_t)s->w_cap;
      for (int64_t q = s->range_ofs[t]; q < s->range_ofs[t + 1]; ++q)
        for (int64_t k = s->ranges[q].first; k <= s->ranges[q].last; ++k)
          forward(s, k, y, yt, s->ranges[q].last_col, wt);
    }
    for (int64_t q = 0; q < s->ntop; ++q) {
      const int64_t k = s->top[q];
      for (int64_t c = (int64_t)s->super[k]; c < (int64_t)s->super[k + 1]; ++c)
        for (int t = 0; t < T; ++t) {
          double *yt = s->ytop + (size_t)t * (size_t)n;
          y[c] += yt[c];
          yt[c] = 0.0;
        }
    }
    for (int64_t q = 0; q < s->ntop; ++q) forward(s, s->top[q], y, y, n, s->w);
    /* backward: the top first (it only reads top rows), then the subtrees in parallel */
    for (int64_t q = s->ntop - 1; q >= 0; --q) backward(s, s->top[q], y, s->w);
#pragma omp parallel for schedule(static, 1) num_threads(run)
    for (int t = 0; t < T; ++t) {
      double *wt = s->wt + (size_t)t * (size_t)s->w_cap;
      for (int64_t q = s->range_ofs[t]; q < s->range_ofs[t + 1]; ++q)
        for (int64_t k = s->ranges[q].last; k >= s->ranges[q].first; --k) backward(s, k, y, wt);
    }
  }
  if (perm)
    for (int64_t k = 0; k < n; ++k) x[perm[k]] = y[k];
  else
    memcpy(x, y, sizeof(double) * (size_t)n);
}
