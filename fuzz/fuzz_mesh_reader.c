/* libFuzzer target for the mesh readers. One source, one executable per format: the format is
 * chosen at compile time with -DCLEAVE_FUZZ_FORMAT=CL_MESH_FORMAT_OFF (or OBJ, STL, NODE, MEDIT).
 *
 * The input is handed to cl_mesh_parse exactly as libFuzzer gives it: not NUL-terminated, so any
 * read past the end is caught by AddressSanitizer. For NODE, an input holding a line "%%ele" or
 * "%%face" is split there: the part before is the .node file and the part after the cell file,
 * so the .ele/.face readers and their cross-checks against the points are fuzzed too.
 *
 * Beyond "no crash, no leak, no undefined behaviour", each run checks the reader's contract:
 * success gives a mesh that cl_mesh_validate accepts; failure gives NULL and a message that starts
 * with the source's name; no other status than PARSE or MESH (OUT_OF_MEMORY would mean a header
 * count was trusted). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom/mesh_io.h"

#ifndef CLEAVE_FUZZ_FORMAT
#error "define CLEAVE_FUZZ_FORMAT, e.g. -DCLEAVE_FUZZ_FORMAT=CL_MESH_FORMAT_OFF"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void contract(const char *what, int ok) {
  if (ok) return;
  fprintf(stderr, "fuzz contract broken: %s (last error: %s)\n", what, cl_last_error());
  abort();
}

/* Find "\n%%<word>\n" and split there. */
static const char *find_split(const char *d, size_t n, const char *marker, size_t *at, size_t *skip) {
  size_t m = strlen(marker);
  for (size_t i = 0; i + m <= n; ++i)
    if ((i == 0 || d[i - 1] == '\n') && memcmp(d + i, marker, m) == 0) {
      *at = i;
      *skip = m;
      return d + i + m;
    }
  return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *d = (const char *)data;
  const char *name = "fuzz-input";
  cl_mesh *m = (cl_mesh *)&m; /* the reader must reset it */
  cl_status s;
  cl_mesh_format fmt = CLEAVE_FUZZ_FORMAT;
  if (fmt == CL_MESH_FORMAT_NODE) {
    size_t at = 0, skip = 0;
    const char *cells = find_split(d, size, "%%ele\n", &at, &skip);
    cl_mesh_format cf = CL_MESH_FORMAT_ELE;
    if (!cells) {
      cells = find_split(d, size, "%%face\n", &at, &skip);
      cf = CL_MESH_FORMAT_FACE;
    }
    if (cells) {
      /* copy each part to its own exact-size buffer so overreads of either are caught */
      char *node = malloc(at ? at : 1), *cell = malloc(size - at - skip ? size - at - skip : 1);
      if (!node || !cell) abort();
      memcpy(node, d, at);
      memcpy(cell, cells, size - at - skip);
      s = cl_tetgen_parse(node, at, name, cell, size - at - skip, name, cf, &m);
      free(node);
      free(cell);
    } else {
      s = cl_mesh_parse(fmt, d, size, name, &m);
    }
  } else {
    s = cl_mesh_parse(fmt, d, size, name, &m);
  }
  if (s == CL_OK) {
    contract("a parsed mesh passes cl_mesh_validate", m && cl_mesh_validate(m, "check") == CL_OK);
    contract("a parsed mesh has points", m->npoints > 0);
    cl_mesh_destroy(m);
  } else {
    contract("status is PARSE or MESH", s == CL_ERR_PARSE || s == CL_ERR_MESH);
    contract("out is NULL on failure", m == NULL);
    contract("the message names the source", strncmp(cl_last_error(), name, strlen(name)) == 0);
  }
  return 0;
}
