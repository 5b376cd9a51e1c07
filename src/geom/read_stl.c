/* STL reader, ascii and binary. STL stores every triangle with its own three corners, so corners
 * with bit-identical coordinates are welded into shared points (exactly: no tolerance, so distinct
 * points are never merged). The facet normal is ignored; orientation follows the corner order
 * (counter-clockwise seen from outside, as the format specifies).
 *
 * Binary: an 80-byte header, a little-endian uint32 triangle count n, then n records of 50 bytes
 * (normal and three corners as 12 float32, a uint16 attribute). A file is binary exactly when its
 * size is 84 + 50 n: some binary writers start the header with "solid", so the word alone does not
 * identify ascii. Ascii files are read as a token stream:
 *   solid [name]  { facet normal nx ny nz  outer loop  vertex x y z (x3)  endloop  endfacet }
 *   endsolid [name]        (several solids may follow one another) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "geom/mesh_io.h"

/* Open-addressing table from coordinates to point index, over the builder's points. */
typedef struct weld_table {
  int32_t *slot; /* -1 = empty */
  size_t cap;    /* power of two */
} weld_table;

static uint64_t hash_point(const double *p) {
  uint64_t h = 0x9e3779b97f4a7c15u;
  for (int k = 0; k < 3; ++k) {
    uint64_t u;
    memcpy(&u, &p[k], sizeof u);
    h ^= u + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
  }
  return h;
}

static cl_status weld_grow(weld_table *w, const cl_mesh_builder *b) {
  size_t cap = w->cap ? 2 * w->cap : 1024;
  int32_t *slot = cl_malloc(cap * sizeof *slot, "STL vertex table");
  if (!slot) return CL_ERR_OUT_OF_MEMORY;
  memset(slot, 0xff, cap * sizeof *slot); /* all -1 */
  for (size_t i = 0; i < b->npoints; ++i) {
    size_t h = (size_t)hash_point(b->x + 3 * i) & (cap - 1);
    while (slot[h] >= 0) h = (h + 1) & (cap - 1);
    slot[h] = (int32_t)i;
  }
  free(w->slot);
  w->slot = slot;
  w->cap = cap;
  return CL_OK;
}

/* The index of the point with exactly these coordinates, adding it if new. */
static cl_status weld(weld_table *w, cl_mesh_builder *b, const double p_in[3], int32_t *idx) {
  /* +0.0 turns -0.0 into +0.0, so the two zeros (equal as numbers) weld together */
  double p[3] = {p_in[0] + 0.0, p_in[1] + 0.0, p_in[2] + 0.0};
  if (2 * (b->npoints + 1) > w->cap) CL_TRY(weld_grow(w, b));
  size_t h = (size_t)hash_point(p) & (w->cap - 1);
  while (w->slot[h] >= 0) {
    const double *q = b->x + 3 * (size_t)w->slot[h];
    if (q[0] == p[0] && q[1] == p[1] && q[2] == p[2]) {
      *idx = w->slot[h];
      return CL_OK;
    }
    h = (h + 1) & (w->cap - 1);
  }
  CL_TRY(cl_builder_point(b, p[0], p[1], p[2]));
  *idx = (int32_t)(b->npoints - 1);
  w->slot[h] = *idx;
  return CL_OK;
}

static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float lefloat(const unsigned char *p) {
  uint32_t u = le32(p);
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static cl_status read_binary(const unsigned char *d, uint32_t n, const char *name, cl_mesh **out) {
  if (n == 0) return cl_fail(CL_ERR_PARSE, "%s: binary STL with 0 triangles", name);
  cl_mesh_builder b = {0};
  weld_table w = {0};
  cl_status s = cl_builder_reserve(&b, (size_t)n / 2 + 3, n, 0); /* closed surfaces: about n/2 points */
  for (uint32_t i = 0; i < n && s >= 0; ++i) {
    const unsigned char *r = d + 84 + 50 * (size_t)i + 12; /* skip the normal */
    int32_t v[3];
    for (int c = 0; c < 3 && s >= 0; ++c) {
      double p[3];
      for (int k = 0; k < 3; ++k) p[k] = lefloat(r + 12 * c + 4 * k);
      if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
        s = cl_fail(CL_ERR_PARSE, "%s: binary STL triangle %u (byte %zu): corner %d has a non-finite coordinate "
                    "(%g, %g, %g)", name, i, 84 + 50 * (size_t)i, c, p[0], p[1], p[2]);
        break;
      }
      s = weld(&w, &b, p, &v[c]);
    }
    if (s >= 0) s = cl_builder_tri(&b, v[0], v[1], v[2], 0);
  }
  free(w.slot);
  if (s < 0) {
    cl_builder_free(&b);
    return s;
  }
  return cl_builder_finish(&b, CL_MESH_TRIANGLES, name, out);
}

