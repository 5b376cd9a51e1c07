/* The topology operation of the corotational solver: fracture by node replication along element
 * faces (thesis sec 5.4, Alg. 9; O'Brien & Hodgins 1999 sec 4 without element splitting, as in
 * Parker & O'Brien 2009), aesthetic joint pruning (sec 5.4.1) and the rebuild after a change.
 *
 * One event (node n, plane normal nrm):
 *   - the elements around n are sorted by the side of the plane through x_n their centre lies on,
 *     (c_e - x_n) . nrm > 0 being the positive side ("a distance from plane to element center");
 *     with continue_cracks (default) a crack already at n keeps its sides and its plane (crack_sides);
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
 * Two rules the thesis does not have (docs/solvers/corotational.md, "Clean cracks"), both on by default:
 *   - skip_stale_events: an event whose node shares an element with a node split earlier in the same
 *     operation is skipped: the criterion measured its stress before that split changed it;
 *   - min_fragment_elements: a split_node event that, with the joints it prunes, would cut off a piece
 *     of at most that many elements or of at most that many mean element volumes is undone (every
 *     change is logged, so undoing restores the cells and drops the nodes appended): debris of a few
 *     elements is an artefact of cracks running along faces, not a fragment. A split_unit event names
 *     the unit to cut (or detach) and is applied as asked.
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
  int32_t *log;          /* pairs (4 e + corner, previous node) of the corners changed, in order */
  int32_t log_n, log_cap;
  int32_t relief[512];   /* elements whose plasticity the event relieves once it is kept */
  int32_t nrelief;
  int32_t *seen;         /* fragment search: elements of the piece being searched */
  int32_t seen_n, seen_cap;
  int64_t *mark;         /* per element: the search that visited it last (visit), or large */
  int64_t visit, large;
  unsigned char *stale;  /* per node < base: its stress is stale (a neighbour split this step) */
} frac_ctx;

static int32_t ancestor(const frac_ctx *c, int32_t node) { return node < c->base ? node : c->anc[node - c->base]; }

/* Append v to a growing list (what: the list's name in an out-of-memory message). */
static cl_status push_i32(int32_t **list, int32_t *n, int32_t *cap, int32_t v, const char *what) {
  if (*n == *cap) {
    const size_t grown = cl_grow_capacity((size_t)*cap, (size_t)*n + 1, INT32_MAX);
    CL_TRY(CL_RESIZE(*list, grown, what));
    *cap = (int32_t)grown;
  }
  (*list)[(*n)++] = v;
  return CL_OK;
}

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

/* Corner `a` of element e becomes node `to`; the change is logged so that an event can be undone. */
static cl_status set_corner_at(frac_ctx *c, int32_t e, int a, int32_t to) {
  CL_TRY(push_i32(&c->log, &c->log_n, &c->log_cap, 4 * e + a, "fracture: change log"));
  CL_TRY(push_i32(&c->log, &c->log_n, &c->log_cap, c->st->cells[4 * e + a], "fracture: change log"));
  c->st->cells[4 * e + a] = to;
  return CL_OK;
}

static cl_status set_corner(frac_ctx *c, int32_t e, int32_t from, int32_t to) {
  for (int a = 0; a < 4; ++a)
    if (c->st->cells[4 * e + a] == from) CL_TRY(set_corner_at(c, e, a, to));
  return CL_OK;
}

static cl_vec3 centre(const cl_body_state *st, int32_t e) {
  const int32_t *t = st->cells + 4 * e;
  cl_vec3 c = cl_vec3_zero();
  for (int a = 0; a < 4; ++a) c = cl_vec3_add(c, cl_vec3_load(st->x, t[a]));
  return cl_vec3_scale(c, 0.25);
}

static cl_status push_work(frac_ctx *c, int32_t node) {
  return push_i32(&c->work, &c->work_n, &c->work_cap, node, "joint pruning worklist");
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
    CL_TRY(set_corner(c, elems[i], node, group_node[r]));
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
  free(c.log);
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
    CL_TRY(set_corner_at(c, e, a, q));
    *changed = 1;
  }
  return CL_OK;
}

