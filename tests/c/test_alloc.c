/* The growth helpers of base/alloc.h: cl_grow_capacity grows geometrically, never below the need
 * nor above the limit; cl_resize keeps the contents, and on failure keeps the array and names what
 * ran out; cl_reserve grows one array with its capacity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/alloc.h"
#include "base/error.h"
#include "support/cl_asserts.h"

static void test_grow_capacity(void **state) {
  (void)state;
  assert_int_equal(cl_grow_capacity(0, 1, INT32_MAX), 16);
  assert_int_equal(cl_grow_capacity(16, 17, INT32_MAX), 16 + 8 + 16);
  assert_int_equal(cl_grow_capacity(100, 90, INT32_MAX), 100); /* already enough */
  /* n appends: O(log n) growths */
  size_t cap = 0;
  int growths = 0;
  for (size_t n = 1; n <= 1000000; ++n)
    if (n > cap) {
      cap = cl_grow_capacity(cap, n, INT32_MAX);
      assert_true(cap >= n);
      ++growths;
    }
  assert_true(growths < 40);
  /* never past the limit, never below the need */
  assert_int_equal(cl_grow_capacity(1000, 1001, 1200), 1200);
  assert_int_equal(cl_grow_capacity(1000, 1200, 1200), 1200);
  assert_int_equal(cl_grow_capacity((size_t)INT32_MAX - 5, (size_t)INT32_MAX, INT32_MAX), INT32_MAX);
  assert_int_equal(cl_grow_capacity(0, 10, 12), 12);
}

static void test_resize(void **state) {
  (void)state;
  int32_t *a = NULL;
  assert_ok(CL_RESIZE(a, 4, "test integers"));
  for (int i = 0; i < 4; ++i) a[i] = 10 * i;
  assert_ok(CL_RESIZE(a, 1000, "test integers"));
  for (int i = 0; i < 4; ++i) assert_int_equal(a[i], 10 * i);
  /* a size beyond the address space fails, names the array, and leaves it as it was */
  int32_t *keep = a;
  assert_error(CL_RESIZE(a, SIZE_MAX / 2, "the test's node labels"), CL_ERR_OUT_OF_MEMORY, "the test's node labels");
  assert_ptr_equal(a, keep);
  assert_int_equal(a[3], 30);
  free(a);
  double *d = NULL;
  size_t cap = 0;
  assert_ok(cl_reserve((void **)&d, &cap, 5, sizeof *d));
  assert_true(cap >= 5);
  d[4] = 1.5;
  assert_ok(cl_reserve((void **)&d, &cap, 100, sizeof *d));
  assert_true(cap >= 100);
  assert_true(d[4] == 1.5);
  free(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_grow_capacity),
      cmocka_unit_test(test_resize),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
