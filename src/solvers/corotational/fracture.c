/* The topology operation of the corotational solver: fracture by node replication along element
 * faces (thesis sec 5.4, Alg. 9; O'Brien & Hodgins 1999 sec 4 without element splitting, as in
 * Parker & O'Brien 2009), aesthetic joint pruning (sec 5.4.1) and the rebuild after a change.
 *
 * One event (node n, plane normal nrm):
 *   - the elements around n are sorted by the side of the plane through x_n their centre lies on,
 *     (c_e - x_n) . nrm > 0 being the positive side ("a distance from plane to element center");
 *   - if either side is empty the replica would carry no element: the event is skipped;
 *   - otherwise n is replicated into a new node q (same x, v, X; origin[q] = n) and the elements on
 *     the positive side take q instead of n. Elements are never split, so cracks run along faces.
 *   - the plastic strain of the elements around n is reduced by the factor plastic_relief (thesis
 *     sec 5.6: "all elements attached to the fractured node have their plasticity reduced"), so a
 *     node that just broke does not break again at once;
 *   - joint pruning then breaks the ball and hinge joints the split left around n and its neighbours.
 * A split_unit event (criteria that name a failed unit, such as cluster_stretch) splits the unit's
 * corner nearest to the crack plane through the unit's centre the same way (apply_split_unit); without
 * a plane it detaches the unit: each of its corners shared with another element is replicated and the
 * unit takes the copy.
 * Events on islands of at most min_island_elements elements are skipped (thesis sec 5.4: fracture on
 * such islands only makes single-tet islands). Replication conserves mass and momentum: masses are
 * relumped (each element keeps density V / 4 per corner) and a copy moves with its original.
 *
 * Node -> elements lookup inside one operation without rebuilding the incidence after every split:
 * a node appended during the operation descends from a node that existed when the incidence was last
 * built, and its elements are a subset of that ancestor's; so elements_of(c) filters the ancestor's
 * list for elements that still have c as a corner. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "solvers/corotational/corot.h"

/* Scratch of one fracture operation. */
typedef struct frac_ctx {
  cl_corot *s;
  cl_body_state *st;
  int32_t base;          /* st->n when the incidence was built */
  int32_t *anc;          /* ancestor (< base) of nodes >= base */
  int32_t anc_cap;
  int32_t elems[512];    /* elements of the node being worked on */
  int32_t nelems;
  int overflow;          /* the node has more than 512 elements: it is left alone */
  int32_t *work;         /* joint pruning worklist */
  int32_t work_n, work_cap;
} frac_ctx;

static int32_t ancestor(const frac_ctx *c, int32_t node) { return node < c->base ? node : c->anc[node - c->base]; }

/* Elements having `node` as a corner, into c->elems. */
static void elements_of(frac_ctx *c, int32_t node) {
  const cl_corot *s = c->s;
  const int32_t a = ancestor(c, node);
  c->nelems = 0;
  c->overflow = 0;
  for (int32_t q = s->inc_ptr[a]; q < s->inc_ptr[a + 1]; ++q) {
    const int32_t e = s->inc[q] >> 2;
    const int32_t *t = c->st->cells + 4 * e;
    if (t[0] != node && t[1] != node && t[2] != node && t[3] != node) continue;
    if (c->nelems == 512) {
      c->overflow = 1; /* far beyond any tet mesh worth simulating; never split such a node */
      return;
    }
    c->elems[c->nelems++] = e;
  }
}

/* Append a copy of node p; returns its index or -1 (message set) on failure. */
static int32_t replicate(frac_ctx *c, int32_t p) {
  cl_body_state *st = c->st;
  const int32_t q = st->n;
  if (cl_body_state_resize(st, q + 1) < 0) return -1;
  for (int k = 0; k < 3; ++k) {
    st->x[3 * q + k] = st->x[3 * p + k];
    st->v[3 * q + k] = st->v[3 * p + k];
    st->X[3 * q + k] = st->X[3 * p + k];
  }
  st->m[q] = 0.0; /* relumped at the end of the operation */
  st->origin[q] = p;
  if (q - c->base >= c->anc_cap) {
    const size_t cap = cl_grow_capacity((size_t)c->anc_cap, (size_t)(q - c->base) + 1, INT32_MAX);
    if (CL_RESIZE(c->anc, cap, "fracture: node ancestors") < 0) return -1;
    c->anc_cap = (int32_t)cap;
  }
  c->anc[q - c->base] = ancestor(c, p);
  return q;
}

