/* cl_mesh_read / cl_mesh_write: pick the format from the extension, read the whole file, parse it
 * from memory. Also the helpers every reader and writer shares: a tokenizer that works on buffers
 * without a terminating NUL, a builder that checks cells naming their line, and an output file that
 * appears under its real name only once completely written. */
#define _POSIX_C_SOURCE 200809L /* stat, fstat, fileno: a reader checks what it opens */
#include "geom/mesh_io.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "geom/tet.h"

/* ---- formats ------------------------------------------------------------------------------------- */

static const struct {
  const char *ext;
  cl_mesh_format fmt;
} k_formats[] = {
    {"off", CL_MESH_FORMAT_OFF},   {"obj", CL_MESH_FORMAT_OBJ},   {"stl", CL_MESH_FORMAT_STL},
    {"node", CL_MESH_FORMAT_NODE}, {"ele", CL_MESH_FORMAT_ELE},   {"face", CL_MESH_FORMAT_FACE},
    {"mesh", CL_MESH_FORMAT_MEDIT}, {"vtu", CL_MESH_FORMAT_VTU},
};

/* The extension of the last path component (after its last '.'), or NULL. */
static const char *path_extension(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  const char *dot = strrchr(base, '.');
  return dot && dot != base ? dot + 1 : NULL;
}

cl_mesh_format cl_mesh_format_from_path(const char *path) {
  const char *ext = path ? path_extension(path) : NULL;
  if (!ext) return CL_MESH_FORMAT_UNKNOWN;
  for (size_t i = 0; i < sizeof k_formats / sizeof k_formats[0]; ++i)
    if (cl_token_is(ext, strlen(ext), k_formats[i].ext)) return k_formats[i].fmt;
  return CL_MESH_FORMAT_UNKNOWN;
}

const char *cl_mesh_format_name(cl_mesh_format fmt) {
  for (size_t i = 0; i < sizeof k_formats / sizeof k_formats[0]; ++i)
    if (k_formats[i].fmt == fmt) return k_formats[i].ext;
  return "unknown";
}

/* ---- whole files --------------------------------------------------------------------------------- */

/* Refuse anything but a regular file: a FIFO, a device (a link to /dev/zero is an endless stream)
 * or a directory would block or be read until memory runs out. */
static cl_status check_regular(const char *path, const struct stat *st) {
  if (S_ISREG(st->st_mode)) return CL_OK;
  const char *what = S_ISDIR(st->st_mode)   ? "a directory"
                     : S_ISFIFO(st->st_mode) ? "a pipe (FIFO)"
                     : S_ISCHR(st->st_mode)  ? "a character device"
                     : S_ISBLK(st->st_mode)  ? "a block device"
                     : S_ISSOCK(st->st_mode) ? "a socket"
                                             : "not a regular file";
  return cl_fail(CL_ERR_IO, "%s: is %s, not a regular file; give the path of a mesh file", path, what);
}

