/* Wavefront OBJ reader: `v x y z [w | r g b]` and `f` statements. A face corner is `i`, `i/t`,
 * `i/t/n` or `i//n`; only the vertex index i is used. Indices are 1-based; a negative index counts
 * back from the last vertex defined so far (-1 is the latest), as the OBJ specification says.
 * Polygons are fan-triangulated. Other statements (vt, vn, g, o, s, usemtl, mtllib, l, p, ...) are
 * skipped; a line that does not start with a statement keyword is an error. A file with vertices
 * and no faces is a point set.
 * Two passes: the first counts vertices and triangles, so storage is sized from what the file
 * really holds and positive indices can be range-checked on their own line. */
#include <stdio.h>
#include <string.h>

#include "geom/mesh_io.h"

static bool is_keyword(const char *t, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    char c = t[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return n > 0 && !(t[0] >= '0' && t[0] <= '9');
}

/* The vertex part of a face corner, made 0-based. */
static cl_status corner_index(cl_lexer *lx, const char *t, size_t n, long long seen, long long total, int32_t *out) {
  char q[48];
  const char *slash = memchr(t, '/', n);
  size_t vn = slash ? (size_t)(slash - t) : n;
  long long v, other;
  if (!cl_parse_int(t, vn, &v))
    return cl_lex_fail(lx, CL_ERR_PARSE, "face corner '%s' does not start with a vertex index", cl_token_quote(t, n, q, sizeof q));
  /* the texture and normal parts, when present, must be integers too ("1/2/3", "1//3", "1/2") */
  const char *p = slash;
  int parts = 1;
  while (p) {
    const char *s = p + 1;
    const char *e = memchr(s, '/', (size_t)(t + n - s));
    size_t len = e ? (size_t)(e - s) : (size_t)(t + n - s);
    if (++parts > 3 || (len > 0 && !cl_parse_int(s, len, &other)) || (len == 0 && !e))
      return cl_lex_fail(lx, CL_ERR_PARSE, "malformed face corner '%s' (expected i, i/t, i/t/n or i//n)",
                         cl_token_quote(t, n, q, sizeof q));
    p = e;
  }
  long long idx;
  if (v > 0) {
    idx = v - 1;
    if (idx >= total)
      return cl_lex_fail(lx, CL_ERR_PARSE, "face refers to vertex %lld, but the file defines %lld vertices", v, total);
  } else if (v < 0) {
    idx = seen + v;
    if (idx < 0)
      return cl_lex_fail(lx, CL_ERR_PARSE, "relative vertex index %lld reaches before the first vertex (%lld defined so far)",
                         v, seen);
  } else {
    return cl_lex_fail(lx, CL_ERR_PARSE, "vertex index 0 in a face: OBJ indices start at 1");
  }
  *out = (int32_t)idx;
  return CL_OK;
}

cl_status cl_read_obj(const char *data, size_t size, const char *name, cl_mesh **out) {
  *out = NULL;
  cl_lexer lx;
  const char *t;
  size_t n;
  /* pass 1: count */
  size_t nv = 0, ntri = 0;
  cl_lex_init(&lx, data, size, name, '#');
  while (cl_lex_line(&lx)) {
    cl_lex_token(&lx, &t, &n);
    if (n == 1 && t[0] == 'v') {
      ++nv;
    } else if ((n == 1 && t[0] == 'f') || (n == 2 && t[0] == 'f' && t[1] == 'o')) {
      size_t k = 0;
      while (cl_lex_token(&lx, &t, &n)) ++k;
      if (k > 2) ntri += k - 2;
    }
  }
  if (nv == 0) return cl_lex_fail(&lx, CL_ERR_PARSE, "no vertices ('v' lines) in the file");
  if (nv > INT32_MAX || ntri > INT32_MAX)
    return cl_lex_fail(&lx, CL_ERR_PARSE, "%zu vertices and %zu triangles: more than %d", nv, ntri, INT32_MAX);

  /* pass 2: parse */
  cl_mesh_builder b = {0};
  cl_status s = cl_builder_reserve(&b, nv, ntri, 0);
  long long seen = 0;
  cl_lex_init(&lx, data, size, name, '#');
  while (s >= 0 && cl_lex_line(&lx)) {
    cl_lex_token(&lx, &t, &n);
    if (n == 1 && t[0] == 'v') {
      double p[3];
      for (int k = 0; k < 3 && s >= 0; ++k) s = cl_lex_double(&lx, &p[k], "%c coordinate of vertex %lld", "xyz"[k], seen + 1);
      if (s >= 0) s = cl_builder_point(&b, p[0], p[1], p[2]);
      ++seen;
    } else if ((n == 1 && t[0] == 'f') || (n == 2 && t[0] == 'f' && t[1] == 'o')) {
      int32_t first = -1, prev = -1, v;
      long long c = 0;
      while (s >= 0 && cl_lex_token(&lx, &t, &n)) {
        s = corner_index(&lx, t, n, seen, (long long)nv, &v);
        if (s < 0) break;
        if (c == 0) first = v;
        if (c >= 2) s = cl_builder_tri(&b, first, prev, v, lx.line);
        prev = v;
        ++c;
      }
      if (s >= 0 && c < 3) s = cl_lex_fail(&lx, CL_ERR_PARSE, "a face needs at least 3 corners, this one has %lld", c);
    } else if (!is_keyword(t, n)) {
      char q[48];
      s = cl_lex_fail(&lx, CL_ERR_PARSE, "'%s' is not an OBJ statement", cl_token_quote(t, n, q, sizeof q));
    }
  }
  if (s < 0) {
    cl_builder_free(&b);
    return s;
  }
  return cl_builder_finish(&b, b.ntri > 0 ? CL_MESH_TRIANGLES : CL_MESH_POINTS, name, out);
}
