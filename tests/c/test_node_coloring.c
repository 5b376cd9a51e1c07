/* The multicolour block ordering of linalg/node_coloring.h on an elastic bar's pattern: every block
 * has exactly one colour, no two blocks of one colour share a stored matrix block (the condition for
 * updating them in parallel), the colours are few, and a bad block size is refused with its name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/error.h"
#include "linalg/node_coloring.h"
#include "support/cl_asserts.h"
#include "support/mg_systems.h"

static void test_blocks_of_one_colour_are_apart(void **state) {
  (void)state;
  cl_test_mg_sys s;
  cl_test_mg_bar(&s, 24, 6, 6, 1.0, 0.25, 1e5, 0.3, 1.0);
  const int32_t sizes[] = {1, 7, 64, 100000};
  for (int k = 0; k < 4; ++k) {
    cl_node_coloring c;
    assert_ok(cl_node_coloring_make(s.A, sizes[k], &c));
    const int32_t n = s.A->n, size = sizes[k];
    int32_t *color = malloc(sizeof(int32_t) * (size_t)c.blocks);
    for (int32_t b = 0; b < c.blocks; ++b) color[b] = -1;
    for (int32_t q = 0; q < c.colors; ++q)
      for (int32_t m = c.ptr[q]; m < c.ptr[q + 1]; ++m) {
        assert_int_equal(color[c.block[m]], -1); /* listed once */
        color[c.block[m]] = q;
        if (m > c.ptr[q]) assert_true(c.block[m] > c.block[m - 1]);
      }
    for (int32_t b = 0; b < c.blocks; ++b) assert_true(color[b] >= 0);
    for (int32_t i = 0; i < n; ++i)
      for (int64_t t = s.A->row_ptr[i]; t < s.A->row_ptr[i + 1]; ++t) {
        const int32_t bi = i / size, bj = s.A->col[t] / size;
        if (bi != bj) assert_int_not_equal(color[bi], color[bj]);
      }
    print_message("%d nodes, blocks of %d: %d blocks in %d colours\n", n, size, c.blocks, c.colors);
    assert_true(c.colors <= 64);
    free(color);
    cl_node_coloring_free(&c);
  }
  cl_node_coloring c;
  assert_int_equal(cl_node_coloring_make(s.A, 0, &c), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "block size 0"));
  cl_test_mg_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_blocks_of_one_colour_are_apart)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
