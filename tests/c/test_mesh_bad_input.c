/* Malformed mesh files (tests/data/bad/): every one must give the documented status, leave *out
 * NULL, and leave a message that names the file and the line (or, for binary STL, the byte) of
 * the problem. Nothing may crash; the sanitizer build runs this too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleave/mesh.h"
#include "geom/mesh_io.h"

#define BAD_DIR CLEAVE_SOURCE_DIR "/tests/data/bad/"

typedef struct bad_case {
  const char *file;   /* under tests/data/bad/ */
  cl_status status;
  const char *where;  /* must appear in the message: "file:line" */
  const char *what;   /* and this, to show the message says what is wrong */
} bad_case;

static const bad_case k_cases[] = {
    {"empty.off", CL_ERR_PARSE, "empty.off:1:", "empty file"},
    {"truncated.off", CL_ERR_PARSE, "truncated.off:8:", "file ends after 2 of the 4 faces"},
    {"wrong_count.off", CL_ERR_PARSE, "wrong_count.off:10:", "unexpected content after the 4 vertices and 3 faces"},
    {"nan.off", CL_ERR_PARSE, "nan.off:4:", "y coordinate of vertex 1 is not a finite number"},
    {"index.off", CL_ERR_PARSE, "index.off:11:", "= 4 is outside [0, 3]"},
    {"huge_count.off", CL_ERR_PARSE, "huge_count.off:2:", "more than the remaining"},
    {"two_corners.off", CL_ERR_PARSE, "two_corners.off:6:", "corner count of face 0 = 2"},
    {"crlf_garbage.off", CL_ERR_PARSE, "crlf_garbage.off:8:", "found 'x'"},
    {"repeated.off", CL_ERR_MESH, "repeated.off:6:", "uses point 1 twice"},
    {"index.obj", CL_ERR_PARSE, "index.obj:5:", "refers to vertex 4, but the file defines 3"},
    {"zero_index.obj", CL_ERR_PARSE, "zero_index.obj:4:", "OBJ indices start at 1"},
    {"relative.obj", CL_ERR_PARSE, "relative.obj:4:", "relative vertex index -4"},
    {"garbage.obj", CL_ERR_PARSE, "garbage.obj:4:", "is not an OBJ statement"},
    {"inf.obj", CL_ERR_PARSE, "inf.obj:3:", "not a finite number ('1e999')"},
    {"inverted.ele", CL_ERR_MESH, "inverted.ele:3:", "tet 0 is inverted"},
    {"flat.ele", CL_ERR_MESH, "flat.ele:2:", "tet 0 has zero volume"},
    {"index.ele", CL_ERR_PARSE, "index.ele:3:", "corner 3 of tet 2 = 5 is outside [1, 4]"},
    {"first_number.node", CL_ERR_PARSE, "first_number.node:2:", "numbers from 0 or 1"},
    {"numbering.node", CL_ERR_PARSE, "numbering.node:4:", "point numbered 3 where 2 was expected"},
    {"dimension.node", CL_ERR_PARSE, "dimension.node:1:", "only 3D"},
    {"columns.node", CL_ERR_PARSE, "columns.node:3:", "point 1 has 0 attribute/marker values"},
    {"truncated.stl", CL_ERR_PARSE, "truncated.stl:11:", "file ends where 'vertex' was expected"},
    {"nan.stl", CL_ERR_PARSE, "nan.stl:5:", "y coordinate of corner 1 of facet 0 is not a finite number"},
    {"degenerate.stl", CL_ERR_MESH, "degenerate.stl:9:", "triangle 1 uses point 2 twice"},
    {"wrong_size.stl", CL_ERR_PARSE, "wrong_size.stl: binary STL", "84 + 50 * 2 = 184 bytes, but the file has 134"},
    {"nan_binary.stl", CL_ERR_PARSE, "nan_binary.stl: binary STL triangle 1 (byte 134)", "non-finite"},
    {"unknown.mesh", CL_ERR_PARSE, "unknown.mesh:9:", "unknown MEDIT keyword 'Polyhedra'"},
    {"index.mesh", CL_ERR_PARSE, "index.mesh:11:", "= 9 is outside [1, 4]"},
    {"inverted.mesh", CL_ERR_MESH, "inverted.mesh:6:", "tet 1 is inverted"},
    {"truncated.mesh", CL_ERR_PARSE, "truncated.mesh:4:", "Vertices declares 4 records"},
};

static void test_bad_files(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; ++i) {
    const bad_case *c = &k_cases[i];
    char path[1024];
    snprintf(path, sizeof path, "%s%s", BAD_DIR, c->file);
    cl_mesh *m = (cl_mesh *)&m; /* must be reset to NULL */
    cl_clear_error();
    cl_status s = cl_mesh_read(path, &m);
    const char *msg = cl_last_error();
    if (s != c->status || !strstr(msg, c->where) || !strstr(msg, c->what))
      fail_msg("%s: got %s \"%s\"; expected %s with \"%s\" and \"%s\"", c->file, cl_status_name(s), msg,
               cl_status_name(c->status), c->where, c->what);
    assert_null(m);
  }
}

