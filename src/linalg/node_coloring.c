/* Multicolour block ordering of a BSR matrix's nodes (see node_coloring.h). */
#include "linalg/node_coloring.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"

void cl_node_coloring_free(cl_node_coloring *c) {
  if (!c) return;
  free(c->ptr);
  free(c->block);
  memset(c, 0, sizeof *c);
}

cl_status cl_node_coloring_make(const cl_bsr *A, int32_t size, cl_node_coloring *c) {
  memset(c, 0, sizeof *c);
  if (size < 1) return cl_fail(CL_ERR_INVALID_ARGUMENT, "node colouring: block size %d must be >= 1", size);
  const int32_t n = A->n, nb = (n + size - 1) / size;
  c->size = size;
  c->n = n;
  c->blocks = nb;
  int32_t *color = cl_malloc(sizeof(int32_t) * ((size_t)nb + 1), "node colouring");
  int32_t *seen = cl_malloc(sizeof(int32_t) * ((size_t)nb + 1), "node colouring"); /* colour -> last block */
  cl_status st = color && seen ? CL_OK : CL_ERR_OUT_OF_MEMORY;
  if (st >= 0) {
    for (int32_t k = 0; k <= nb; ++k) seen[k] = -1;
    for (int32_t b = 0; b < nb; ++b) {
      const int32_t lo = b * size, hi = lo + size < n ? lo + size : n;
      for (int32_t i = lo; i < hi; ++i)
        for (int64_t s = A->row_ptr[i]; s < A->row_ptr[i + 1]; ++s) {
          const int32_t d = A->col[s] / size;
          if (d < b) seen[color[d]] = b; /* only earlier blocks have a colour yet */
        }
      int32_t k = 0;
      while (seen[k] == b) ++k;
      color[b] = k;
      if (k + 1 > c->colors) c->colors = k + 1;
    }
    c->ptr = cl_calloc((size_t)c->colors + 1, sizeof(int32_t), "node colouring");
    c->block = cl_malloc(sizeof(int32_t) * ((size_t)nb + 1), "node colouring");
    if (!c->ptr || !c->block) st = CL_ERR_OUT_OF_MEMORY;
  }
  if (st >= 0) { /* counting sort by colour, ascending block order within each */
    for (int32_t b = 0; b < nb; ++b) c->ptr[color[b] + 1]++;
    for (int32_t k = 0; k < c->colors; ++k) c->ptr[k + 1] += c->ptr[k];
    for (int32_t b = 0; b < nb; ++b) c->block[c->ptr[color[b]]++] = b;
    for (int32_t k = c->colors; k > 0; --k) c->ptr[k] = c->ptr[k - 1];
    c->ptr[0] = 0;
  }
  free(color);
  free(seen);
  if (st < 0) cl_node_coloring_free(c);
  return st;
}