/* Take the next token and require it to be `kw` (case-insensitive). */
static cl_status expect(cl_lexer *lx, const char *kw) {
  const char *t;
  size_t n;
  if (!cl_lex_token_any(lx, &t, &n))
    return cl_lex_fail(lx, CL_ERR_PARSE, "file ends where '%s' was expected (truncated?)", kw);
  if (!cl_token_is(t, n, kw)) {
    char q[48];
    return cl_lex_fail(lx, CL_ERR_PARSE, "expected '%s', found '%s'", kw, cl_token_quote(t, n, q, sizeof q));
  }
  return CL_OK;
}

static cl_status read_ascii(const char *data, size_t size, const char *name, cl_mesh **out) {
  cl_lexer lx;
  cl_lex_init(&lx, data, size, name, 0);
  cl_mesh_builder b = {0};
  weld_table w = {0};
  const char *t;
  size_t n;
  long long facets = 0;
  cl_status s = expect(&lx, "solid");
  lx.cur = lx.end; /* the rest of the line is the solid's name */
  while (s >= 0) {
    if (!cl_lex_token_any(&lx, &t, &n)) {
      s = cl_lex_fail(&lx, CL_ERR_PARSE, "file ends without 'endsolid' (truncated?)");
      break;
    }
    if (cl_token_is(t, n, "endsolid")) {
      lx.cur = lx.end;
      if (!cl_lex_token_any(&lx, &t, &n)) break; /* done */
      if (cl_token_is(t, n, "solid")) { /* another solid follows */
        lx.cur = lx.end;
        continue;
      }
      char q[48];
      s = cl_lex_fail(&lx, CL_ERR_PARSE, "unexpected '%s' after 'endsolid'", cl_token_quote(t, n, q, sizeof q));
      break;
    }
    if (!cl_token_is(t, n, "facet")) {
      char q[48];
      s = cl_lex_fail(&lx, CL_ERR_PARSE, "expected 'facet' or 'endsolid', found '%s'", cl_token_quote(t, n, q, sizeof q));
      break;
    }
    long long line = lx.line;
    s = expect(&lx, "normal");
    for (int k = 0; k < 3 && s >= 0; ++k) { /* the normal is not used, but it must be a number */
      double dummy;
      if (!cl_lex_token_any(&lx, &t, &n) || !cl_parse_double(t, n, &dummy))
        s = cl_lex_fail(&lx, CL_ERR_PARSE, "facet %lld: malformed normal", facets);
    }
    if (s >= 0) s = expect(&lx, "outer");
    if (s >= 0) s = expect(&lx, "loop");
    int32_t v[3];
    for (int c = 0; c < 3 && s >= 0; ++c) {
      s = expect(&lx, "vertex");
      double p[3];
      for (int k = 0; k < 3 && s >= 0; ++k)
        s = cl_lex_double_any(&lx, &p[k], "%c coordinate of corner %d of facet %lld", "xyz"[k], c, facets);
      if (s >= 0) s = weld(&w, &b, p, &v[c]);
    }
    if (s >= 0) s = expect(&lx, "endloop");
    if (s >= 0) s = expect(&lx, "endfacet");
    if (s >= 0) s = cl_builder_tri(&b, v[0], v[1], v[2], line);
    ++facets;
  }
  free(w.slot);
  if (s >= 0 && facets == 0) s = cl_lex_fail(&lx, CL_ERR_PARSE, "the STL file holds no facets");
  if (s < 0) {
    cl_builder_free(&b);
    return s;
  }
  return cl_builder_finish(&b, CL_MESH_TRIANGLES, name, out);
}

cl_status cl_read_stl(const char *data, size_t size, const char *name, cl_mesh **out) {
  *out = NULL;
  const unsigned char *d = (const unsigned char *)data;
  if (size >= 84) {
    uint32_t n = le32(d + 80);
    if ((uint64_t)84 + 50 * (uint64_t)n == (uint64_t)size) return read_binary(d, n, name, out);
  }
  size_t i = 0;
  while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n')) ++i;
  if (size - i >= 5 && cl_token_is(data + i, 5, "solid")) return read_ascii(data, size, name, out);
  if (size < 84)
    return cl_fail(CL_ERR_PARSE, "%s: not an STL file: %zu bytes, too short for a binary STL (84 bytes at least) "
                   "and it does not start with 'solid'", name, size);
  uint32_t n = le32(d + 80);
  return cl_fail(CL_ERR_PARSE, "%s: binary STL: the header (byte 80) declares %u triangles, which take "
                 "84 + 50 * %u = %llu bytes, but the file has %zu bytes (truncated or corrupt)",
                 name, n, n, 84 + 50 * (unsigned long long)n, size);
}