static void set_corner(cl_body_state *st, int32_t e, int32_t from, int32_t to) {
  for (int a = 0; a < 4; ++a)
    if (st->cells[4 * e + a] == from) st->cells[4 * e + a] = to;
}

static cl_vec3 centre(const cl_body_state *st, int32_t e) {
  const int32_t *t = st->cells + 4 * e;
  cl_vec3 c = cl_vec3_zero();
  for (int a = 0; a < 4; ++a) c = cl_vec3_add(c, cl_vec3_load(st->x, t[a]));
  return cl_vec3_scale(c, 0.25);
}

static cl_status push_work(frac_ctx *c, int32_t node) {
  if (c->work_n == c->work_cap) {
    const size_t cap = cl_grow_capacity((size_t)c->work_cap, (size_t)c->work_n + 1, INT32_MAX);
    CL_TRY(CL_RESIZE(c->work, cap, "joint pruning worklist"));
    c->work_cap = (int32_t)cap;
  }
  c->work[c->work_n++] = node;
  return CL_OK;
}

/* Do elements e and f share a face that contains `node`? (They share `node`; a face through it
 * needs two more common corners.) */
static int share_face_at(const cl_body_state *st, int32_t e, int32_t f, int32_t node) {
  const int32_t *a = st->cells + 4 * e, *b = st->cells + 4 * f;
  int common = 0;
  for (int i = 0; i < 4; ++i) {
    if (a[i] == node) continue;
    for (int j = 0; j < 4; ++j)
      if (a[i] == b[j]) ++common;
  }
  return common >= 2;
}

