/* TetGen's .node, .ele and .face files (TetGen 1.5 manual, section 5.2), read and written.
 *   .node  <#points> <dimension = 3> <#attributes> <boundary markers 0|1>
 *          <point #> <x> <y> <z> [attributes] [boundary marker]
 *   .ele   <#tets> <nodes per tet 4|10> <region attribute 0|1>
 *          <tet #> <node> <node> <node> <node> [6 more for 10-node tets] [attribute]
 *   .face  <#faces> <boundary markers 0|1>
 *          <face #> <node> <node> <node> [boundary marker] [2 adjacent tets (-nn)]
 * Missing header fields take TetGen's defaults. As in TetGen, the first point number of the .node
 * file (0 or 1) sets the numbering of every file; numbers must then run consecutively, which catches
 * wrong counts and spliced files. Attributes and markers are skipped; 10-node tets keep their four
 * corners (TetGen lists the corners first), and a mid-side node missing from the .node file is named
 * as what it is (quadratic tets are not supported beyond their corners), not as a bad corner.
 *
 * Orientation: TetGen's tets are positively oriented (det[x1-x0, x2-x0, x3-x0] > 0, as cleave
 * wants), but its boundary faces are listed with their normals pointing INTO the mesh (checked with
 * tetgen 1.5.1 on a unit cube: `tetgen -p cube.off`, all 12 faces of cube.1.face face inwards,
 * whichever way the input faces turned). So .face triangles are flipped on reading and on writing,
 * and cleave surfaces stay counter-clockwise seen from outside. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "geom/mesh_io.h"

/* Read up to `maxf` header integers of the first line; missing ones keep their defaults. */
static cl_status header(cl_lexer *lx, const char *kind, int maxf, const char *const *names, long long *vals,
                        const long long *lo, const long long *hi) {
  if (!cl_lex_line(lx)) return cl_lex_fail(lx, CL_ERR_PARSE, "empty file: expected the .%s header", kind);
  for (int i = 0; i < maxf && cl_lex_more(lx); ++i) CL_TRY(cl_lex_int(lx, lo[i], hi[i], &vals[i], "%s", names[i]));
  if (cl_lex_more(lx)) return cl_lex_fail(lx, CL_ERR_PARSE, "unexpected content after the %d header values", maxf);
  return CL_OK;
}

/* The record number at the start of a line: the first one sets the numbering (0 or 1). */
static cl_status record_number(cl_lexer *lx, const char *what, long long i, long long *first) {
  long long id;
  CL_TRY(cl_lex_int(lx, -INT64_MAX / 2, INT64_MAX / 2, &id, "%s number", what));
  if (i == 0 && *first < 0) {
    if (id != 0 && id != 1)
      return cl_lex_fail(lx, CL_ERR_PARSE, "the first %s is numbered %lld; TetGen numbers from 0 or 1", what, id);
    *first = id;
  }
  if (id != *first + i)
    return cl_lex_fail(lx, CL_ERR_PARSE, "%s numbered %lld where %lld was expected (records must be numbered "
                       "consecutively; is a count wrong?)", what, id, *first + i);
  return CL_OK;
}

/* Fail unless the line has no tokens left (a header announcing fewer columns than the lines hold). */
static cl_status line_end(cl_lexer *lx, const char *what, long long i) {
  if (!cl_lex_more(lx)) return CL_OK;
  return cl_lex_fail(lx, CL_ERR_PARSE, "%s %lld has more values than the header announces", what, i);
}

static cl_status trailing(cl_lexer *lx, long long count, const char *what) {
  if (cl_lex_line(lx))
    return cl_lex_fail(lx, CL_ERR_PARSE, "unexpected content after the %lld %s declared in the header", count, what);
  return CL_OK;
}

