/* The BLAS under CHOLMOD follows the world's thread count (issue 15: with OpenBLAS's default of every
 * core, a world with threads = 1 depended on the machine and on OPENBLAS_NUM_THREADS). Debian's
 * install (scripts/install-deps.sh) puts OpenBLAS behind libblas.so.3: after a CHOLMOD step of a world
 * with threads = 1 the BLAS reports 1 thread, with threads = 2 it reports 2. A BLAS with no thread
 * control (the reference BLAS) is single-threaded already: then the test only checks that cleave
 * says so. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "cleave/world.h"
#include "geom/mesh.h"
#include "geom/tet_grid.h"
#include "linalg/blas_threads.h"
#include "support/test_worlds.h"

static void step_cholmod_world(int threads) {
  cl_world *w = cl_test_world(1.0 / 60.0, -9.81, threads);
  const double lo[3] = {0, 0, 0}, hi[3] = {0.4, 0.1, 0.1};
  cl_mesh *m = NULL;
  assert_int_equal(cl_tet_grid(8, 2, 2, lo, hi, &m), CL_OK);
  const cl_param p[1] = {{"linear_solver", 1, NULL}};
  cl_id b = cl_test_add_body(w, "corotational", m, p, 1, NULL, NULL, 0);
  cl_test_x_slab(w, b, -1.0, 1e-6, 0.0);
  assert_int_equal(cl_world_step(w, 2), CL_OK);
  cl_mesh_destroy(m);
  cl_world_destroy(w);
}

static void test_blas_follows_world_threads(void **state) {
  (void)state;
  int (*get)(void) = NULL;
  void *f = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  *(void **)&get = f;
  if (!get) {
    assert_int_equal(cl_blas_set_threads(1), 0); /* no OpenBLAS: nothing to set, and cleave knows it */
    print_message("BLAS without a thread control (reference BLAS): single-threaded already\n");
    return;
  }
  for (int threads = 1; threads <= 2; ++threads) {
    step_cholmod_world(threads);
    print_message("world threads = %d: OpenBLAS threads %d\n", threads, get());
    assert_int_equal(get(), threads);
  }
  step_cholmod_world(1);
  assert_int_equal(get(), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_blas_follows_world_threads)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
