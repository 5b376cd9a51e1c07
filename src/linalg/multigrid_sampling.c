/* Dijkstra on a BSR pattern's block graph and farthest point sampling (see multigrid_sampling.h). */
#include "linalg/multigrid_sampling.h"

#include <math.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/error.h"

void cl_mg_edge_lengths(const cl_bsr *A, const double *x, double *len) {
#pragma omp parallel for schedule(static) if (A->n > 8192)
  for (int32_t i = 0; i < A->n; ++i)
    for (int64_t s = A->row_ptr[i]; s < A->row_ptr[i + 1]; ++s) {
      const double *a = x + 3 * (int64_t)i, *b = x + 3 * (int64_t)A->col[s];
      const double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
      len[s] = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
    }
}

/* A binary min-heap of (distance, node) with lazy deletion: a node is pushed again when its distance
 * drops, and stale entries are skipped when popped. Ordered by distance, then node index, so the
 * order of pops (and with it every tie) does not depend on anything but the input. */
typedef struct heap {
  double *key;
  int32_t *node;
  int64_t size, cap;
} heap;

static int before(const heap *h, int64_t a, int64_t b) {
  return h->key[a] < h->key[b] || (h->key[a] == h->key[b] && h->node[a] < h->node[b]);
}

static void swap(heap *h, int64_t a, int64_t b) {
  const double k = h->key[a];
  const int32_t v = h->node[a];
  h->key[a] = h->key[b];
  h->node[a] = h->node[b];
  h->key[b] = k;
  h->node[b] = v;
}

static cl_status heap_init(heap *h, int64_t cap) {
  h->size = 0;
  h->cap = cap;
  h->key = cl_malloc(sizeof(double) * (size_t)cap, "Dijkstra heap");
  h->node = cl_malloc(sizeof(int32_t) * (size_t)cap, "Dijkstra heap");
  return h->key && h->node ? CL_OK : CL_ERR_OUT_OF_MEMORY;
}

static void heap_free(heap *h) {
  free(h->key);
  free(h->node);
}

/* Never overflows: a node is pushed at most once per incoming edge plus once as a source, and the
 * capacity is nnzb + n. */
static void heap_push(heap *h, double key, int32_t node) {
  int64_t i = h->size++;
  h->key[i] = key;
  h->node[i] = node;
  while (i > 0) {
    const int64_t parent = (i - 1) / 2;
    if (!before(h, i, parent)) break;
    swap(h, i, parent);
    i = parent;
  }
}

static void heap_pop(heap *h, double *key, int32_t *node) {
  *key = h->key[0];
  *node = h->node[0];
  h->size--;
  h->key[0] = h->key[h->size];
  h->node[0] = h->node[h->size];
  int64_t i = 0;
  for (;;) {
    const int64_t l = 2 * i + 1, r = l + 1;
    int64_t m = i;
    if (l < h->size && before(h, l, m)) m = l;
    if (r < h->size && before(h, r, m)) m = r;
    if (m == i) break;
    swap(h, i, m);
    i = m;
  }
}

/* Dijkstra from the nodes already in the heap, improving dist (and label) wherever a shorter path is
 * found. With dist holding the distances to earlier sources this explores only the region that gets
 * closer to the new ones: the incremental update of farthest point sampling. */
static void relax_all(const cl_bsr *A, const double *len, heap *h, double *dist, int32_t *label) {
  while (h->size > 0) {
    double d;
    int32_t u;
    heap_pop(h, &d, &u);
    if (d > dist[u]) continue; /* stale */
    for (int64_t s = A->row_ptr[u]; s < A->row_ptr[u + 1]; ++s) {
      const int32_t v = A->col[s];
      const double nd = d + len[s];
      if (nd < dist[v]) {
        dist[v] = nd;
        if (label) label[v] = label[u];
        heap_push(h, nd, v);
      }
    }
  }
}

cl_status cl_mg_geodesic_voronoi(const cl_bsr *A, const double *len, const int32_t *sources, int32_t nsources,
                                 double *dist, int32_t *label) {
  for (int32_t i = 0; i < A->n; ++i) {
    dist[i] = INFINITY;
    label[i] = -1;
  }
  heap h;
  cl_status st = heap_init(&h, A->nnzb + A->n + 1);
  if (st < 0) {
    heap_free(&h);
    return st;
  }
  for (int32_t k = 0; k < nsources; ++k) {
    const int32_t v = sources[k];
    if (dist[v] == 0.0) continue; /* a repeated source keeps its first label */
    dist[v] = 0.0;
    label[v] = k;
    heap_push(&h, 0.0, v);
  }
  relax_all(A, len, &h, dist, label);
  heap_free(&h);
  return CL_OK;
}

/* Whether row i has a block besides its diagonal one. */
static int has_neighbour(const cl_bsr *A, int32_t i) {
  const int64_t len = A->row_ptr[i + 1] - A->row_ptr[i];
  return len > 1 || (len == 1 && A->col[A->row_ptr[i]] != i);
}

/* The node of largest dist (INFINITY counts as largest), the smallest index among ties; picked nodes
 * hold -1. */
static int32_t farthest(const double *dist, int32_t n) {
  int32_t best = 0;
  for (int32_t i = 1; i < n; ++i)
    if (dist[i] > dist[best]) best = i;
  return best;
}

int32_t cl_mg_connected_nodes(const cl_bsr *A) {
  int32_t m = 0;
  for (int32_t i = 0; i < A->n; ++i) m += has_neighbour(A, i);
  return m;
}

cl_status cl_mg_farthest_points(const cl_bsr *A, const double *len, int32_t k, int32_t *picked, double *radius) {
  const int32_t n = A->n, connected = cl_mg_connected_nodes(A);
  if (k < 1 || k > connected)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "farthest point sampling: %d points asked of a graph of %d nodes with a neighbour (of %d)", k,
                   connected, n);
  double *dist = cl_malloc(sizeof(double) * (size_t)n, "farthest point sampling");
  heap h;
  cl_status st = heap_init(&h, A->nnzb + n + 1);
  if (!dist || st < 0) {
    free(dist);
    heap_free(&h);
    return CL_ERR_OUT_OF_MEMORY;
  }
  /* the start: the node farthest from node 0 (an extreme point, not a random one: reproducible) */
  for (int32_t i = 0; i < n; ++i) dist[i] = INFINITY;
  dist[0] = 0.0;
  heap_push(&h, 0.0, 0);
  relax_all(A, len, &h, dist, NULL);
  /* nodes node 0 does not reach are at INFINITY: the start is then the first of them; nodes without a
   * neighbour are never picked (-1, as picked ones) */
  for (int32_t i = 0; i < n; ++i)
    if (!has_neighbour(A, i)) dist[i] = -1.0;
  int32_t next = farthest(dist, n);
  for (int32_t i = 0; i < n; ++i) dist[i] = has_neighbour(A, i) ? INFINITY : -1.0;
  for (int32_t m = 0; m < k; ++m) {
    picked[m] = next;
    if (radius) radius[m] = dist[next];
    dist[next] = 0.0;
    heap_push(&h, 0.0, next);
    relax_all(A, len, &h, dist, NULL);
    dist[next] = -1.0; /* picked: never picked again, also where edges of length 0 tie it with others */
    if (m + 1 < k) next = farthest(dist, n);
  }
  free(dist);
  heap_free(&h);
  return CL_OK;
}
