/* BLAS thread control looked up at run time; see blas_threads.h. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "linalg/blas_threads.h"

#include <dlfcn.h>
#include <stddef.h>

typedef void (*set_threads_fn)(int);

/* The setters of the optimised BLAS libraries Debian packages (OpenBLAS; BLIS), first found wins. */
static set_threads_fn find_setter(void) {
  static const char *const names[] = {"openblas_set_num_threads", "bli_thread_set_num_threads"};
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; ++i) {
    void *f = dlsym(RTLD_DEFAULT, names[i]);
    if (f) {
      set_threads_fn fn;
      *(void **)&fn = f; /* object to function pointer: POSIX dlsym's documented idiom */
      return fn;
    }
  }
  return NULL;
}

int cl_blas_set_threads(int n) {
  static int looked = 0, current = 0;
  static set_threads_fn setter = NULL;
  if (!looked) {
    setter = find_setter();
    looked = 1;
  }
  if (!setter) return 0;
  if (n < 1) n = 1;
  if (n != current) { /* OpenBLAS's setter reconfigures its pool: only when the count changes */
    setter(n);
    current = n;
  }
  return 1;
}
