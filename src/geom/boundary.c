/* Boundary faces of a tet mesh: a face is on the boundary when exactly one tet uses it.
 *
 * Faces are keyed by their sorted vertex triple. Instead of sorting all 4n faces, each face goes to
 * the bucket of its smallest vertex (a counting sort, O(n)); a bucket holds only the faces around
 * one vertex (about 20 on a tet mesh), so matching inside it is a tiny insertion sort. This runs
 * after every fracture event, hence the care. */
#include "geom/boundary.h"

#include <stdlib.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/mesh.h"

/* Local faces of tet (v0, v1, v2, v3) with positive volume, each counter-clockwise seen from
 * outside: the face opposite v0 is (v1, v2, v3), and so on. */
static const int FACE[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

typedef struct face_entry {
  uint64_t key;  /* (middle vertex << 32) | largest vertex */
  int32_t face;  /* 4 * tet + local face */
} face_entry;

static int cmp_entry(const void *pa, const void *pb) {
  const face_entry *a = pa, *b = pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return (a->face > b->face) - (a->face < b->face);
}

static void sort_bucket(face_entry *e, int32_t n) {
  if (n > 48) { /* a vertex with a very large star: avoid the quadratic insertion sort */
    qsort(e, (size_t)n, sizeof *e, cmp_entry);
    return;
  }
  for (int32_t i = 1; i < n; ++i) {
    face_entry x = e[i];
    int32_t j = i - 1;
    while (j >= 0 && (e[j].key > x.key || (e[j].key == x.key && e[j].face > x.face))) {
      e[j + 1] = e[j];
      --j;
    }
    e[j + 1] = x;
  }
}

cl_status cl_boundary_faces(int32_t ntets, const int32_t *tets, int32_t **tris_out, int32_t *ntris_out) {
  if (!tris_out || !ntris_out || (ntets > 0 && !tets) || ntets < 0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_boundary_faces: NULL argument or negative count");
  *tris_out = NULL;
  *ntris_out = 0;
  if (ntets > INT32_MAX / 4)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_boundary_faces: %d tets exceed the face index range", ntets);
  int32_t nv = 0;
  for (size_t i = 0; i < 4 * (size_t)ntets; ++i) {
    if (tets[i] < 0) return cl_fail(CL_ERR_MESH, "tet %zu has a negative point index %d", i / 4, tets[i]);
    if (tets[i] >= nv) nv = tets[i] + 1;
  }
  size_t nf = 4 * (size_t)ntets;
  int32_t *start = cl_calloc((size_t)nv + 1, sizeof(int32_t), "boundary buckets");
  face_entry *ent = cl_malloc(sizeof(face_entry) * (nf ? nf : 1), "boundary faces");
  unsigned char *on_boundary = cl_calloc(nf ? nf : 1, 1, "boundary flags");
  if (!start || !ent || !on_boundary) {
    free(start);
    free(ent);
    free(on_boundary);
    return CL_ERR_OUT_OF_MEMORY;
  }
  for (size_t f = 0; f < nf; ++f) {
    const int32_t *t = tets + 4 * (f / 4);
    const int *lf = FACE[f % 4];
    int32_t a = t[lf[0]], b = t[lf[1]], c = t[lf[2]];
    int32_t m = a < b ? (a < c ? a : c) : (b < c ? b : c);
    start[m + 1]++;
  }
  for (int32_t v = 0; v < nv; ++v) start[v + 1] += start[v];
  /* Scatter: start[] is used as the insertion cursor, then restored by shifting. */
  for (size_t f = 0; f < nf; ++f) {
    const int32_t *t = tets + 4 * (f / 4);
    const int *lf = FACE[f % 4];
    int32_t a = t[lf[0]], b = t[lf[1]], c = t[lf[2]];
    int32_t lo, mid, hi;
    if (a < b) {
      if (b < c) lo = a, mid = b, hi = c;
      else if (a < c) lo = a, mid = c, hi = b;
      else lo = c, mid = a, hi = b;
    } else {
      if (a < c) lo = b, mid = a, hi = c;
      else if (b < c) lo = b, mid = c, hi = a;
      else lo = c, mid = b, hi = a;
    }
    face_entry *e = &ent[start[lo]++];
    e->key = ((uint64_t)(uint32_t)mid << 32) | (uint32_t)hi;
    e->face = (int32_t)f;
  }
  for (int32_t v = nv; v > 0; --v) start[v] = start[v - 1];
  start[0] = 0;

  size_t nb = 0;
  cl_status st = CL_OK;
  for (int32_t v = 0; v < nv && st == CL_OK; ++v) {
    face_entry *e = ent + start[v];
    int32_t n = start[v + 1] - start[v];
    sort_bucket(e, n);
    for (int32_t i = 0; i < n;) {
      int32_t j = i + 1;
      while (j < n && e[j].key == e[i].key) ++j;
      if (j - i == 1) {
        on_boundary[e[i].face] = 1;
        ++nb;
      } else if (j - i > 2) {
        st = cl_fail(CL_ERR_MESH, "face (%d, %d, %d) is shared by %d tets (tets %d, %d, %d...): not a manifold tet mesh",
                     v, (int32_t)(e[i].key >> 32), (int32_t)(e[i].key & 0xffffffffu), j - i, e[i].face / 4,
                     e[i + 1].face / 4, e[i + 2].face / 4);
        break;
      }
      i = j;
    }
  }
  free(start);
  free(ent);
  if (st != CL_OK) {
    free(on_boundary);
    return st;
  }
  int32_t *tris = cl_malloc(sizeof(int32_t) * 3 * (nb ? nb : 1), "boundary triangles");
  if (!tris) {
    free(on_boundary);
    return CL_ERR_OUT_OF_MEMORY;
  }
  size_t k = 0;
  for (size_t f = 0; f < nf; ++f) {
    if (!on_boundary[f]) continue;
    const int32_t *t = tets + 4 * (f / 4);
    const int *lf = FACE[f % 4];
    tris[3 * k] = t[lf[0]];
    tris[3 * k + 1] = t[lf[1]];
    tris[3 * k + 2] = t[lf[2]];
    ++k;
  }
  free(on_boundary);
  *tris_out = tris;
  *ntris_out = (int32_t)nb;
  return CL_OK;
}

cl_status cl_mesh_boundary(const cl_mesh *mesh, cl_mesh **surface_out) {
  if (!mesh || !surface_out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_boundary: NULL argument");
  *surface_out = NULL;
  if (mesh->kind != CL_MESH_TETS)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_boundary: the mesh holds %s, tets are needed",
                   mesh->kind == CL_MESH_TRIANGLES ? "triangles" : "points");
  int32_t *tris, ntris;
  CL_TRY(cl_boundary_faces(mesh->ncells, mesh->cells, &tris, &ntris));
  for (int32_t i = 0; i < 3 * ntris; ++i)
    if (tris[i] >= mesh->npoints) {
      int32_t bad = tris[i];
      free(tris);
      return cl_fail(CL_ERR_MESH, "tet mesh refers to point %d, outside [0, %d)", bad, mesh->npoints);
    }
  cl_mesh *s;
  cl_status st = cl_mesh_alloc(CL_MESH_TRIANGLES, mesh->npoints, ntris, &s);
  if (st < 0) {
    free(tris);
    return st;
  }
  for (size_t i = 0; i < 3 * (size_t)mesh->npoints; ++i) s->x[i] = mesh->x[i];
  for (size_t i = 0; i < 3 * (size_t)ntris; ++i) s->cells[i] = tris[i];
  free(tris);
  *surface_out = s;
  return CL_OK;
}
