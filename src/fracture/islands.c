#include "fracture/islands.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "geom/components.h"

void cl_islands_init(cl_islands *c) {
  memset(c, 0, sizeof *c);
  c->version = -1;
}

void cl_islands_free(cl_islands *c) {
  free(c->label);
  free(c->elements);
  cl_islands_init(c);
}

cl_status cl_islands_update(cl_islands *c, const cl_body_state *st, const char *owner) {
  if (c->version == st->topology_version && c->n == st->n) return CL_OK;
  if (st->n > c->node_cap) {
    int32_t cap = st->n + st->n / 4 + 16;
    int32_t *l = realloc(c->label, sizeof(int32_t) * (size_t)cap);
    if (!l) return cl_fail(CL_ERR_OUT_OF_MEMORY, "%s: out of memory for %d node labels", owner, cap);
    c->label = l;
    c->node_cap = cap;
  }
  int32_t count = 0;
  CL_TRY(cl_components(st->n, st->cells, st->ncells, 4, c->label, &count));
  if (count > c->island_cap) {
    int32_t *e = realloc(c->elements, sizeof(int32_t) * (size_t)count);
    if (!e) return cl_fail(CL_ERR_OUT_OF_MEMORY, "%s: out of memory for %d islands", owner, count);
    c->elements = e;
    c->island_cap = count;
  }
  memset(c->elements, 0, sizeof(int32_t) * (size_t)count);
  for (int32_t e = 0; e < st->ncells; ++e) c->elements[c->label[st->cells[4 * e]]]++;
  c->version = st->topology_version;
  c->n = st->n;
  return CL_OK;
}
