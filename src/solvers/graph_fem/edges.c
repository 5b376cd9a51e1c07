/* The edge graph of the tet mesh (the "graph" of graph-based FEM: the paper's sec 3.1, the mesh's
 * vertices and edges as nodes and edges), its damage, the pieces it falls into, and the visual
 * surface that splits along broken edges (the paper's M_v, Fig. 1c). An edge is cut (broken in the
 * graph) when no element joins its two nodes any more: its damage everywhere is 1, or its own damage
 * is 1 in every element that has it (a crack through all of them). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/boundary.h"
#include "geom/tet_edges.h"
#include "solvers/graph_fem/gfem.h"

cl_status cl_gfem_build_edges(cl_gfem *s, const cl_body_state *st) {
  const int32_t n = st->n, nt = st->ncells;
  const int32_t *cells = st->cells;
  CL_TRY(CL_RESIZE(s->tet_edge, 6 * (size_t)nt, "graph_fem edges"));
  free(s->edge);
  s->edge = NULL;
  CL_TRY(cl_tet_edge_list(n, nt, cells, &s->edge, &s->nedges, s->tet_edge));
  const int32_t ne = s->nedges;
  cl_status r = CL_OK;
  if ((r = CL_RESIZE(s->damage, (size_t)ne, "graph_fem damage")) < 0 ||
      (r = CL_RESIZE(s->adj_ptr, (size_t)n + 1, "graph_fem adjacency")) < 0 ||
      (r = CL_RESIZE(s->adj_nb, 2 * (size_t)ne, "graph_fem adjacency")) < 0 ||
      (r = CL_RESIZE(s->adj_edge, 2 * (size_t)ne, "graph_fem adjacency")) < 0 ||
      (r = CL_RESIZE(s->inc_ptr, (size_t)n + 1, "graph_fem incidence")) < 0 ||
      (r = CL_RESIZE(s->inc, 4 * (size_t)nt, "graph_fem incidence")) < 0 ||
      (r = CL_RESIZE(s->edamage, 6 * (size_t)nt, "graph_fem element damage")) < 0 ||
      (r = CL_RESIZE(s->edge_tets, (size_t)ne, "graph_fem edges")) < 0 ||
      (r = CL_RESIZE(s->edge_local_broken, (size_t)ne, "graph_fem edges")) < 0 ||
      (r = CL_RESIZE(s->cut, (size_t)ne, "graph_fem edges")) < 0)
    return r;
  memset(s->damage, 0, sizeof(double) * (size_t)ne);
  memset(s->edamage, 0, sizeof(double) * 6 * (size_t)nt);
  memset(s->edge_tets, 0, sizeof(int32_t) * (size_t)ne);
  memset(s->edge_local_broken, 0, sizeof(int32_t) * (size_t)ne);
  memset(s->cut, 0, (size_t)ne);
  for (size_t q = 0; q < 6 * (size_t)nt; ++q) s->edge_tets[s->tet_edge[q]]++;
  double len = 0.0;
  for (int32_t e = 0; e < ne; ++e) {
    const double *a = st->X + 3 * (size_t)s->edge[2 * e], *b = st->X + 3 * (size_t)s->edge[2 * e + 1];
    len += sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
  }
  s->mean_edge = ne > 0 ? len / ne : 0.0;
  /* adjacency (CSR, symmetric) */
  memset(s->adj_ptr, 0, sizeof(int32_t) * ((size_t)n + 1));
  for (int32_t e = 0; e < ne; ++e) {
    s->adj_ptr[s->edge[2 * e] + 1]++;
    s->adj_ptr[s->edge[2 * e + 1] + 1]++;
  }
  for (int32_t i = 0; i < n; ++i) s->adj_ptr[i + 1] += s->adj_ptr[i];
  int32_t *fill = cl_calloc((size_t)n + 1, sizeof *fill, "graph_fem adjacency");
  if (!fill) return CL_ERR_OUT_OF_MEMORY;
  for (int32_t e = 0; e < ne; ++e)
    for (int q = 0; q < 2; ++q) {
      const int32_t a = s->edge[2 * e + q], b = s->edge[2 * e + 1 - q];
      const int32_t at = s->adj_ptr[a] + fill[a]++;
      s->adj_nb[at] = b;
      s->adj_edge[at] = e;
    }
  /* node -> (tet, corner) incidence */
  memset(fill, 0, sizeof(int32_t) * ((size_t)n + 1));
  memset(s->inc_ptr, 0, sizeof(int32_t) * ((size_t)n + 1));
  for (int32_t t = 0; t < nt; ++t)
    for (int a = 0; a < 4; ++a) s->inc_ptr[cells[4 * t + a] + 1]++;
  for (int32_t i = 0; i < n; ++i) s->inc_ptr[i + 1] += s->inc_ptr[i];
  for (int32_t t = 0; t < nt; ++t)
    for (int a = 0; a < 4; ++a) {
      const int32_t i = cells[4 * t + a];
      s->inc[s->inc_ptr[i] + fill[i]++] = 4 * t + a;
    }
  free(fill);
  s->pieces_version = s->surface_version = -1;
  return CL_OK;
}