cl_status cl_read_file(const char *path, char **data, size_t *size) {
  *data = NULL;
  *size = 0;
  struct stat st;
  /* stat before opening: opening a FIFO blocks until someone writes to it */
  if (stat(path, &st) != 0) return cl_fail(CL_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  CL_TRY(check_regular(path, &st));
  FILE *f = fopen(path, "rb");
  if (!f) return cl_fail(CL_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  /* what was opened may not be what was looked at (the path can change in between): check again */
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    return check_regular(path, &st);
  }
  if (st.st_size < 0 || (uint64_t)st.st_size >= (uint64_t)SIZE_MAX / 2) {
    fclose(f);
    return cl_fail(CL_ERR_IO, "%s: size %lld bytes is more than this machine can hold", path, (long long)st.st_size);
  }
  /* read at most the size the file had when opened: a file that keeps growing is cut there */
  const size_t cap = (size_t)st.st_size;
  char *buf = cl_malloc(cap + 1, "file contents");
  if (!buf) {
    fclose(f);
    return cl_fail_context(CL_ERR_OUT_OF_MEMORY, "%s (%zu bytes): ", path, cap);
  }
  size_t n = 0;
  while (n < cap) {
    size_t got = fread(buf + n, 1, cap - n, f);
    if (got == 0) break;
    n += got;
  }
  int err = ferror(f) ? errno : 0;
  fclose(f);
  if (err) {
    free(buf);
    return cl_fail(CL_ERR_IO, "%s: cannot read: %s", path, strerror(err));
  }
  buf[n] = '\0';
  *data = buf;
  *size = n;
  return CL_OK;
}

/* ---- parsing from memory ------------------------------------------------------------------------- */

cl_status cl_mesh_parse(cl_mesh_format fmt, const char *data, size_t size, const char *name, cl_mesh **out) {
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_parse: out is NULL");
  *out = NULL;
  if (!name) name = "mesh";
  if (!data && size > 0) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_parse: NULL data of size %zu", size);
  if (!data) data = "";
  switch (fmt) {
    case CL_MESH_FORMAT_OFF: return cl_read_off(data, size, name, out);
    case CL_MESH_FORMAT_OBJ: return cl_read_obj(data, size, name, out);
    case CL_MESH_FORMAT_STL: return cl_read_stl(data, size, name, out);
    case CL_MESH_FORMAT_MEDIT: return cl_read_medit(data, size, name, out);
    case CL_MESH_FORMAT_NODE: return cl_tetgen_parse(data, size, name, NULL, 0, NULL, CL_MESH_FORMAT_UNKNOWN, out);
    case CL_MESH_FORMAT_ELE:
    case CL_MESH_FORMAT_FACE:
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: a TetGen .%s file needs its .node file (use cl_tetgen_parse)",
                     name, cl_mesh_format_name(fmt));
    case CL_MESH_FORMAT_VTU:
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: reading .vtu is not supported (cleave writes it for ParaView)", name);
    case CL_MESH_FORMAT_UNKNOWN: break;
  }
  return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: unknown mesh format %d", name, (int)fmt);
}

/* `path` with its extension replaced by `ext` (malloc'ed). */
static char *replace_extension(const char *path, const char *ext) {
  const char *e = path_extension(path);
  size_t base = e ? (size_t)(e - path) : strlen(path) + 1; /* keeps the '.' */
  char *p = cl_malloc(base + strlen(ext) + 1, "file name");
  if (!p) return NULL;
  memcpy(p, path, base - 1);
  p[base - 1] = '.';
  strcpy(p + base, ext);
  return p;
}

/* The partner of a TetGen file: same base name, extension `ext` in the case of the given one. */
static char *tetgen_partner(const char *path, const char *ext) {
  const char *e = path_extension(path);
  char upper[8] = {0};
  for (size_t i = 0; i + 1 < sizeof upper && ext[i]; ++i) upper[i] = (char)toupper((unsigned char)ext[i]);
  int is_upper = e && isupper((unsigned char)e[0]);
  return replace_extension(path, is_upper ? upper : ext);
}

/* Read a file that may be absent: *data NULL and CL_OK when it does not exist. */
static cl_status read_optional(const char *path, char **data, size_t *size) {
  struct stat st;
  if (stat(path, &st) != 0 && errno == ENOENT) {
    *data = NULL;
    *size = 0;
    return CL_OK;
  }
  return cl_read_file(path, data, size);
}