static cl_status parse_node(const char *data, size_t size, const char *name, cl_mesh_builder *b, long long *first) {
  cl_lexer lx;
  cl_lex_init(&lx, data, size, name, '#');
  static const char *const names[4] = {"point count", "dimension", "attribute count", "boundary marker flag"};
  static const long long lo[4] = {0, 1, 0, 0}, hi[4] = {INT32_MAX, 3, 1000000, 1};
  long long h[4] = {0, 3, 0, 0};
  CL_TRY(header(&lx, "node", 4, names, h, lo, hi));
  long long np = h[0], nattr = h[2], nmark = h[3];
  if (h[1] != 3) return cl_lex_fail(&lx, CL_ERR_PARSE, "dimension %lld: only 3D .node files are read", h[1]);
  if (np == 0)
    return cl_lex_fail(&lx, CL_ERR_PARSE, "the header declares no points (points kept in a .poly file are not read)");
  /* each record has 4 + attributes + marker tokens of at least 2 bytes each */
  size_t rest = cl_lex_remaining(&lx);
  if ((double)np * 2.0 * (double)(4 + nattr + nmark) > (double)rest + 1)
    return cl_lex_fail(&lx, CL_ERR_PARSE, "the header declares %lld points, more than the remaining %zu bytes can hold "
                       "(truncated file or wrong count)", np, rest);
  CL_TRY(cl_builder_reserve(b, (size_t)np, 0, 0));
  for (long long i = 0; i < np; ++i) {
    if (!cl_lex_line(&lx))
      return cl_lex_fail(&lx, CL_ERR_PARSE, "file ends after %lld of the %lld points declared in the header", i, np);
    CL_TRY(record_number(&lx, "point", i, first));
    double p[3];
    for (int k = 0; k < 3; ++k) CL_TRY(cl_lex_double(&lx, &p[k], "%c coordinate of point %lld", "xyz"[k], *first + i));
    for (long long a = 0; a < nattr + nmark; ++a) {
      const char *t;
      size_t n;
      if (!cl_lex_token(&lx, &t, &n))
        return cl_lex_fail(&lx, CL_ERR_PARSE, "point %lld has %lld attribute/marker values, the header announces %lld",
                           *first + i, a, nattr + nmark);
    }
    CL_TRY(line_end(&lx, "point", *first + i));
    CL_TRY(cl_builder_point(b, p[0], p[1], p[2]));
  }
  return trailing(&lx, np, "points");
}

/* Parse the corner references of one cell, converting TetGen numbers to 0-based indices. */
static cl_status corners(cl_lexer *lx, int count, long long first, size_t npoints, const char *what,
                         long long id, int32_t *v) {
  for (int c = 0; c < count; ++c) {
    long long x;
    if (c < 4)
      CL_TRY(cl_lex_int(lx, first, first + (long long)npoints - 1, &x, "corner %d of %s %lld", c, what, id));
    else
      CL_TRY(cl_lex_int(lx, first, first + (long long)npoints - 1, &x,
                        "mid-side node %d of quadratic (10-node) %s %lld: quadratic tets are not supported (cleave "
                        "keeps only their 4 corners, and this file's mid-side nodes are not in its .node file; "
                        "write linear tets, TetGen without -o2); the node number",
                        c - 4, what, id));
    v[c] = (int32_t)(x - first);
  }
  return CL_OK;
}