/* The node a node was copied from first: follow origin[] to a bound node (origin[i] = i). */
static int32_t root_of(const cl_body_state *st, int32_t i) {
  while (st->origin[i] != i) i = st->origin[i];
  return i;
}

/* Elements e and f of node's star share a face through `node` in the rest mesh (the roots of their
 * other corners) but no longer now: a crack face at `node` has e on one side and f on the other. */
static int crack_pair_at(const cl_body_state *st, int32_t e, int32_t f, int32_t node) {
  const int32_t *a = st->cells + 4 * e, *b = st->cells + 4 * f;
  int now = 0, rest = 0;
  for (int i = 0; i < 4; ++i) {
    if (a[i] == node) continue;
    const int32_t ra = root_of(st, a[i]);
    for (int j = 0; j < 4; ++j) {
      if (b[j] == node) continue;
      now += a[i] == b[j];
      rest += ra == root_of(st, b[j]);
    }
  }
  return rest >= 2 && now < 2;
}

/* Centroid of the face of element e through `node` that it shared with f in the rest mesh. */
static cl_vec3 shared_face_centre(const cl_body_state *st, int32_t e, int32_t f, int32_t node) {
  const int32_t *a = st->cells + 4 * e, *b = st->cells + 4 * f;
  cl_vec3 c = cl_vec3_load(st->x, node);
  for (int i = 0; i < 4; ++i) {
    if (a[i] == node) continue;
    const int32_t ra = root_of(st, a[i]);
    for (int j = 0; j < 4; ++j)
      if (b[j] != node && ra == root_of(st, b[j])) {
        c = cl_vec3_add(c, cl_vec3_load(st->x, a[i]));
        break;
      }
  }
  return cl_vec3_scale(c, 1.0 / 3.0);
}

/* Sides of the elements around node n for a crack plane of normal nrm (side[i] = 1: the positive
 * side, which takes the copy). The thesis (sec 5.4, Alg. 9) sorts them by the side of the plane
 * through x_n their centre lies on; alone, that rule lets two splits of a crack's neighbouring nodes
 * put the same element on opposite sides (their planes pass through different nodes), which leaves
 * that element hanging by a node or an edge: joint pruning then cuts it loose as single-tet debris.
 * With continue_cracks (not in the thesis; docs/solvers/corotational.md, "Clean cracks"):
 *   1. an element the existing crack already separates from a neighbour at n (a crack face at n)
 *      stays on that neighbour's other side: the new split continues the crack instead of cutting
 *      beside it;
 *   2. the plane for the other elements passes through the crack faces at n (the mean of their
 *      centroids) rather than through x_n, so the crack goes on in its own plane;
 *   3. an element none of whose face neighbours at n would share its side joins them. */