static cl_status read_tetgen(const char *path, cl_mesh_format fmt, cl_mesh **out) {
  char *node_path = fmt == CL_MESH_FORMAT_NODE ? NULL : tetgen_partner(path, "node");
  char *cell_path = fmt == CL_MESH_FORMAT_NODE ? tetgen_partner(path, "ele") : NULL;
  char *node = NULL, *cells = NULL;
  size_t node_size = 0, cells_size = 0;
  cl_status s = CL_OK;
  if (fmt == CL_MESH_FORMAT_NODE) {
    if (!cell_path) return CL_ERR_OUT_OF_MEMORY;
    s = cl_read_file(path, &node, &node_size);
    if (s >= 0) s = read_optional(cell_path, &cells, &cells_size);
    if (s >= 0)
      s = cl_tetgen_parse(node, node_size, path, cells, cells_size, cell_path,
                          cells ? CL_MESH_FORMAT_ELE : CL_MESH_FORMAT_UNKNOWN, out);
  } else {
    if (!node_path) return CL_ERR_OUT_OF_MEMORY;
    s = cl_read_file(path, &cells, &cells_size);
    if (s >= 0) {
      s = cl_read_file(node_path, &node, &node_size);
      if (s < 0)
        s = cl_fail_context(s, "%s: a TetGen .%s file needs the points file %s beside it: ", path,
                            cl_mesh_format_name(fmt), node_path);
    }
    if (s >= 0) s = cl_tetgen_parse(node, node_size, node_path, cells, cells_size, path, fmt, out);
  }
  free(node);
  free(cells);
  free(node_path);
  free(cell_path);
  return s;
}

cl_status cl_mesh_read(const char *path, cl_mesh **out) {
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_read: out is NULL");
  *out = NULL;
  if (!path) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_read: path is NULL");
  cl_mesh_format fmt = cl_mesh_format_from_path(path);
  switch (fmt) {
    case CL_MESH_FORMAT_UNKNOWN:
      return cl_fail(CL_ERR_INVALID_ARGUMENT,
                     "%s: unknown mesh extension; readable: .off .obj .stl .node .ele .face .mesh", path);
    case CL_MESH_FORMAT_VTU:
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: reading .vtu is not supported; readable: .off .obj .stl "
                     ".node .ele .face .mesh", path);
    case CL_MESH_FORMAT_NODE:
    case CL_MESH_FORMAT_ELE:
    case CL_MESH_FORMAT_FACE: return read_tetgen(path, fmt, out);
    default: break;
  }
  char *data;
  size_t size;
  CL_TRY(cl_read_file(path, &data, &size));
  cl_status s = cl_mesh_parse(fmt, data, size, path, out);
  free(data);
  return s;
}

cl_status cl_mesh_write(const cl_mesh *mesh, const char *path) {
  if (!mesh || !path) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mesh_write: NULL %s", mesh ? "path" : "mesh");
  switch (cl_mesh_format_from_path(path)) {
    case CL_MESH_FORMAT_VTU: return cl_write_vtu(mesh, path);
    case CL_MESH_FORMAT_OBJ: return cl_write_obj(mesh, path);
    case CL_MESH_FORMAT_OFF: return cl_write_off(mesh, path);
    case CL_MESH_FORMAT_MEDIT: return cl_write_medit(mesh, path);
    case CL_MESH_FORMAT_NODE:
    case CL_MESH_FORMAT_ELE:
    case CL_MESH_FORMAT_FACE: return cl_write_tetgen(mesh, path);
    case CL_MESH_FORMAT_STL:
    case CL_MESH_FORMAT_UNKNOWN: break;
  }
  return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: cannot write this extension; writable: .vtu .obj .off .node .mesh", path);
}

/* ---- tokenizer ----------------------------------------------------------------------------------- */

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

void cl_lex_init(cl_lexer *lx, const char *data, size_t size, const char *name, char comment) {
  lx->data = data;
  lx->size = size;
  lx->next = 0;
  lx->name = name;
  lx->line = 0;
  lx->cur = lx->end = data;
  lx->comment = comment;
}

/* Load the next raw line; false at the end of the data (the line number then stays on the last). */
static bool load_line(cl_lexer *lx) {
  if (lx->next >= lx->size) return false;
  const char *s = lx->data + lx->next;
  size_t avail = lx->size - lx->next;
  const char *nl = memchr(s, '\n', avail);
  size_t len = nl ? (size_t)(nl - s) : avail;
  lx->next += nl ? len + 1 : len;
  lx->line++;
  lx->cur = s;
  lx->end = s + len;
  if (lx->comment) {
    const char *c = memchr(s, lx->comment, len);
    if (c) lx->end = c;
  }
  return true;
}

