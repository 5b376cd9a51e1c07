/* Mesh file input and output (internal). The public entry points are cl_mesh_read and
 * cl_mesh_write in include/cleave/mesh.h; they read the whole file into memory and hand it to a
 * parser, so every reader works on a (pointer, size) buffer that is NOT NUL-terminated. That is the
 * entry the fuzzers and tests use (cl_mesh_parse).
 *
 * Rules every reader follows:
 * - counts in a header are never trusted: storage is bounded by what the remaining bytes can hold;
 * - lines end in LF or CRLF; '#' starts a comment (except in STL); blank lines are skipped;
 * - every error names the source and the line, "name:line: what is wrong";
 * - content after the records a header announced is an error (a wrong count or a concatenated file);
 * - the result passes cl_mesh_validate (finite, in range, distinct corners, tets positively oriented
 *   with non-zero volume). */
#ifndef CL_GEOM_MESH_IO_H
#define CL_GEOM_MESH_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "geom/mesh.h"

typedef enum cl_mesh_format {
  CL_MESH_FORMAT_UNKNOWN = 0,
  CL_MESH_FORMAT_OFF,   /* Object File Format (Geomview): triangles or polygons */
  CL_MESH_FORMAT_OBJ,   /* Wavefront OBJ: v and f statements */
  CL_MESH_FORMAT_STL,   /* STL, ascii or binary */
  CL_MESH_FORMAT_NODE,  /* TetGen .node: points (cl_mesh_read also loads a .ele beside it) */
  CL_MESH_FORMAT_ELE,   /* TetGen .ele: tets; needs the .node points */
  CL_MESH_FORMAT_FACE,  /* TetGen .face: triangles; needs the .node points */
  CL_MESH_FORMAT_MEDIT, /* MEDIT / Gamma .mesh (ascii) */
  CL_MESH_FORMAT_VTU    /* VTK XML UnstructuredGrid (written only) */
} cl_mesh_format;

/* The format named by a path's extension, compared case-insensitively; UNKNOWN if none fits. */
cl_mesh_format cl_mesh_format_from_path(const char *path);
/* "off", "obj", "stl", "node", "ele", "face", "mesh", "vtu" ("unknown" otherwise). */
const char *cl_mesh_format_name(cl_mesh_format fmt);

/* Read a whole file. *data is malloc'ed with one NUL byte after the content (for convenience only:
 * parsers never rely on it); free it with free(). CL_ERR_IO names the path and the system error. */
cl_status cl_read_file(const char *path, char **data, size_t *size);

/* Parse a mesh held in memory. `name` prefixes messages ("name:line: ..."). For ELE and FACE the
 * buffer holds the cell file only, which cannot stand alone: use cl_tetgen_parse. On failure *out
 * is NULL. */
cl_status cl_mesh_parse(cl_mesh_format fmt, const char *data, size_t size, const char *name,
                        cl_mesh **out);

/* Parse TetGen files from memory: the .node buffer, and optionally a cell buffer (`cells` may be
 * NULL) holding a .ele (cell_fmt CL_MESH_FORMAT_ELE: tets) or .face (CL_MESH_FORMAT_FACE:
 * triangles). Point numbering starts at the first point number of the .node file (0 or 1), as in
 * TetGen; the cell files refer to points with that numbering. */
cl_status cl_tetgen_parse(const char *node, size_t node_size, const char *node_name,
                          const char *cells, size_t cells_size, const char *cells_name,
                          cl_mesh_format cell_fmt, cl_mesh **out);

/* ---- readers (one per file; called through cl_mesh_parse) --------------------------------------- */
cl_status cl_read_off(const char *data, size_t size, const char *name, cl_mesh **out);
cl_status cl_read_obj(const char *data, size_t size, const char *name, cl_mesh **out);
cl_status cl_read_stl(const char *data, size_t size, const char *name, cl_mesh **out);
cl_status cl_read_medit(const char *data, size_t size, const char *name, cl_mesh **out);

/* ---- writers (one per format; called through cl_mesh_write) ------------------------------------- */
cl_status cl_write_vtu(const cl_mesh *m, const char *path);
cl_status cl_write_obj(const cl_mesh *m, const char *path);
cl_status cl_write_off(const cl_mesh *m, const char *path);
cl_status cl_write_medit(const cl_mesh *m, const char *path);
/* Writes base.node, plus base.ele (tets) or base.face (triangles); `path` may end in any of the
 * three extensions. */
cl_status cl_write_tetgen(const cl_mesh *m, const char *path);

/* ---- helpers shared by the readers -------------------------------------------------------------- */

/* A line-oriented tokenizer over a buffer that is not NUL-terminated. */
typedef struct cl_lexer {
  const char *data;
  size_t size;
  size_t next;          /* offset of the first byte after the current line */
  const char *name;     /* for messages */
  long long line;       /* 1-based number of the current line */
  const char *cur, *end; /* the unread part of the current line (comment and CR/LF removed) */
  char comment;         /* comment character, or 0 for none */
} cl_lexer;