static void crack_sides(frac_ctx *c, int32_t n, cl_vec3 nrm, const int32_t *elems, int32_t k, unsigned char *side) {
  const cl_body_state *st = c->st;
  cl_vec3 cen[512];
  for (int32_t i = 0; i < k; ++i) cen[i] = centre(st, elems[i]);
  cl_vec3 p = cl_vec3_load(st->x, n);
  if (c->s->p[CL_COROT_CONTINUE_CRACKS] == 0.0) {
    for (int32_t i = 0; i < k; ++i) side[i] = cl_vec3_dot(cl_vec3_sub(cen[i], p), nrm) > 0.0;
    return;
  }
  signed char fixed[512];
  for (int32_t i = 0; i < k; ++i) fixed[i] = -1;
  cl_vec3 pc = cl_vec3_zero();
  int32_t faces = 0;
  for (int32_t i = 0; i < k; ++i)
    for (int32_t j = i + 1; j < k; ++j) {
      if (!crack_pair_at(st, elems[i], elems[j], n)) continue;
      pc = cl_vec3_add(pc, shared_face_centre(st, elems[i], elems[j], n));
      pc = cl_vec3_add(pc, shared_face_centre(st, elems[j], elems[i], n));
      faces += 2;
    }
  if (faces > 0) p = cl_vec3_scale(pc, 1.0 / (double)faces);
  for (int32_t i = 0; i < k && faces > 0; ++i)
    for (int32_t j = i + 1; j < k; ++j) {
      if (!crack_pair_at(st, elems[i], elems[j], n)) continue;
      /* only where the new plane runs along the existing crack: the pair's separation has a clear
       * component along the normal (more than cos 60 deg of its length) */
      const cl_vec3 d = cl_vec3_sub(cen[i], cen[j]);
      const double dn = cl_vec3_dot(d, nrm);
      if (dn * dn < 0.25 * cl_vec3_norm2(d)) continue;
      const signed char si = dn > 0.0, sj = !si;
      if ((fixed[i] >= 0 && fixed[i] != si) || (fixed[j] >= 0 && fixed[j] != sj)) continue;
      fixed[i] = si;
      fixed[j] = sj;
    }
  for (int32_t i = 0; i < k; ++i)
    side[i] = fixed[i] >= 0 ? (unsigned char)fixed[i] : cl_vec3_dot(cl_vec3_sub(cen[i], p), nrm) > 0.0;
  /* 3: a lone element among face neighbours of the other side follows them (a few sweeps) */
  for (int sweep = 0; sweep < 4; ++sweep) {
    int flipped = 0;
    for (int32_t i = 0; i < k; ++i) {
      if (fixed[i] >= 0) continue;
      int same = 0, other = 0;
      for (int32_t j = 0; j < k; ++j)
        if (j != i && share_face_at(st, elems[i], elems[j], n)) {
          if (side[j] == side[i]) ++same;
          else ++other;
        }
      if (same == 0 && other > 0) {
        side[i] = !side[i];
        flipped = 1;
      }
    }
    if (!flipped) break;
  }
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
  unsigned char side[512];
  crack_sides(c, n, nrm, elems, k, side);
  for (int32_t i = 0; i < k; ++i) pos += side[i];
  if (pos == 0 || pos == k) return CL_OK; /* the replica would have no element: skip the event */
  int32_t q = replicate(c, n);
  if (q < 0) return CL_ERR_OUT_OF_MEMORY;
  for (int32_t i = 0; i < k; ++i)
    if (side[i]) CL_TRY(set_corner(c, elems[i], n, q));
  memcpy(c->relief, elems, sizeof(int32_t) * (size_t)k);
  c->nrelief = k;
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
  if (c->stale && c->stale[n]) return CL_OK;
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
    c->relief[0] = e;
    c->nrelief = 1;
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

static cl_status push_seen(frac_ctx *c, int32_t e) {
  CL_TRY(push_i32(&c->seen, &c->seen_n, &c->seen_cap, e, "fracture: fragment search"));
  c->mark[e] = c->visit;
  return CL_OK;
}

/* Is element e on a piece (elements connected through shared nodes, the islands of sec 5.1.2) of at
 * most `count` elements or of rest volume at most `limit` (m^3)? A breadth-first search that stops
 * once it has seen more of both (or more than 4096 elements); the elements of a piece found large
 * are remembered for the rest of the check. */
static cl_status on_small_piece(frac_ctx *c, int32_t e, int32_t count, double limit, int *small) {
  *small = 0;
  if (c->mark[e] == c->large) return CL_OK;
  c->seen_n = 0;
  ++c->visit;
  CL_TRY(push_seen(c, e));
  double volume = c->s->vol[e];
  for (int32_t head = 0; head < c->seen_n; ++head) {
    const int32_t *t = c->st->cells + 4 * c->seen[head];
    for (int a = 0; a < 4; ++a) {
      elements_of(c, t[a]);
      for (int32_t i = 0; i < c->nelems && !c->overflow; ++i) {
        const int32_t f = c->elems[i];
        if (c->mark[f] == c->visit) continue;
        if (c->mark[f] == c->large || (volume > limit && c->seen_n > count) || c->seen_n > 4096) {
          for (int32_t j = 0; j < c->seen_n; ++j) c->mark[c->seen[j]] = c->large;
          return CL_OK;
        }
        CL_TRY(push_seen(c, f));
        volume += c->s->vol[f];
      }
      if (c->overflow) return CL_OK; /* a node with more than 512 elements is on no small piece */
    }
  }
  *small = volume <= limit || c->seen_n <= count;
  return CL_OK;
}

/* Did the changes logged from entry `from` on cut off a piece of rest volume at most `limit`? Such a
 * piece holds an element whose corner changed, or one that kept the node it changed from. */
static cl_status cuts_fragment(frac_ctx *c, int32_t from, int32_t count, double limit, int *cut) {
  *cut = 0;
  if (!c->mark) {
    c->mark = cl_malloc(sizeof(int64_t) * (size_t)(c->s->ntets > 0 ? c->s->ntets : 1), "fracture: fragment marks");
    if (!c->mark) return CL_ERR_OUT_OF_MEMORY;
    for (int32_t e = 0; e < c->s->ntets; ++e) c->mark[e] = -1;
  }
  c->large = ++c->visit;
  for (int32_t l = from; l < c->log_n && !*cut; l += 2) {
    CL_TRY(on_small_piece(c, c->log[l] / 4, count, limit, cut));
    elements_of(c, c->log[l + 1]);
    int32_t kept[512], k = c->overflow ? 0 : c->nelems;
    memcpy(kept, c->elems, sizeof(int32_t) * (size_t)k);
    for (int32_t i = 0; i < k && !*cut; ++i) CL_TRY(on_small_piece(c, kept[i], count, limit, cut));
  }
  return CL_OK;
}

/* Undo the changes logged from entry `from` on and drop the nodes appended since `nodes`. */
static void undo(frac_ctx *c, int32_t from, int32_t nodes) {
  for (int32_t l = c->log_n - 2; l >= from; l -= 2) c->st->cells[c->log[l]] = c->log[l + 1];
  c->log_n = from;
  c->st->n = nodes;
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
  const double mean_volume = s->mean_volume;
  const int32_t min_fragment = (int32_t)s->p[CL_COROT_MIN_FRAGMENT];
  cl_status r = CL_OK;
  if (s->p[CL_COROT_SKIP_STALE] != 0.0) {
    c.stale = cl_calloc((size_t)st->n, 1, "fracture: stale nodes");
    if (!c.stale) return CL_ERR_OUT_OF_MEMORY;
  }
  int32_t pruned = 0;
  for (int32_t i = 0; i < count && r == CL_OK; ++i) {
    const cl_fracture_event *ev = &events[i];
    const int32_t log_start = c.log_n, nodes_start = st->n;
    int changed = 0;
    c.nrelief = 0;
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
    if (r == CL_OK && changed) r = prune_worklist(&c, &pruned);
    if (r == CL_OK && changed && min_fragment > 0 && ev->kind == CL_EVENT_SPLIT_NODE) {
      int cut = 0;
      r = cuts_fragment(&c, log_start, min_fragment, min_fragment * mean_volume, &cut);
      if (r == CL_OK && cut) {
        undo(&c, log_start, nodes_start);
        changed = 0;
      }
    }
    if (r == CL_OK && changed) {
      relieve_plasticity(s, c.relief, c.nrelief);
      if (c.stale)
        for (int32_t j = 0; j < c.nrelief; ++j)
          for (int a = 0; a < 4; ++a) c.stale[ancestor(&c, st->cells[4 * c.relief[j] + a])] = 1;
      ++*applied;
    }
  }
  free(c.anc);
  free(c.work);
  free(c.log);
  free(c.seen);
  free(c.mark);
  free(c.stale);
  if (st->n > c.base) cl_corot_lump_masses(s, st);
  if (r < 0) return cl_fail_context(r, "fracture: ");
  return CL_OK;
}

cl_status cl_corot_topology_changed(void *solver, cl_body_state *st) {
  cl_corot *s = solver;
  cl_corot_lump_masses(s, st);
  return cl_corot_build_islands(s, st);
}