bool cl_lex_more(cl_lexer *lx) {
  while (lx->cur < lx->end && is_blank(*lx->cur)) lx->cur++;
  return lx->cur < lx->end;
}

bool cl_lex_line(cl_lexer *lx) {
  while (load_line(lx))
    if (cl_lex_more(lx)) return true;
  lx->cur = lx->end;
  return false;
}

bool cl_lex_token(cl_lexer *lx, const char **tok, size_t *len) {
  if (!cl_lex_more(lx)) return false;
  const char *s = lx->cur;
  while (lx->cur < lx->end && !is_blank(*lx->cur)) lx->cur++;
  *tok = s;
  *len = (size_t)(lx->cur - s);
  return true;
}

bool cl_lex_token_any(cl_lexer *lx, const char **tok, size_t *len) {
  while (!cl_lex_more(lx))
    if (!load_line(lx)) return false;
  return cl_lex_token(lx, tok, len);
}

size_t cl_lex_remaining(const cl_lexer *lx) { return lx->size - lx->next; }

cl_status cl_lex_fail(const cl_lexer *lx, cl_status status, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return cl_fail(status, "%s:%lld: %s", lx->name, lx->line > 0 ? lx->line : 1, msg);
}

bool cl_parse_int(const char *s, size_t n, long long *v) {
  size_t i = 0;
  int neg = 0;
  if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i == n) return false;
  long long r = 0;
  for (; i < n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    if (r > (LLONG_MAX - 9) / 10) return false;
    r = 10 * r + (s[i] - '0');
  }
  *v = neg ? -r : r;
  return true;
}

bool cl_parse_double(const char *s, size_t n, double *v) {
  char buf[72]; /* the longest %.17g is 24 characters; longer tokens are not numbers we write */
  if (n == 0 || n >= sizeof buf) return false;
  memcpy(buf, s, n);
  buf[n] = '\0';
  char *end;
  *v = strtod(buf, &end);
  return end == buf + n;
}

const char *cl_token_quote(const char *s, size_t n, char *buf, size_t cap) {
  size_t k = 0;
  size_t keep = n < cap - 1 ? n : cap - 4;
  for (size_t i = 0; i < keep; ++i) {
    unsigned char c = (unsigned char)s[i];
    buf[k++] = c >= 32 && c < 127 ? (char)c : '?';
  }
  if (keep < n) {
    memcpy(buf + k, "...", 3);
    k += 3;
  }
  buf[k] = '\0';
  return buf;
}

bool cl_token_is(const char *s, size_t n, const char *keyword) {
  size_t m = strlen(keyword);
  if (n != m) return false;
  for (size_t i = 0; i < n; ++i)
    if (tolower((unsigned char)s[i]) != tolower((unsigned char)keyword[i])) return false;
  return true;
}

/* The message for a number that is missing, malformed, not finite or out of range. */
static cl_status number_error(cl_lexer *lx, const char *tok, size_t len, bool found, bool any, int why,
                              long long lo, long long hi, const char *what, va_list ap) CL_PRINTF(9, 0);
static cl_status number_error(cl_lexer *lx, const char *tok, size_t len, bool found, bool any, int why,
                              long long lo, long long hi, const char *what, va_list ap) {
  char w[256], q[48];
  vsnprintf(w, sizeof w, what, ap);
  if (!found) return cl_lex_fail(lx, CL_ERR_PARSE, "expected %s, but the %s ends", w, any ? "file" : "line");
  cl_token_quote(tok, len, q, sizeof q);
  if (why == 1) return cl_lex_fail(lx, CL_ERR_PARSE, "%s is not a finite number ('%s')", w, q);
  if (why == 2) return cl_lex_fail(lx, CL_ERR_PARSE, "%s = %s is outside [%lld, %lld]", w, q, lo, hi);
  return cl_lex_fail(lx, CL_ERR_PARSE, "expected %s, found '%s'", w, q);
}

