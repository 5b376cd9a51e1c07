/* Edge list of a tet mesh; see tet_edges.h. */
#include "geom/tet_edges.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

const int cl_tet_edge_corners[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

static int by_key(const void *pa, const void *pb) {
  const int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

cl_status cl_tet_edge_list(int32_t n, int32_t ntets, const int32_t *tets, int32_t **edges_out, int32_t *nedges_out,
                       int32_t *tet_edge) {
  *edges_out = NULL;
  *nedges_out = 0;
  const size_t nk = 6 * (size_t)(ntets > 0 ? ntets : 0);
  int64_t *keys = cl_malloc(sizeof(int64_t) * (nk ? nk : 1), "tet mesh edges");
  int64_t *sorted = cl_malloc(sizeof(int64_t) * (nk ? nk : 1), "tet mesh edges");
  if (!keys || !sorted) {
    free(keys);
    free(sorted);
    return CL_ERR_OUT_OF_MEMORY;
  }
  for (int32_t t = 0; t < ntets; ++t)
    for (int k = 0; k < 6; ++k) {
      int32_t a = tets[4 * (size_t)t + cl_tet_edge_corners[k][0]], b = tets[4 * (size_t)t + cl_tet_edge_corners[k][1]];
      if (a > b) {
        const int32_t c = a;
        a = b;
        b = c;
      }
      keys[6 * (size_t)t + k] = (int64_t)a * n + b;
    }
  if (nk) memcpy(sorted, keys, sizeof(int64_t) * nk);
  qsort(sorted, nk, sizeof *sorted, by_key);
  size_t ne = 0;
  for (size_t i = 0; i < nk; ++i)
    if (i == 0 || sorted[i] != sorted[i - 1]) sorted[ne++] = sorted[i];
  int32_t *edges = cl_malloc(sizeof(int32_t) * 2 * (ne ? ne : 1), "tet mesh edges");
  if (!edges) {
    free(keys);
    free(sorted);
    return CL_ERR_OUT_OF_MEMORY;
  }
  for (size_t e = 0; e < ne; ++e) {
    edges[2 * e] = (int32_t)(sorted[e] / n);
    edges[2 * e + 1] = (int32_t)(sorted[e] % n);
  }
  if (tet_edge)
    for (size_t i = 0; i < nk; ++i) {
      const int64_t *hit = bsearch(keys + i, sorted, ne, sizeof *sorted, by_key);
      tet_edge[i] = (int32_t)(hit - sorted);
    }
  free(keys);
  free(sorted);
  *edges_out = edges;
  *nedges_out = (int32_t)ne;
  return CL_OK;
}