int32_t cl_gfem_edge(const cl_gfem *s, int32_t a, int32_t b) {
  if (a < 0 || b < 0 || a >= s->nnodes || b >= s->nnodes) return -1;
  for (int32_t q = s->adj_ptr[a]; q < s->adj_ptr[a + 1]; ++q)
    if (s->adj_nb[q] == b) return s->adj_edge[q];
  return -1;
}

static int32_t find_root(int32_t *parent, int32_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

cl_status cl_gfem_pieces(cl_gfem *s) {
  if (s->pieces_version == s->damage_version) return CL_OK;
  const int32_t n = s->nnodes;
  CL_TRY(CL_RESIZE(s->plabel, (size_t)(n > 0 ? n : 1), "graph_fem piece labels"));
  int32_t *parent = s->plabel;
  for (int32_t i = 0; i < n; ++i) parent[i] = i;
  for (int32_t e = 0; e < s->nedges; ++e) {
    if (s->cut[e]) continue;
    int32_t a = find_root(parent, s->edge[2 * e]), b = find_root(parent, s->edge[2 * e + 1]);
    if (a != b) parent[a > b ? a : b] = a > b ? b : a;
  }
  /* labels 0, 1, ... in order of first node */
  int32_t *label = cl_malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1), "graph_fem piece labels");
  if (!label) return CL_ERR_OUT_OF_MEMORY;
  for (int32_t i = 0; i < n; ++i) label[i] = -1;
  int32_t count = 0;
  for (int32_t i = 0; i < n; ++i) {
    const int32_t r = find_root(parent, i);
    if (label[r] < 0) label[r] = count++;
    label[i] = label[r];
  }
  memcpy(s->plabel, label, sizeof(int32_t) * (size_t)n);
  free(label);
  s->npieces = count;
  s->pieces_version = s->damage_version;
  return CL_OK;
}

/* 1 if a crack runs through tet t: its corners fall apart over its unbroken edges (a plane through a
 * tet crosses three or four of its edges; one broken edge alone leaves the tet whole). */
static int tet_is_crossed(const cl_gfem *s, int32_t t) {
  int comp[4] = {0, 1, 2, 3};
  double d[6];
  cl_gfem_element_damage(s, t, d);
  for (int k = 0; k < 6; ++k) {
    if (d[k] >= 1.0) continue;
    const int a = comp[cl_tet_edge_corners[k][0]], b = comp[cl_tet_edge_corners[k][1]];
    if (a == b) continue;
    for (int c = 0; c < 4; ++c)
      if (comp[c] == b) comp[c] = a;
  }
  return comp[1] != comp[0] || comp[2] != comp[0] || comp[3] != comp[0];
}

/* The kept tets around edge k fall into fans: sets joined through the faces that hold the edge (two
 * tets around the edge share such a face when they share a third node). Every fan but the largest
 * (the first of equal ones) is dropped from `kept`; returns how many tets were dropped. */