static cl_status parse_ele(const char *data, size_t size, const char *name, long long first, cl_mesh_builder *b) {
  cl_lexer lx;
  cl_lex_init(&lx, data, size, name, '#');
  static const char *const names[3] = {"tet count", "nodes per tet", "region attribute flag"};
  static const long long lo[3] = {0, 4, 0}, hi[3] = {INT32_MAX, 10, 1};
  long long h[3] = {0, 4, 0};
  CL_TRY(header(&lx, "ele", 3, names, h, lo, hi));
  long long nt = h[0], per = h[1], nattr = h[2];
  if (per != 4 && per != 10) return cl_lex_fail(&lx, CL_ERR_PARSE, "%lld nodes per tet: TetGen writes 4 or 10", per);

  if (nt == 0) return cl_lex_fail(&lx, CL_ERR_PARSE, "the header declares no tets");
  size_t rest = cl_lex_remaining(&lx);
  if ((double)nt * 2.0 * (double)(1 + per + nattr) > (double)rest + 1)
    return cl_lex_fail(&lx, CL_ERR_PARSE, "the header declares %lld tets, more than the remaining %zu bytes can hold "
                       "(truncated file or wrong count)", nt, rest);
  CL_TRY(cl_builder_reserve(b, 0, 0, (size_t)nt));
  long long tfirst = -1;
  for (long long i = 0; i < nt; ++i) {
    if (!cl_lex_line(&lx))
      return cl_lex_fail(&lx, CL_ERR_PARSE, "file ends after %lld of the %lld tets declared in the header", i, nt);
    CL_TRY(record_number(&lx, "tet", i, &tfirst));
    int32_t v[10];
    CL_TRY(corners(&lx, (int)per, first, b->npoints, "tet", tfirst + i, v));
    if (nattr) {
      double attr;
      CL_TRY(cl_lex_double(&lx, &attr, "region attribute of tet %lld", tfirst + i));
    }
    CL_TRY(line_end(&lx, "tet", tfirst + i));
    CL_TRY(cl_builder_tet(b, v, lx.line));
  }
  return trailing(&lx, nt, "tets");
}

static cl_status parse_face(const char *data, size_t size, const char *name, long long first, cl_mesh_builder *b) {
  cl_lexer lx;
  cl_lex_init(&lx, data, size, name, '#');
  static const char *const names[2] = {"face count", "boundary marker flag"};
  static const long long lo[2] = {0, 0}, hi[2] = {INT32_MAX, 1};
  long long h[2] = {0, 0};
  CL_TRY(header(&lx, "face", 2, names, h, lo, hi));
  long long nf = h[0], nmark = h[1];
  if (nf == 0) return cl_lex_fail(&lx, CL_ERR_PARSE, "the header declares no faces");
  size_t rest = cl_lex_remaining(&lx);
  if ((double)nf * 2.0 * (double)(4 + nmark) > (double)rest + 1)
    return cl_lex_fail(&lx, CL_ERR_PARSE, "the header declares %lld faces, more than the remaining %zu bytes can hold "
                       "(truncated file or wrong count)", nf, rest);
  CL_TRY(cl_builder_reserve(b, 0, (size_t)nf, 0));
  long long ffirst = -1;
  for (long long i = 0; i < nf; ++i) {
    if (!cl_lex_line(&lx))
      return cl_lex_fail(&lx, CL_ERR_PARSE, "file ends after %lld of the %lld faces declared in the header", i, nf);
    CL_TRY(record_number(&lx, "face", i, &ffirst));
    int32_t v[3];
    CL_TRY(corners(&lx, 3, first, b->npoints, "face", ffirst + i, v));
    /* the marker, then optionally the two adjacent tets TetGen adds with -nn */
    const char *t;
    size_t n;
    int extra = 0;
    while (cl_lex_token(&lx, &t, &n)) {
      long long dummy;
      if (!cl_parse_int(t, n, &dummy)) {
        char q[48];
        return cl_lex_fail(&lx, CL_ERR_PARSE, "face %lld: expected an integer, found '%s'", ffirst + i,
                           cl_token_quote(t, n, q, sizeof q));
      }
      ++extra;
    }
    if (extra != nmark && extra != nmark + 2)
      return cl_lex_fail(&lx, CL_ERR_PARSE, "face %lld has %d values after its corners; the header announces %lld "
                         "(plus 2 adjacent tets with -nn)", ffirst + i, extra, nmark);
    CL_TRY(cl_builder_tri(b, v[0], v[2], v[1], lx.line)); /* TetGen faces point inwards: flip */
  }
  return trailing(&lx, nf, "faces");
}