static int32_t find_root(int32_t *parent, int32_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

/* Split `node` if its elements form several face-connected groups around it: the group of its first
 * element keeps the node, every other group gets a copy. Pushes the corners of moved elements. */
static cl_status prune_node(frac_ctx *c, int32_t node, int32_t *added) {
  elements_of(c, node);
  const int32_t k = c->nelems;
  if (k < 2 || c->overflow) return CL_OK;
  int32_t parent[512], group_node[512];
  for (int32_t i = 0; i < k; ++i) parent[i] = i;
  for (int32_t i = 0; i < k; ++i)
    for (int32_t j = i + 1; j < k; ++j) {
      int32_t ri = find_root(parent, i), rj = find_root(parent, j);
      if (ri != rj && share_face_at(c->st, c->elems[i], c->elems[j], node)) parent[rj] = ri;
    }
  const int32_t keep = find_root(parent, 0);
  for (int32_t i = 0; i < k; ++i) group_node[i] = -1;
  int32_t elems[512];
  memcpy(elems, c->elems, sizeof(int32_t) * (size_t)k);
  for (int32_t i = 0; i < k; ++i) {
    int32_t r = find_root(parent, i);
    if (r == keep) continue;
    if (group_node[r] < 0) {
      group_node[r] = replicate(c, node);
      if (group_node[r] < 0) return CL_ERR_OUT_OF_MEMORY;
      ++*added;
    }
    set_corner(c->st, elems[i], node, group_node[r]);
    for (int a = 0; a < 4; ++a) CL_TRY(push_work(c, c->st->cells[4 * elems[i] + a]));
  }
  return CL_OK;
}

static cl_status prune_worklist(frac_ctx *c, int32_t *added) {
  /* every split adds a node and removes a joint, so this ends; the cap is a guard against a bug */
  int64_t guard = 16 * ((int64_t)c->st->n + (int64_t)c->st->ncells) + 1024;
  while (c->work_n > 0 && guard-- > 0) {
    int32_t node = c->work[--c->work_n];
    CL_TRY(prune_node(c, node, added));
  }
  return CL_OK;
}

cl_status cl_corot_prune_joints(cl_corot *s, cl_body_state *st, const int32_t *seeds, int32_t nseeds,
                                int32_t *added) {
  frac_ctx c;
  memset(&c, 0, sizeof c);
  c.s = s;
  c.st = st;
  c.base = s->inc_nodes;
  *added = 0;
  cl_status r = CL_OK;
  for (int32_t i = 0; i < nseeds && r == CL_OK; ++i)
    if (seeds[i] >= 0 && seeds[i] < c.base) r = push_work(&c, seeds[i]);
  if (r == CL_OK) r = prune_worklist(&c, added);
  free(c.anc);
  free(c.work);
  if (r == CL_OK && *added) cl_corot_lump_masses(s, st);
  return r;
}

/* The island of a node or element as of the last rebuild, too small to fracture? */
static int small_island(const cl_corot *s, int32_t island) {
  return island < 0 || island >= s->nislands || s->islands[island].nelems <= (int32_t)s->p[CL_COROT_MIN_ISLAND];
}

static void relieve_plasticity(cl_corot *s, const int32_t *elems, int32_t k) {
  const double keep = 1.0 - s->p[CL_COROT_PLASTIC_RELIEF];
  for (int32_t i = 0; i < k; ++i)
    for (int j = 0; j < 6; ++j) s->eps_p[6 * (size_t)elems[i] + j] *= keep;
}

/* Detach element e from its neighbours (events without a node). Returns 1 if anything changed. */
static cl_status detach(frac_ctx *c, int32_t e, int *changed) {
  *changed = 0;
  for (int a = 0; a < 4; ++a) {
    const int32_t node = c->st->cells[4 * e + a];
    elements_of(c, node);
    if (c->nelems < 2 || c->overflow) continue;
    int32_t q = replicate(c, node);
    if (q < 0) return CL_ERR_OUT_OF_MEMORY;
    c->st->cells[4 * e + a] = q;
    *changed = 1;
  }
  return CL_OK;
}

/* Split node n by the plane through it with normal nrm. */
static cl_status split_node(frac_ctx *c, int32_t n, cl_vec3 nrm, int *changed) {
  *changed = 0;
  cl_body_state *st = c->st;
  elements_of(c, n);
  const int32_t k = c->nelems;
  if (c->overflow) return CL_OK;
  int32_t elems[512], pos = 0;
  memcpy(elems, c->elems, sizeof(int32_t) * (size_t)k);
  const cl_vec3 xn = cl_vec3_load(st->x, n);
  unsigned char side[512];
  for (int32_t i = 0; i < k; ++i) {
    side[i] = cl_vec3_dot(cl_vec3_sub(centre(st, elems[i]), xn), nrm) > 0.0;
    pos += side[i];
  }
  if (pos == 0 || pos == k) return CL_OK; /* the replica would have no element: skip the event */
  int32_t q = replicate(c, n);
  if (q < 0) return CL_ERR_OUT_OF_MEMORY;
  for (int32_t i = 0; i < k; ++i)
    if (side[i]) set_corner(st, elems[i], n, q);
  relieve_plasticity(c->s, elems, k);
  *changed = 1;
  if (c->s->p[CL_COROT_JOINT_PRUNING] != 0.0) {
    CL_TRY(push_work(c, n));
    CL_TRY(push_work(c, q));
    for (int32_t i = 0; i < k; ++i)
      for (int a = 0; a < 4; ++a) CL_TRY(push_work(c, st->cells[4 * elems[i] + a]));
  }
  return CL_OK;
}

static int finite3(const double *a) { return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]); }

/* A split_node event: node n along the plane with the event's normal (zero normal: the plane that
 * puts the raising unit on the positive side). */
static cl_status apply_split_node(frac_ctx *c, const cl_fracture_event *ev, int *changed) {
  const cl_corot *s = c->s;
  const int32_t n = ev->split_node.node, unit = ev->split_node.unit;
  *changed = 0;
  if (n < 0 || n >= c->base || unit >= s->ntets || !finite3(ev->split_node.normal)) return CL_OK;
  if (small_island(s, s->node_island[n])) return CL_OK;
  const double *g = ev->split_node.normal;
  cl_vec3 nrm = cl_vec3_normalize(cl_vec3_make(g[0], g[1], g[2]));
  if (cl_vec3_norm2(nrm) == 0.0 && unit >= 0)
    nrm = cl_vec3_normalize(cl_vec3_sub(centre(c->st, unit), cl_vec3_load(c->st->x, n)));
  if (cl_vec3_norm2(nrm) == 0.0) return CL_OK;
  return split_node(c, n, nrm, changed);
}

