#include "fracture/islands.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/components.h"

void cl_islands_init(cl_islands *c) {
  memset(c, 0, sizeof *c);
  c->version = -1;
  c->pair_cells = -1;
}

void cl_islands_free(cl_islands *c) {
  free(c->label);
  free(c->elements);
  free(c->root);
  free(c->crack);
  free(c->pair);
  free(c->best);
  cl_event_list_free(&c->candidates);
  cl_islands_init(c);
}

/* The three corners of face f (opposite corner f) of a tet, sorted. */
static void face_key(const int32_t *t, const int32_t *map, int f, int32_t k[3]) {
  int m = 0;
  for (int a = 0; a < 4; ++a)
    if (a != f) k[m++] = map ? map[t[a]] : t[a];
  if (k[0] > k[1]) { int32_t s = k[0]; k[0] = k[1]; k[1] = s; }
  if (k[1] > k[2]) { int32_t s = k[1]; k[1] = k[2]; k[2] = s; }
  if (k[0] > k[1]) { int32_t s = k[0]; k[0] = k[1]; k[1] = s; }
}

typedef struct face_rec {
  int32_t k[3];
  int32_t id; /* 4 cell + opposite corner */
} face_rec;

static int face_cmp(const void *pa, const void *pb) {
  const face_rec *a = pa, *b = pb;
  for (int i = 0; i < 3; ++i)
    if (a->k[i] != b->k[i]) return a->k[i] < b->k[i] ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* Which cell faces were shared at rest: by the roots of their corners, which fracture by node
 * replication never changes (a copy keeps its origin's root). */
static cl_status pair_faces(cl_islands *c, const cl_body_state *st, const char *owner) {
  const int32_t nf = 4 * st->ncells;
  face_rec *f = cl_malloc(sizeof *f * (size_t)(nf > 0 ? nf : 1), "rest faces");
  if (!f) return cl_fail_context(CL_ERR_OUT_OF_MEMORY, "%s: ", owner);
  cl_status r = CL_RESIZE(c->pair, (size_t)(nf > 0 ? nf : 1), "rest face pairs");
  if (r < 0) {
    free(f);
    return cl_fail_context(r, "%s: ", owner);
  }
  for (int32_t e = 0; e < st->ncells; ++e)
    for (int a = 0; a < 4; ++a) {
      face_key(st->cells + 4 * e, c->root, a, f[4 * e + a].k);
      f[4 * e + a].id = 4 * e + a;
    }
  qsort(f, (size_t)nf, sizeof *f, face_cmp);
  for (int32_t i = 0; i < nf; ++i) c->pair[i] = -1;
  for (int32_t i = 0; i + 1 < nf; ++i)
    if (!memcmp(f[i].k, f[i + 1].k, sizeof f[i].k)) {
      c->pair[f[i].id] = f[i + 1].id;
      c->pair[f[i + 1].id] = f[i].id;
      ++i;
    }
  free(f);
  c->pair_cells = st->ncells;
  return CL_OK;
}

/* Crack flags. A face two tets shared at rest and no longer share is a crack face. A corner both
 * copies of it still have (the same node in both tets) is a tip: the crack runs into the node's star
 * and ends there, the node itself being still whole. The other corners have been split: they lie on
 * the crack's surface, behind its front, and count as surface nodes. A node sharing a tet with a tip
 * is near it. */
static void mark_cracks(cl_islands *c, const cl_body_state *st) {
  memset(c->crack, CL_CRACK_NONE, (size_t)st->n);
  for (int32_t i = 0; i < 4 * st->ncells; ++i) {
    const int32_t j = c->pair[i];
    if (j < i) continue;
    int32_t a[3], b[3];
    face_key(st->cells + 4 * (i / 4), NULL, i % 4, a);
    face_key(st->cells + 4 * (j / 4), NULL, j % 4, b);
    if (!memcmp(a, b, sizeof a)) continue;
    for (int k = 0; k < 3; ++k)
      for (int l = 0; l < 3; ++l)
        if (a[k] == b[l]) c->crack[a[k]] = CL_CRACK_ON;
  }
  for (int32_t e = 0; e < st->ncells; ++e) {
    const int32_t *t = st->cells + 4 * e;
    if (c->crack[t[0]] != CL_CRACK_ON && c->crack[t[1]] != CL_CRACK_ON && c->crack[t[2]] != CL_CRACK_ON &&
        c->crack[t[3]] != CL_CRACK_ON)
      continue;
    for (int a = 0; a < 4; ++a)
      if (c->crack[t[a]] == CL_CRACK_NONE) c->crack[t[a]] = CL_CRACK_NEAR;
  }
}

cl_status cl_islands_update(cl_islands *c, const cl_body_state *st, const char *owner) {
  if (c->version == st->topology_version && c->n == st->n) return CL_OK;
  if (st->n > c->node_cap) {
    const size_t cap = cl_grow_capacity((size_t)c->node_cap, (size_t)st->n, INT32_MAX);
    cl_status r = CL_RESIZE(c->label, cap, "island labels");
    if (r == CL_OK) r = CL_RESIZE(c->root, cap, "node roots");
    if (r == CL_OK) r = CL_RESIZE(c->crack, cap, "crack flags");
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
  /* roots: a copy is appended after the node it copies, so one forward pass follows every chain */
  for (int32_t i = 0; i < st->n; ++i) {
    const int32_t o = st->origin ? st->origin[i] : i;
    c->root[i] = (o >= 0 && o < i) ? c->root[o] : i;
  }
  if (c->pair_cells != st->ncells) CL_TRY(pair_faces(c, st, owner));
  mark_cracks(c, st);
  c->version = st->topology_version;
  c->n = st->n;
  return CL_OK;
}

cl_status cl_islands_select(cl_islands *c, int crack_tips, int largest_only, cl_event_list *out) {
  cl_event_list *cand = &c->candidates;
  int32_t nisl = 0;
  for (int32_t i = 0; i < c->n; ++i)
    if (c->label[i] + 1 > nisl) nisl = c->label[i] + 1;
  if (crack_tips && nisl > c->best_cap) {
    CL_TRY(CL_RESIZE(c->best, (size_t)nisl, "crack starts per island"));
    c->best_cap = nisl;
  }
  if (crack_tips)
    for (int32_t i = 0; i < nisl; ++i) c->best[i] = -1;
  int32_t top = -1;
  for (int32_t k = 0; k < cand->count; ++k) {
    const cl_fracture_event *e = &cand->items[k];
    const int32_t node = e->split_node.node;
    if (crack_tips) {
      if (c->crack[node] == CL_CRACK_NEAR) continue;
      int32_t *b = &c->best[c->label[node]];
      if (c->crack[node] == CL_CRACK_NONE) {
        if (*b != -2 && (*b < 0 || e->priority > cand->items[*b].priority)) *b = k;
        continue;
      }
      *b = -2; /* a crack of this piece grows: it starts no other this step */
    }
    if (largest_only) {
      if (top < 0 || e->priority > cand->items[top].priority) top = k;
    } else {
      CL_TRY(cl_event_push(out, e));
    }
  }
  if (crack_tips)
    for (int32_t i = 0; i < nisl; ++i) {
      const int32_t k = c->best[i];
      if (k < 0) continue;
      if (largest_only) {
        if (top < 0 || cand->items[k].priority > cand->items[top].priority) top = k;
      } else {
        CL_TRY(cl_event_push(out, &cand->items[k]));
      }
    }
  if (largest_only && top >= 0) CL_TRY(cl_event_push(out, &cand->items[top]));
  cand->count = 0;
  return CL_OK;
}
