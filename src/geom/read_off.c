/* OFF reader (Geomview's Object File Format):
 *   [C][N][ST]OFF [nv nf ne]      keyword, counts on the same or the next line
 *   nv lines: x y z [colour, normal, texture values: ignored]
 *   nf lines: k i1 .. ik [colour: ignored]   polygons, 0-based, fan-triangulated
 * Files without the keyword (counts first) are accepted, as many tools write them. An OFF with no
 * faces is a point set. One record per line is required (the usual practice), so errors point at
 * the record's line. */
#include <stdio.h>
#include <string.h>

#include "geom/mesh_io.h"

/* Accept OFF, COFF, NOFF, CNOFF, STOFF, STCNOFF ...; reject 4OFF / nOFF (other dimensions). */
static int off_keyword(const char *t, size_t n) {
  if (n < 3 || memcmp(t + n - 3, "OFF", 3) != 0) return 0;
  for (size_t i = 0; i + 3 < n; ++i)
    if (!strchr("STCN", t[i])) return -1;
  return 1;
}

cl_status cl_read_off(const char *data, size_t size, const char *name, cl_mesh **out) {
  *out = NULL;
  cl_lexer lx;
  cl_lex_init(&lx, data, size, name, '#');
  if (!cl_lex_line(&lx)) return cl_lex_fail(&lx, CL_ERR_PARSE, "empty file: expected the OFF header");
  const char *t;
  size_t n;
  const char *save = lx.cur;
  cl_lex_token(&lx, &t, &n);
  int kw = off_keyword(t, n);
  if (kw < 0) {
    char q[48];
    return cl_lex_fail(&lx, CL_ERR_PARSE, "'%s' is not supported: only 3D OFF files are read",
                       cl_token_quote(t, n, q, sizeof q));
  }
  if (kw == 0) {
    long long probe;
    if (!cl_parse_int(t, n, &probe)) {
      char q[48];
      return cl_lex_fail(&lx, CL_ERR_PARSE, "expected the OFF header, found '%s'", cl_token_quote(t, n, q, sizeof q));
    }
    lx.cur = save; /* header-less file: this line holds the counts */
  } else if (!cl_lex_more(&lx) && !cl_lex_line(&lx)) {
    return cl_lex_fail(&lx, CL_ERR_PARSE, "file ends after the OFF keyword: expected vertex and face counts");
  }
  long long nv, nf, ne = 0;
  CL_TRY(cl_lex_int(&lx, 0, INT32_MAX, &nv, "vertex count"));
  CL_TRY(cl_lex_int(&lx, 0, INT32_MAX, &nf, "face count"));
  if (cl_lex_more(&lx)) CL_TRY(cl_lex_int(&lx, 0, INT64_MAX / 2, &ne, "edge count"));
  if (cl_lex_more(&lx)) return cl_lex_fail(&lx, CL_ERR_PARSE, "unexpected content after the three counts");
  if (nv == 0) return cl_lex_fail(&lx, CL_ERR_PARSE, "the header declares no vertices");
  /* A vertex record takes at least 6 bytes ("0 0 0\n"), a face at least 8 ("3 0 1 2\n"): a header
   * claiming more than the file can hold is wrong, and must not make us allocate for it. */
  size_t rest = cl_lex_remaining(&lx);
  if ((double)nv * 6 + (double)nf * 8 > (double)rest + 1)
    return cl_lex_fail(&lx, CL_ERR_PARSE,
                       "the header declares %lld vertices and %lld faces, more than the remaining %zu bytes can hold "
                       "(truncated file or wrong counts)", nv, nf, rest);

  cl_mesh_builder b = {0};
  cl_status s = cl_builder_reserve(&b, (size_t)nv, (size_t)nf, 0);
  for (long long i = 0; i < nv && s >= 0; ++i) {
    if (!cl_lex_line(&lx)) {
      s = cl_lex_fail(&lx, CL_ERR_PARSE, "file ends after %lld of the %lld vertices declared in the header", i, nv);
      break;
    }
    double p[3];
    for (int k = 0; k < 3 && s >= 0; ++k) s = cl_lex_double(&lx, &p[k], "%c coordinate of vertex %lld", "xyz"[k], i);
    if (s >= 0) s = cl_builder_point(&b, p[0], p[1], p[2]);
  }
  for (long long f = 0; f < nf && s >= 0; ++f) {
    if (!cl_lex_line(&lx)) {
      s = cl_lex_fail(&lx, CL_ERR_PARSE, "file ends after %lld of the %lld faces declared in the header", f, nf);
      break;
    }
    long long k;
    s = cl_lex_int(&lx, 3, INT32_MAX, &k, "corner count of face %lld", f);
    int32_t first = -1, prev = -1;
    for (long long c = 0; c < k && s >= 0; ++c) {
      long long v;
      if (!cl_lex_more(&lx)) {
        s = cl_lex_fail(&lx, CL_ERR_PARSE, "face %lld declares %lld corners but the line has %lld", f, k, c);
        break;
      }
      s = cl_lex_int(&lx, 0, nv - 1, &v, "corner %lld of face %lld (a 0-based vertex index)", c, f);
      if (s < 0) break;
      /* fan triangulation (v0, v_{c-1}, v_c) keeps the polygon's orientation */
      if (c == 0) first = (int32_t)v;
      if (c >= 2) s = cl_builder_tri(&b, first, prev, (int32_t)v, lx.line);
      prev = (int32_t)v;
    }
  }
  if (s >= 0 && cl_lex_line(&lx))
    s = cl_lex_fail(&lx, CL_ERR_PARSE, "unexpected content after the %lld vertices and %lld faces declared in the header",
                    nv, nf);
  if (s < 0) {
    cl_builder_free(&b);
    return s;
  }
  return cl_builder_finish(&b, nf > 0 ? CL_MESH_TRIANGLES : CL_MESH_POINTS, name, out);
}