/* A split_unit event on tet e. Elements are never split, so a crack plane through the tet's centre
 * becomes the node split of O'Brien & Hodgins at the corner nearest to that plane (the plane through
 * the corner with the same normal is then the closest such plane to the one asked for); when that
 * corner cannot split (all its elements on one side), the next nearest is tried. Without a normal
 * the tet is detached from its neighbours. */
static cl_status apply_split_unit(frac_ctx *c, const cl_fracture_event *ev, int *changed) {
  cl_corot *s = c->s;
  const int32_t e = ev->split_unit.unit;
  *changed = 0;
  if (e < 0 || e >= s->ntets || !finite3(ev->split_unit.normal)) return CL_OK;
  if (small_island(s, s->elem_island[e])) return CL_OK;
  const double *g = ev->split_unit.normal;
  const cl_vec3 nrm = cl_vec3_normalize(cl_vec3_make(g[0], g[1], g[2]));
  if (cl_vec3_norm2(nrm) == 0.0) {
    CL_TRY(detach(c, e, changed));
    if (*changed) relieve_plasticity(s, &e, 1);
    return CL_OK;
  }
  const cl_vec3 ce = centre(c->st, e);
  int32_t corner[4];
  double dist[4];
  for (int a = 0; a < 4; ++a) {
    corner[a] = c->st->cells[4 * e + a];
    dist[a] = fabs(cl_vec3_dot(cl_vec3_sub(cl_vec3_load(c->st->x, corner[a]), ce), nrm));
  }
  for (int a = 1; a < 4; ++a) /* insertion sort of 4 by distance, ties by index (deterministic) */
    for (int b = a; b > 0 && (dist[b] < dist[b - 1] || (dist[b] == dist[b - 1] && corner[b] < corner[b - 1])); --b) {
      double td = dist[b];
      dist[b] = dist[b - 1];
      dist[b - 1] = td;
      int32_t tc = corner[b];
      corner[b] = corner[b - 1];
      corner[b - 1] = tc;
    }
  for (int a = 0; a < 4 && !*changed; ++a) CL_TRY(split_node(c, corner[a], nrm, changed));
  return CL_OK;
}

cl_status cl_corot_fracture(void *solver, cl_body_state *st, const cl_fracture_event *events, int32_t count,
                            int32_t *applied) {
  cl_corot *s = solver;
  *applied = 0;
  if (count <= 0) return CL_OK;
  if (s->inc_nodes != st->n)
    return cl_fail(CL_ERR_STATE, "fracture called on a state the solver has not seen (%d nodes, expected %d)",
                   st->n, s->inc_nodes);
  frac_ctx c;
  memset(&c, 0, sizeof c);
  c.s = s;
  c.st = st;
  c.base = st->n;
  cl_status r = CL_OK;
  int32_t pruned = 0;
  for (int32_t i = 0; i < count && r == CL_OK; ++i) {
    const cl_fracture_event *ev = &events[i];
    int changed = 0;
    switch (ev->kind) {
      case CL_EVENT_SPLIT_NODE:
        r = apply_split_node(&c, ev, &changed);
        break;
      case CL_EVENT_SPLIT_UNIT:
        r = apply_split_unit(&c, ev, &changed);
        break;
      case CL_EVENT_DAMAGE_EDGE: /* not in caps.applies: the world never hands these over */
      case CL_EVENT_CUT_SURFACE:
      case CL_EVENT_KIND_COUNT:
        break;
    }
    if (r == CL_OK && changed) {
      r = prune_worklist(&c, &pruned);
      ++*applied;
    }
  }
  free(c.anc);
  free(c.work);
  if (st->n > c.base) cl_corot_lump_masses(s, st);
  if (r < 0) return cl_fail_context(r, "fracture: ");
  return CL_OK;
}

cl_status cl_corot_topology_changed(void *solver, cl_body_state *st) {
  cl_corot *s = solver;
  cl_corot_lump_masses(s, st);
  return cl_corot_build_islands(s, st);
}