void cl_lex_init(cl_lexer *lx, const char *data, size_t size, const char *name, char comment);
/* Advance to the next line holding at least one token; false at the end of the data. */
bool cl_lex_line(cl_lexer *lx);
/* The next whitespace-separated token of the current line; false at the end of the line. */
bool cl_lex_token(cl_lexer *lx, const char **tok, size_t *len);
/* The next token, moving on to following lines when the current one is used up. */
bool cl_lex_token_any(cl_lexer *lx, const char **tok, size_t *len);
/* True if the current line has unread tokens. */
bool cl_lex_more(cl_lexer *lx);
/* Bytes from the start of the next line to the end of the data (to bound header counts). */
size_t cl_lex_remaining(const cl_lexer *lx);
/* Fail with "name:line: " + message. */
cl_status cl_lex_fail(const cl_lexer *lx, cl_status status, const char *fmt, ...) CL_PRINTF(3, 4);
/* Read the next token on the line as a finite double / an integer in [lo, hi]. `what` (a printf
 * format, formatted only if there is an error, since readers call these millions of times) names
 * the value in the message: "x coordinate of vertex %lld". The _any forms look across lines, for
 * formats that are token streams. */
cl_status cl_lex_double(cl_lexer *lx, double *v, const char *what, ...) CL_PRINTF(3, 4);
cl_status cl_lex_double_any(cl_lexer *lx, double *v, const char *what, ...) CL_PRINTF(3, 4);
cl_status cl_lex_int(cl_lexer *lx, long long lo, long long hi, long long *v, const char *what, ...) CL_PRINTF(5, 6);
cl_status cl_lex_int_any(cl_lexer *lx, long long lo, long long hi, long long *v, const char *what, ...)
    CL_PRINTF(5, 6);

/* Parse a whole token; false if it is not exactly a number (integers beyond +-9.2e18 fail rather
 * than wrap). Doubles go through strtod, so they follow the C locale's decimal point. */
bool cl_parse_int(const char *s, size_t n, long long *v);
bool cl_parse_double(const char *s, size_t n, double *v);
/* Copy a token for a message: printable characters only, cut at `cap` - 4 with "...". */
const char *cl_token_quote(const char *s, size_t n, char *buf, size_t cap);
/* Case-insensitive equality of a token with a NUL-terminated keyword. */
bool cl_token_is(const char *s, size_t n, const char *keyword);

/* Accumulates points and cells while a file is parsed; remembers each cell's line for messages. */
typedef struct cl_mesh_builder {
  double *x;             /* 3 per point */
  size_t npoints, cap_points;
  int32_t *tri;          /* 3 per triangle */
  long long *tri_line;
  size_t ntri, cap_tri, cap_tri_line;
  int32_t *tet;          /* 4 per tet */
  long long *tet_line;
  size_t ntet, cap_tet, cap_tet_line;
} cl_mesh_builder;

/* Room for this many more points / triangles / tets (callers pass counts already bounded). */
cl_status cl_builder_reserve(cl_mesh_builder *b, size_t points, size_t tris, size_t tets);
cl_status cl_builder_point(cl_mesh_builder *b, double x, double y, double z);
/* line 0 means "no line" (binary files). */
cl_status cl_builder_tri(cl_mesh_builder *b, int32_t a, int32_t c, int32_t d, long long line);
cl_status cl_builder_tet(cl_mesh_builder *b, const int32_t v[4], long long line);
/* Build the mesh of `kind` (points ignore the cell lists, triangles use tri, tets use tet), check
 * every cell (index range, repeated corners, tet volume sign) naming `name` and the cell's line,
 * then run cl_mesh_validate. The builder is freed in every case. */
cl_status cl_builder_finish(cl_mesh_builder *b, cl_mesh_kind kind, const char *name, cl_mesh **out);
void cl_builder_free(cl_mesh_builder *b);

/* ---- helpers shared by the writers -------------------------------------------------------------- */

/* A file being written: output goes to "path.tmp" and is renamed over `path` by cl_out_close, so a
 * failed write never leaves a half-written file under the real name. */
typedef struct cl_out {
  void *fp;         /* FILE * */
  const char *path;
  char *tmp;
  int failed;
} cl_out;

cl_status cl_out_open(cl_out *o, const char *path);
void cl_out_printf(cl_out *o, const char *fmt, ...) CL_PRINTF(2, 3);
/* Flush, close and rename; CL_ERR_IO naming the path if any write failed. */
cl_status cl_out_close(cl_out *o);
/* Drop the temporary file (after an error elsewhere). */
void cl_out_abort(cl_out *o);

#endif
