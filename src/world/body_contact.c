/* Contact between different bodies (body_contact.h). The broad phase is a sweep over axis-aligned
 * boxes: bodies are few (tens), so a sort and a scan cost nothing next to a solver step, and bodies
 * far apart never reach the solver's narrow phase. The boxes come from the solver (its collision
 * geometry, e.g. shape matching's cluster proxies, may stick out of the nodes' own box). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "world/body_contact.h"

typedef struct entry {
  cl_body *b;
  int32_t slot;
  double lo[3], hi[3];
} entry;

/* Up to this many contact bodies the list lives on the stack; beyond, one malloc per call. */
enum { CL_CONTACT_STACK = 64 };

static int by_low_x(const void *pa, const void *pb) {
  const entry *a = pa, *b = pb;
  if (a->lo[0] != b->lo[0]) return a->lo[0] < b->lo[0] ? -1 : 1;
  return (a->slot > b->slot) - (a->slot < b->slot);
}

static int boxes_overlap(const entry *a, const entry *b) {
  for (int k = 0; k < 3; ++k)
    if (a->lo[k] > b->hi[k] || b->lo[k] > a->hi[k]) return 0;
  return 1;
}

static cl_status call_pair(entry *a, entry *b, double h, cl_body_contact_stats *st) {
  if (a->slot > b->slot) { /* the lower slot first: the order does not depend on the positions */
    entry *t = a;
    a = b;
    b = t;
  }
  cl_constraint_set ca = {a->b->c_count, a->b->c_nodes, a->b->c_x, a->b->c_v, a->b->c_r};
  cl_constraint_set cb = {b->b->c_count, b->b->c_nodes, b->b->c_x, b->b->c_v, b->b->c_r};
  cl_contact_report rep = {0, 0.0};
  cl_status s = a->b->ops->contact_pair(a->b->solver, &a->b->state, &ca, b->b->solver, &b->b->state, &cb, h, &rep);
  if (s < 0) return cl_fail_context(s, "contact of %s with %s: ", a->b->label, b->b->label);
  st->pairs += 1;
  st->contacts += rep.contacts;
  st->max_depth = fmax(st->max_depth, rep.max_depth);
  entry *both[2] = {a, b};
  for (int q = 0; q < 2; ++q) {
    int32_t bad = -1;
    const char *what = "value";
    if (!cl_body_state_finite(&both[q]->b->state, &bad, &what))
      return cl_fail(CL_ERR_NUMERICAL, "%s: non-finite %s of node %d after its contact with %s (solver '%s')",
                     both[q]->b->label, what, bad, both[1 - q]->b->label, a->b->ops->name);
  }
  return CL_OK;
}

cl_status cl_world_body_contacts(cl_world *w, double h, cl_body_contact_stats *out) {
  cl_body_contact_stats st = {0, 0, 0, 0.0};
  if (out) *out = st;
  int32_t count = 0;
  for (int32_t i = 0; i < w->bodies.slots; ++i) {
    cl_body *b = cl_pool_at(&w->bodies, i);
    if (b && b->state.n > 0 && b->ops->contact_pair) ++count;
  }
  st.bodies = count;
  if (count < 2) {
    if (out) *out = st;
    return CL_OK;
  }
  entry stack[CL_CONTACT_STACK];
  entry *list = stack;
  if (count > CL_CONTACT_STACK) {
    list = malloc(sizeof *list * (size_t)count);
    if (!list) return cl_fail(CL_ERR_OUT_OF_MEMORY, "body contact: no memory for %d bodies", count);
  }
  cl_status s = CL_OK;
  int32_t m = 0;
  for (int32_t i = 0; i < w->bodies.slots && s >= 0; ++i) {
    cl_body *b = cl_pool_at(&w->bodies, i);
    if (!b || b->state.n == 0 || !b->ops->contact_pair) continue;
    entry *e = &list[m];
    e->b = b;
    e->slot = i;
    s = b->ops->contact_bounds(b->solver, &b->state, e->lo, e->hi);
    if (s < 0) {
      cl_fail_context(s, "%s: contact bounds (solver '%s'): ", b->label, b->ops->name);
      break;
    }
    if (e->lo[0] <= e->hi[0]) ++m; /* else nothing of it can collide */
  }
  if (s >= 0) {
    qsort(list, (size_t)m, sizeof *list, by_low_x);
    for (int32_t i = 0; i < m && s >= 0; ++i)
      for (int32_t j = i + 1; j < m && list[j].lo[0] <= list[i].hi[0] && s >= 0; ++j)
        if (list[i].b->ops == list[j].b->ops && boxes_overlap(&list[i], &list[j])) s = call_pair(&list[i], &list[j], h, &st);
  }
  if (list != stack) free(list);
  if (out) *out = st;
  return s < 0 ? s : CL_OK;
}
