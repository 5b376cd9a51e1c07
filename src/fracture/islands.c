#include "fracture/islands.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
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
    const size_t cap = cl_grow_capacity((size_t)c->node_cap, (size_t)st->n, INT32_MAX);
    cl_status r = CL_RESIZE(c->label, cap, "island labels");
    if (r < 0) return cl_fail_context(r, "%s: ", owner);
    c->node_cap = (int32_t)cap;
  }
  int32_t count = 0;
  CL_TRY(cl_components(st->n, st->cells, st->ncells, 4, c->label, &count));
  if (count > c->island_cap) {
    cl_status r = CL_RESIZE(c->elements, (size_t)count, "island element counts");
    if (r < 0) return cl_fail_context(r, "%s: ", owner);
    c->island_cap = count;
  }
  memset(c->elements, 0, sizeof(int32_t) * (size_t)count);
  for (int32_t e = 0; e < st->ncells; ++e) c->elements[c->label[st->cells[4 * e]]]++;
  c->version = st->topology_version;
  c->n = st->n;
  return CL_OK;
}