cl_status cl_tetgen_parse(const char *node, size_t node_size, const char *node_name, const char *cells,
                          size_t cells_size, const char *cells_name, cl_mesh_format cell_fmt, cl_mesh **out) {
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_tetgen_parse: out is NULL");
  *out = NULL;
  if (!node_name) node_name = "node";
  if (!cells_name) cells_name = "cells";
  if ((!node && node_size) || (!cells && cells_size))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_tetgen_parse: NULL buffer with a non-zero size");
  if (cells && cell_fmt != CL_MESH_FORMAT_ELE && cell_fmt != CL_MESH_FORMAT_FACE)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_tetgen_parse: the cell file must be .ele or .face");
  cl_mesh_builder b = {0};
  long long first = -1;
  cl_status s = parse_node(node ? node : "", node_size, node_name, &b, &first);
  cl_mesh_kind kind = CL_MESH_POINTS;
  const char *name = node_name;
  if (s >= 0 && cells) {
    name = cells_name; /* cell problems are reported against the cell file */
    if (cell_fmt == CL_MESH_FORMAT_ELE) {
      kind = CL_MESH_TETS;
      s = parse_ele(cells, cells_size, cells_name, first, &b);
    } else {
      kind = CL_MESH_TRIANGLES;
      s = parse_face(cells, cells_size, cells_name, first, &b);
    }
  }
  if (s < 0) {
    cl_builder_free(&b);
    return s;
  }
  return cl_builder_finish(&b, kind, name, out);
}

/* ---- writing ------------------------------------------------------------------------------------- */

static char *with_extension(const char *path, const char *ext) {
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(slash ? slash + 1 : path, '.');
  size_t base = dot ? (size_t)(dot - path) : strlen(path);
  char *p = cl_malloc(base + strlen(ext) + 2, "file name");
  if (!p) return NULL;
  memcpy(p, path, base);
  p[base] = '.';
  strcpy(p + base + 1, ext);
  return p;
}

cl_status cl_write_tetgen(const cl_mesh *m, const char *path) {
  char *node_path = with_extension(path, "node");
  char *cell_path = with_extension(path, m->kind == CL_MESH_TETS ? "ele" : "face");
  char *ele_path = with_extension(path, "ele");
  cl_status s = node_path && cell_path && ele_path ? CL_OK : CL_ERR_OUT_OF_MEMORY;
  cl_out o;
  if (s >= 0) s = cl_out_open(&o, node_path);
  if (s >= 0) {
    /* 0-based numbering: TetGen takes it from the first point number */
    cl_out_printf(&o, "# written by cleave: %d points\n%d 3 0 0\n", m->npoints, m->npoints);
    for (int32_t i = 0; i < m->npoints; ++i)
      cl_out_printf(&o, "%d %.17g %.17g %.17g\n", i, m->x[3 * i], m->x[3 * i + 1], m->x[3 * i + 2]);
    s = cl_out_close(&o);
  }
  if (s >= 0 && m->kind == CL_MESH_TETS) {
    s = cl_out_open(&o, cell_path);
    if (s >= 0) {
      cl_out_printf(&o, "# written by cleave: %d tets\n%d 4 0\n", m->ncells, m->ncells);
      for (int32_t c = 0; c < m->ncells; ++c) {
        const int32_t *v = m->cells + 4 * (size_t)c;
        cl_out_printf(&o, "%d %d %d %d %d\n", c, v[0], v[1], v[2], v[3]);
      }
      s = cl_out_close(&o);
    }
  } else if (s >= 0) {
    /* A stale .ele beside the .node would make reading the .node give old tets: remove it. */
    (void)remove(ele_path); /* usually absent */
    if (m->kind == CL_MESH_TRIANGLES) {
      s = cl_out_open(&o, cell_path);
      if (s >= 0) {
        cl_out_printf(&o, "# written by cleave: %d triangles (TetGen orientation: normals inwards)\n%d 0\n",
                      m->ncells, m->ncells);
        for (int32_t c = 0; c < m->ncells; ++c) {
          const int32_t *v = m->cells + 3 * (size_t)c;
          cl_out_printf(&o, "%d %d %d %d\n", c, v[0], v[2], v[1]);
        }
        s = cl_out_close(&o);
      }
    }
  }
  free(node_path);
  free(cell_path);
  free(ele_path);
  return s;
}