/* 0 ok, else the reason for number_error: 1 not finite, 3 not a number */
static int check_double(const char *t, size_t n, double *v) {
  if (!cl_parse_double(t, n, v)) return 3;
  return isfinite(*v) ? 0 : 1;
}

static int check_int(const char *t, size_t n, long long lo, long long hi, long long *v) {
  if (!cl_parse_int(t, n, v)) return 3;
  return *v < lo || *v > hi ? 2 : 0;
}

cl_status cl_lex_double(cl_lexer *lx, double *v, const char *what, ...) {
  const char *t = NULL;
  size_t n = 0;
  bool found = cl_lex_token(lx, &t, &n);
  int why = found ? check_double(t, n, v) : 3;
  if (found && !why) return CL_OK;
  va_list ap;
  va_start(ap, what);
  cl_status s = number_error(lx, t, n, found, false, why, 0, 0, what, ap);
  va_end(ap);
  return s;
}

cl_status cl_lex_double_any(cl_lexer *lx, double *v, const char *what, ...) {
  const char *t = NULL;
  size_t n = 0;
  bool found = cl_lex_token_any(lx, &t, &n);
  int why = found ? check_double(t, n, v) : 3;
  if (found && !why) return CL_OK;
  va_list ap;
  va_start(ap, what);
  cl_status s = number_error(lx, t, n, found, true, why, 0, 0, what, ap);
  va_end(ap);
  return s;
}

cl_status cl_lex_int(cl_lexer *lx, long long lo, long long hi, long long *v, const char *what, ...) {
  const char *t = NULL;
  size_t n = 0;
  bool found = cl_lex_token(lx, &t, &n);
  int why = found ? check_int(t, n, lo, hi, v) : 3;
  if (found && !why) return CL_OK;
  va_list ap;
  va_start(ap, what);
  cl_status s = number_error(lx, t, n, found, false, why, lo, hi, what, ap);
  va_end(ap);
  return s;
}

cl_status cl_lex_int_any(cl_lexer *lx, long long lo, long long hi, long long *v, const char *what, ...) {
  const char *t = NULL;
  size_t n = 0;
  bool found = cl_lex_token_any(lx, &t, &n);
  int why = found ? check_int(t, n, lo, hi, v) : 3;
  if (found && !why) return CL_OK;
  va_list ap;
  va_start(ap, what);
  cl_status s = number_error(lx, t, n, found, true, why, lo, hi, what, ap);
  va_end(ap);
  return s;
}

/* ---- builder ------------------------------------------------------------------------------------- */

cl_status cl_builder_reserve(cl_mesh_builder *b, size_t points, size_t tris, size_t tets) {
  if (points && cl_reserve((void **)&b->x, &b->cap_points, b->npoints + points, 3 * sizeof(double)))
    return CL_ERR_OUT_OF_MEMORY;
  if (tris && (cl_reserve((void **)&b->tri, &b->cap_tri, b->ntri + tris, 3 * sizeof(int32_t)) ||
               cl_reserve((void **)&b->tri_line, &b->cap_tri_line, b->ntri + tris, sizeof(long long))))
    return CL_ERR_OUT_OF_MEMORY;
  if (tets && (cl_reserve((void **)&b->tet, &b->cap_tet, b->ntet + tets, 4 * sizeof(int32_t)) ||
               cl_reserve((void **)&b->tet_line, &b->cap_tet_line, b->ntet + tets, sizeof(long long))))
    return CL_ERR_OUT_OF_MEMORY;
  return CL_OK;
}

cl_status cl_builder_point(cl_mesh_builder *b, double x, double y, double z) {
  if (b->npoints >= INT32_MAX) return cl_fail(CL_ERR_PARSE, "more than %d points", INT32_MAX);
  CL_TRY(cl_builder_reserve(b, 1, 0, 0));
  double *p = b->x + 3 * b->npoints++;
  p[0] = x;
  p[1] = y;
  p[2] = z;
  return CL_OK;
}

