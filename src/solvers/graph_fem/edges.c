/* The edge graph of the tet mesh (the "graph" of graph-based FEM: the paper's sec 3.1, the mesh's
 * vertices and edges as nodes and edges), its damage, the pieces it falls into, and the visual
 * surface that splits along broken edges (the paper's M_v, Fig. 1c). An edge is cut (broken in the
 * graph) when no element joins its two nodes any more: its damage everywhere is 1, or its own damage
 * is 1 in every element that has it (a crack through all of them). */
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

cl_status cl_gfem_visual_surface(cl_gfem *s, const cl_body_state *st) {
  if (s->surface_version == s->damage_version) return CL_OK;
  int32_t *keep = cl_malloc(sizeof(int32_t) * 4 * (size_t)(s->ntets > 0 ? s->ntets : 1), "graph_fem surface");
  if (!keep) return CL_ERR_OUT_OF_MEMORY;
  int32_t nk = 0;
  for (int32_t t = 0; t < s->ntets; ++t) {
    double d[6];
    int broken = 0;
    cl_gfem_element_damage(s, t, d);
    for (int k = 0; k < 6; ++k) broken |= d[k] >= 1.0;
    if (broken) continue;
    memcpy(keep + 4 * nk, st->cells + 4 * t, 4 * sizeof(int32_t));
    ++nk;
  }
  int32_t *tris = NULL, ntris = 0;
  cl_status r = cl_boundary_faces(nk, keep, &tris, &ntris);
  free(keep);
  if (r < 0) return r;
  free(s->tris);
  s->tris = tris;
  s->ntris = ntris;
  s->surface_version = s->damage_version;
  return CL_OK;
}
