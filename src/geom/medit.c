/* MEDIT (INRIA Gamma) ascii .mesh files, as written by mmg, TetGen (-g), Gmsh and cleave:
 *   MeshVersionFormatted 1|2
 *   Dimension 3
 *   Vertices    N  then N x (x y z ref)
 *   Triangles   N  then N x (i j k ref)        1-based point numbers
 *   Tetrahedra  N  then N x (i j k l ref)
 *   End
 * The format is a token stream (a keyword's count may sit on the next line). Sections cleave does
 * not use but whose record size is fixed (Edges, Corners, Ridges, Normals, ...) are skipped; an
 * unknown keyword is an error, since its records could not be skipped reliably. A file with tets
 * gives a tet mesh (its Triangles, usually the boundary, are dropped); else triangles; else points.
 * Tetrahedra are expected positively oriented, as mmg requires. */
#include <stdio.h>
#include <string.h>

#include "geom/mesh_io.h"

/* Sections skipped, with the number of values per record. */
static const struct {
  const char *kw;
  int arity;
} k_skipped[] = {
    {"Edges", 3},       {"Corners", 1},        {"Ridges", 1},          {"RequiredVertices", 1},
    {"RequiredEdges", 1}, {"RequiredTriangles", 1}, {"RequiredTetrahedra", 1}, {"Quadrilaterals", 5},
    {"Hexahedra", 9},   {"Prisms", 7},         {"Pyramids", 6},        {"Normals", 3},
    {"Tangents", 3},    {"NormalAtVertices", 2}, {"NormalAtTriangleVertices", 3}, {"TangentAtEdgeVertices", 3},
    {"TangentAtVertices", 2}, {"Crack", 2}, {"Eigenvectors", 1},
};

/* Bytes not yet read: the rest of the current line and the lines after it. */
static size_t unread(const cl_lexer *lx) { return (size_t)(lx->end - lx->cur) + cl_lex_remaining(lx); }

/* A section count: an integer bounded by the room `values` tokens per record need. */
static cl_status section_count(cl_lexer *lx, const char *kw, int values, long long *n) {
  CL_TRY(cl_lex_int_any(lx, 0, INT32_MAX, n, "record count of %s", kw));
  size_t rest = unread(lx);
  if ((double)*n * 2.0 * values > (double)rest + 1)
    return cl_lex_fail(lx, CL_ERR_PARSE, "%s declares %lld records, more than the remaining %zu bytes can hold "
                       "(truncated file or wrong count)", kw, *n, rest);
  return CL_OK;
}

static cl_status cells(cl_lexer *lx, cl_mesh_builder *b, const char *kw, int corners_per, long long npoints_known) {
  long long n;
  CL_TRY(section_count(lx, kw, corners_per + 1, &n));
  CL_TRY(cl_builder_reserve(b, 0, corners_per == 3 ? (size_t)n : 0, corners_per == 4 ? (size_t)n : 0));
  /* point numbers are checked here when the Vertices came first, else by cl_builder_finish */
  long long hi = npoints_known > 0 ? npoints_known : INT32_MAX;
  for (long long i = 0; i < n; ++i) {
    int32_t v[4];
    long long line = 0;
    for (int c = 0; c < corners_per; ++c) {
      long long x;
      CL_TRY(cl_lex_int_any(lx, 1, hi, &x, "corner %d of %s record %lld (1-based point number)", c, kw, i + 1));
      if (c == 0) line = lx->line;
      v[c] = (int32_t)(x - 1);
    }
    long long ref;
    CL_TRY(cl_lex_int_any(lx, INT32_MIN, INT32_MAX, &ref, "reference of %s record %lld", kw, i + 1));
    if (corners_per == 3)
      CL_TRY(cl_builder_tri(b, v[0], v[1], v[2], line));
    else
      CL_TRY(cl_builder_tet(b, v, line));
  }
  return CL_OK;
}