cl_status cl_builder_tri(cl_mesh_builder *b, int32_t a, int32_t c, int32_t d, long long line) {
  if (b->ntri >= INT32_MAX) return cl_fail(CL_ERR_PARSE, "more than %d triangles", INT32_MAX);
  CL_TRY(cl_builder_reserve(b, 0, 1, 0));
  int32_t *t = b->tri + 3 * b->ntri;
  t[0] = a;
  t[1] = c;
  t[2] = d;
  b->tri_line[b->ntri++] = line;
  return CL_OK;
}

cl_status cl_builder_tet(cl_mesh_builder *b, const int32_t v[4], long long line) {
  if (b->ntet >= INT32_MAX) return cl_fail(CL_ERR_PARSE, "more than %d tets", INT32_MAX);
  CL_TRY(cl_builder_reserve(b, 0, 0, 1));
  memcpy(b->tet + 4 * b->ntet, v, 4 * sizeof(int32_t));
  b->tet_line[b->ntet++] = line;
  return CL_OK;
}

void cl_builder_free(cl_mesh_builder *b) {
  free(b->x);
  free(b->tri);
  free(b->tri_line);
  free(b->tet);
  free(b->tet_line);
  memset(b, 0, sizeof *b);
}

/* "name:line: " or "name: " when the cell has no line (binary files). */
static void where(char *buf, size_t cap, const char *name, long long line) {
  if (line > 0)
    snprintf(buf, cap, "%s:%lld", name, line);
  else
    snprintf(buf, cap, "%s", name);
}

/* The same checks as cl_mesh_validate, but reported with the file line of the offending cell. */
static cl_status check_cells(const cl_mesh_builder *b, cl_mesh_kind kind, const char *name) {
  int cs = cl_mesh_cell_size(kind);
  size_t n = kind == CL_MESH_TETS ? b->ntet : b->ntri;
  const int32_t *cells = kind == CL_MESH_TETS ? b->tet : b->tri;
  const long long *lines = kind == CL_MESH_TETS ? b->tet_line : b->tri_line;
  const char *what = kind == CL_MESH_TETS ? "tet" : "triangle";
  double tol = 0.0;
  if (kind == CL_MESH_TETS && b->npoints > 0) {
    /* relative to the cube of the bounding-box diagonal, as cl_mesh_validate does */
    double lo[3], hi[3], d2 = 0.0;
    for (int k = 0; k < 3; ++k) lo[k] = hi[k] = b->x[k];
    for (size_t i = 1; i < b->npoints; ++i)
      for (int k = 0; k < 3; ++k) {
        lo[k] = fmin(lo[k], b->x[3 * i + k]);
        hi[k] = fmax(hi[k], b->x[3 * i + k]);
      }
    for (int k = 0; k < 3; ++k) d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    tol = 1e-14 * d2 * sqrt(d2);
  }
  char at[600];
  for (size_t c = 0; c < n; ++c) {
    const int32_t *v = cells + (size_t)cs * c;
    for (int a = 0; a < cs; ++a) {
      if (v[a] < 0 || (size_t)v[a] >= b->npoints) {
        where(at, sizeof at, name, lines[c]);
        return cl_fail(CL_ERR_PARSE, "%s: %s %zu refers to point %d, but there are %zu points (numbered from 0 here)",
                       at, what, c, v[a], b->npoints);
      }
      for (int k = 0; k < a; ++k)
        if (v[a] == v[k]) {
          where(at, sizeof at, name, lines[c]);
          return cl_fail(CL_ERR_MESH, "%s: %s %zu uses point %d twice", at, what, c, v[a]);
        }
    }
    if (kind == CL_MESH_TETS) {
      const double *x = b->x;
      double vol = cl_tet_volume(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], x + 3 * v[3]);
      if (!(fabs(vol) > tol)) { /* also catches a NaN volume from overflowing coordinates */
        where(at, sizeof at, name, lines[c]);
        return cl_fail(CL_ERR_MESH, "%s: tet %zu has zero volume (%g m^3): its corners are coplanar", at, c, vol);
      }
      if (vol < 0) {
        where(at, sizeof at, name, lines[c]);
        return cl_fail(CL_ERR_MESH,
                       "%s: tet %zu is inverted (volume %g m^3 < 0); cleave expects det[x1-x0, x2-x0, x3-x0] > 0",
                       at, c, vol);
      }
    }
  }
  return CL_OK;
}