static int32_t keep_largest_fan(const cl_gfem *s, const cl_body_state *st, int32_t k, uint8_t *kept) {
  enum { MAX_AROUND = 64 };
  const int32_t a = s->edge[2 * (size_t)k], b = s->edge[2 * (size_t)k + 1];
  int32_t tet[MAX_AROUND], other[MAX_AROUND][2], fan[MAX_AROUND], size[MAX_AROUND];
  int32_t n = 0;
  for (int32_t q = s->inc_ptr[a]; q < s->inc_ptr[a + 1]; ++q) {
    const int32_t e = s->inc[q] >> 2;
    const int32_t *t = st->cells + 4 * (size_t)e;
    if (!kept[e] || (t[0] != b && t[1] != b && t[2] != b && t[3] != b)) continue;
    if (n == MAX_AROUND) break; /* never in a tet mesh of sane quality; the rest stay */
    int m = 0;
    for (int c = 0; c < 4; ++c)
      if (t[c] != a && t[c] != b) other[n][m++] = t[c];
    tet[n] = e;
    fan[n] = n;
    ++n;
  }
  /* label propagation over the few tets around the edge */
  for (int changed = 1; changed;) {
    changed = 0;
    for (int32_t i = 0; i < n; ++i)
      for (int32_t j = 0; j < n; ++j) {
        const int shares = other[i][0] == other[j][0] || other[i][0] == other[j][1] || other[i][1] == other[j][0] ||
                           other[i][1] == other[j][1];
        if (i != j && shares && fan[j] < fan[i]) fan[i] = fan[j], changed = 1;
      }
  }
  int32_t best = -1;
  for (int32_t i = 0; i < n; ++i) size[i] = 0;
  for (int32_t i = 0; i < n; ++i) size[fan[i]]++;
  for (int32_t i = 0; i < n; ++i)
    if (best < 0 || size[i] > size[best]) best = i;
  int32_t dropped = 0;
  for (int32_t i = 0; i < n; ++i)
    if (fan[i] != best) kept[tet[i]] = 0, ++dropped;
  return dropped;
}

/* The boundary of the kept tets, into s->tris. */
static cl_status boundary_of_kept(cl_gfem *s, const cl_body_state *st, const uint8_t *kept, int32_t *keep) {
  int32_t nk = 0;
  for (int32_t t = 0; t < s->ntets; ++t)
    if (kept[t]) memcpy(keep + 4 * nk++, st->cells + 4 * (size_t)t, 4 * sizeof(int32_t));
  int32_t *tris = NULL, ntris = 0;
  CL_TRY(cl_boundary_faces(nk, keep, &tris, &ntris));
  free(s->tris);
  s->tris = tris;
  s->ntris = ntris;
  return CL_OK;
}

/* The visual surface M_v: the boundary of the tets no crack runs through. Where cracks leave two
 * groups of such tets touching along an edge only, that edge would hold four (or more) boundary
 * triangles: every group but the largest around the edge is left out too (repeated until none is
 * left), so every edge of the surface is in exactly two triangles (closed and edge-manifold: an OBJ
 * of it is watertight). */
cl_status cl_gfem_visual_surface(cl_gfem *s, const cl_body_state *st) {
  if (s->surface_version == s->damage_version) return CL_OK;
  const size_t nt = (size_t)(s->ntets > 0 ? s->ntets : 1);
  int32_t *keep = cl_malloc(sizeof(int32_t) * 4 * nt, "graph_fem surface");
  uint8_t *kept = cl_malloc(nt, "graph_fem surface");
  int32_t *count = cl_calloc((size_t)(s->nedges > 0 ? s->nedges : 1), sizeof(int32_t), "graph_fem surface");
  cl_status r = keep && kept && count ? CL_OK : CL_ERR_OUT_OF_MEMORY;
  for (int32_t t = 0; r == CL_OK && t < s->ntets; ++t) kept[t] = !tet_is_crossed(s, t);
  for (int32_t dropped = 1; r == CL_OK && dropped > 0;) {
    if ((r = boundary_of_kept(s, st, kept, keep)) < 0) break;
    memset(count, 0, sizeof(int32_t) * (size_t)s->nedges);
    for (int32_t f = 0; f < s->ntris; ++f)
      for (int c = 0; c < 3; ++c) {
        const int32_t k = cl_gfem_edge(s, s->tris[3 * f + c], s->tris[3 * f + (c + 1) % 3]);
        if (k >= 0) count[k]++;
      }
    dropped = 0;
    for (int32_t k = 0; k < s->nedges; ++k)
      if (count[k] > 2) dropped += keep_largest_fan(s, st, k, kept);
  }
  free(keep);
  free(kept);
  free(count);
  if (r < 0) return r;
  s->surface_version = s->damage_version;
  return CL_OK;
}