static cl_status parse(cl_lexer *lx, cl_mesh_builder *b) {
  const char *t;
  size_t n;
  bool have_vertices = false;
  char q[48];
  while (cl_lex_token_any(lx, &t, &n)) {
    long long v;
    if (cl_token_is(t, n, "MeshVersionFormatted")) {
      CL_TRY(cl_lex_int_any(lx, 1, 4, &v, "MeshVersionFormatted"));
    } else if (cl_token_is(t, n, "Dimension")) {
      CL_TRY(cl_lex_int_any(lx, 2, 3, &v, "Dimension"));
      if (v != 3) return cl_lex_fail(lx, CL_ERR_PARSE, "Dimension %lld: only 3D meshes are read", v);
    } else if (cl_token_is(t, n, "Vertices")) {
      if (have_vertices) return cl_lex_fail(lx, CL_ERR_PARSE, "a second Vertices section");
      have_vertices = true;
      long long np;
      CL_TRY(section_count(lx, "Vertices", 4, &np));
      if (np == 0) return cl_lex_fail(lx, CL_ERR_PARSE, "the Vertices section is empty");
      CL_TRY(cl_builder_reserve(b, (size_t)np, 0, 0));
      for (long long i = 0; i < np; ++i) {
        double p[3];
        for (int k = 0; k < 3; ++k) CL_TRY(cl_lex_double_any(lx, &p[k], "%c coordinate of vertex %lld", "xyz"[k], i + 1));
        CL_TRY(cl_lex_int_any(lx, INT32_MIN, INT32_MAX, &v, "reference of vertex %lld", i + 1));
        CL_TRY(cl_builder_point(b, p[0], p[1], p[2]));
      }
    } else if (cl_token_is(t, n, "Triangles")) {
      CL_TRY(cells(lx, b, "Triangles", 3, have_vertices ? (long long)b->npoints : 0));
    } else if (cl_token_is(t, n, "Tetrahedra")) {
      CL_TRY(cells(lx, b, "Tetrahedra", 4, have_vertices ? (long long)b->npoints : 0));
    } else if (cl_token_is(t, n, "End")) {
      if (cl_lex_token_any(lx, &t, &n))
        return cl_lex_fail(lx, CL_ERR_PARSE, "unexpected '%s' after End", cl_token_quote(t, n, q, sizeof q));
      return CL_OK;
    } else {
      size_t k = 0;
      while (k < sizeof k_skipped / sizeof k_skipped[0] && !cl_token_is(t, n, k_skipped[k].kw)) ++k;
      if (k == sizeof k_skipped / sizeof k_skipped[0])
        return cl_lex_fail(lx, CL_ERR_PARSE, "unknown MEDIT keyword '%s'", cl_token_quote(t, n, q, sizeof q));
      long long count;
      CL_TRY(section_count(lx, k_skipped[k].kw, k_skipped[k].arity, &count));
      for (long long i = 0; i < count * k_skipped[k].arity; ++i) {
        double x;
        CL_TRY(cl_lex_double_any(lx, &x, "a value of %s record %lld", k_skipped[k].kw, i / k_skipped[k].arity + 1));
      }
    }
  }
  if (!have_vertices) return cl_lex_fail(lx, CL_ERR_PARSE, "no Vertices section in the file");
  return CL_OK; /* a missing End is tolerated: every section's count was honoured */
}

cl_status cl_read_medit(const char *data, size_t size, const char *name, cl_mesh **out) {
  *out = NULL;
  cl_lexer lx;
  cl_lex_init(&lx, data, size, name, '#');
  cl_mesh_builder b = {0};
  cl_status s = parse(&lx, &b);
  if (s < 0) {
    cl_builder_free(&b);
    return s;
  }
  cl_mesh_kind kind = b.ntet ? CL_MESH_TETS : b.ntri ? CL_MESH_TRIANGLES : CL_MESH_POINTS;
  return cl_builder_finish(&b, kind, name, out);
}

cl_status cl_write_medit(const cl_mesh *m, const char *path) {
  cl_out o;
  CL_TRY(cl_out_open(&o, path));
  cl_out_printf(&o, "MeshVersionFormatted 2\nDimension 3\n\nVertices\n%d\n", m->npoints);
  for (int32_t i = 0; i < m->npoints; ++i)
    cl_out_printf(&o, "%.17g %.17g %.17g 0\n", m->x[3 * i], m->x[3 * i + 1], m->x[3 * i + 2]);
  int cs = cl_mesh_cell_size(m->kind);
  if (cs) {
    cl_out_printf(&o, "\n%s\n%d\n", cs == 4 ? "Tetrahedra" : "Triangles", m->ncells);
    for (int32_t c = 0; c < m->ncells; ++c) {
      const int32_t *v = m->cells + (size_t)cs * c;
      for (int k = 0; k < cs; ++k) cl_out_printf(&o, "%d ", v[k] + 1);
      cl_out_printf(&o, "0\n");
    }
  }
  cl_out_printf(&o, "\nEnd\n");
  return cl_out_close(&o);
}