cl_status cl_builder_finish(cl_mesh_builder *b, cl_mesh_kind kind, const char *name, cl_mesh **out) {
  *out = NULL;
  cl_status s = CL_OK;
  size_t ncells = kind == CL_MESH_TETS ? b->ntet : kind == CL_MESH_TRIANGLES ? b->ntri : 0;
  if (b->npoints == 0)
    s = cl_fail(CL_ERR_PARSE, "%s: the file holds no points", name);
  else if (b->npoints > INT32_MAX || ncells > INT32_MAX)
    s = cl_fail(CL_ERR_PARSE, "%s: more than %d points or cells", name, INT32_MAX);
  if (s >= 0) s = check_cells(b, kind, name);
  cl_mesh *m = NULL;
  if (s >= 0) s = cl_mesh_alloc(kind, (int32_t)b->npoints, (int32_t)ncells, &m);
  if (s >= 0) {
    memcpy(m->x, b->x, sizeof(double) * 3 * b->npoints);
    if (ncells) memcpy(m->cells, kind == CL_MESH_TETS ? b->tet : b->tri, sizeof(int32_t) * (size_t)cl_mesh_cell_size(kind) * ncells);
    s = cl_mesh_validate(m, name);
  }
  cl_builder_free(b);
  if (s < 0) {
    cl_mesh_destroy(m);
    return s;
  }
  *out = m;
  return CL_OK;
}

/* ---- output files -------------------------------------------------------------------------------- */

cl_status cl_out_open(cl_out *o, const char *path) {
  memset(o, 0, sizeof *o);
  o->path = path;
  size_t n = strlen(path);
  o->tmp = cl_malloc(n + 5, "file name");
  if (!o->tmp) return CL_ERR_OUT_OF_MEMORY;
  memcpy(o->tmp, path, n);
  memcpy(o->tmp + n, ".tmp", 5);
  FILE *f = fopen(o->tmp, "wb");
  if (!f) {
    cl_status s = cl_fail(CL_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    free(o->tmp);
    o->tmp = NULL;
    return s;
  }
  o->fp = f;
  return CL_OK;
}

void cl_out_printf(cl_out *o, const char *fmt, ...) {
  if (o->failed) return;
  va_list ap;
  va_start(ap, fmt);
  if (vfprintf((FILE *)o->fp, fmt, ap) < 0) o->failed = errno ? errno : EIO;
  va_end(ap);
}

cl_status cl_out_close(cl_out *o) {
  FILE *f = o->fp;
  if (!f) return cl_fail(CL_ERR_IO, "%s: not open", o->path);
  if (!o->failed && (fflush(f) != 0 || ferror(f))) o->failed = errno ? errno : EIO;
  if (fclose(f) != 0 && !o->failed) o->failed = errno ? errno : EIO;
  o->fp = NULL;
  cl_status s = CL_OK;
  if (o->failed) {
    s = cl_fail(CL_ERR_IO, "%s: write failed: %s", o->path, strerror(o->failed));
    remove(o->tmp);
  } else if (rename(o->tmp, o->path) != 0) {
    s = cl_fail(CL_ERR_IO, "%s: cannot move the written file into place: %s", o->path, strerror(errno));
    remove(o->tmp);
  }
  free(o->tmp);
  o->tmp = NULL;
  return s;
}

void cl_out_abort(cl_out *o) {
  if (o->fp) fclose((FILE *)o->fp);
  if (o->tmp) remove(o->tmp);
  free(o->tmp);
  memset(o, 0, sizeof *o);
}