static void test_missing_partner(void **state) {
  (void)state;
  cl_mesh *m = NULL;
  assert_int_equal(cl_mesh_read(BAD_DIR "missing_node.ele", &m), CL_ERR_IO);
  assert_null(m);
  assert_non_null(strstr(cl_last_error(), "missing_node.ele"));
  assert_non_null(strstr(cl_last_error(), "missing_node.node"));
}

static void test_missing_and_unreadable(void **state) {
  (void)state;
  cl_mesh *m = NULL;
  assert_int_equal(cl_mesh_read(BAD_DIR "no_such_file.off", &m), CL_ERR_IO);
  assert_non_null(strstr(cl_last_error(), "no_such_file.off"));
  /* a directory opens but cannot be read */
  assert_int_equal(cl_mesh_read(BAD_DIR "directory.off", &m), CL_ERR_IO);
  assert_non_null(strstr(cl_last_error(), "directory.off"));
  assert_int_equal(cl_mesh_read(BAD_DIR "empty.xyz", &m), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "empty.xyz"));
  assert_int_equal(cl_mesh_read(BAD_DIR "x.vtu", &m), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_mesh_read(NULL, &m), CL_ERR_INVALID_ARGUMENT);
  assert_int_equal(cl_mesh_read(BAD_DIR "nan.off", NULL), CL_ERR_INVALID_ARGUMENT);
  assert_null(m);
}

/* Every prefix of a valid file must fail cleanly or parse (never crash or read past the end): the
 * buffer is an exact-size heap copy, so the sanitizer build catches any overread. */
static void test_every_truncation(void **state) {
  (void)state;
  static const struct {
    cl_mesh_format fmt;
    const char *text;
  } files[] = {
      {CL_MESH_FORMAT_OFF, "OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n"},
      {CL_MESH_FORMAT_OBJ, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1/1 4/2 3/3\nf -3//1 -2//2 -1//3\n"},
      {CL_MESH_FORMAT_STL, "solid t\nfacet normal 0 0 -1\nouter loop\nvertex 0 0 0\nvertex 0 1 0\nvertex 1 0 0\n"
                           "endloop\nendfacet\nendsolid t\n"},
      {CL_MESH_FORMAT_NODE, "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n"},
      {CL_MESH_FORMAT_MEDIT, "MeshVersionFormatted 2\nDimension 3\nVertices\n4\n0 0 0 0\n1 0 0 0\n0 1 0 0\n0 0 1 0\n"
                             "Tetrahedra\n1\n1 2 3 4 0\nEnd\n"},
  };
  for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
    size_t n = strlen(files[f].text);
    int ok = 0;
    for (size_t len = 0; len <= n; ++len) {
      char *buf = malloc(len ? len : 1);
      assert_non_null(buf);
      memcpy(buf, files[f].text, len);
      cl_mesh *m = NULL;
      cl_status s = cl_mesh_parse(files[f].fmt, buf, len, "cut", &m);
      if (len == n) assert_int_equal(s, CL_OK);
      if (s == CL_OK) {
        ++ok;
        cl_mesh_destroy(m);
      } else {
        assert_true(s == CL_ERR_PARSE || s == CL_ERR_MESH);
        assert_null(m);
        assert_memory_equal(cl_last_error(), "cut", 3); /* the source is named */
      }
      free(buf);
    }
    /* the whole file parses; so may prefixes that end on a record boundary */
    assert_true(ok >= 1);
  }
}

/* The TetGen cell file against its points, from memory: a .ele referring beyond the .node. */
static void test_tetgen_pair_in_memory(void **state) {
  (void)state;
  const char *node = "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n";
  const char *ele = "1 4 0\n0 0 1 2 4\n";
  cl_mesh *m = NULL;
  assert_int_equal(cl_tetgen_parse(node, strlen(node), "a.node", ele, strlen(ele), "a.ele", CL_MESH_FORMAT_ELE, &m),
                   CL_ERR_PARSE);
  assert_non_null(strstr(cl_last_error(), "a.ele:2:"));
  const char *face = "1 0\n0 0 1 2 3\n"; /* a marker the header does not announce */
  assert_int_equal(cl_tetgen_parse(node, strlen(node), "a.node", face, strlen(face), "a.face", CL_MESH_FORMAT_FACE, &m),
                   CL_ERR_PARSE);
  assert_non_null(strstr(cl_last_error(), "a.face:2:"));
  assert_null(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_files),
      cmocka_unit_test(test_missing_partner),
      cmocka_unit_test(test_missing_and_unreadable),
      cmocka_unit_test(test_every_truncation),
      cmocka_unit_test(test_tetgen_pair_in_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
