/* The thread count of the BLAS that CHOLMOD's supernodal factorisation calls. Debian installs
 * OpenBLAS (or another optimised BLAS) behind libblas.so.3 through its alternatives; OpenBLAS then
 * uses every core by default, and its results depend on the count (blocked dgemm/dsyrk sum in a
 * different order), so a world with threads = 1 was not bitwise repeatable between machines or
 * OPENBLAS_NUM_THREADS settings. cl_blas_set_threads makes the BLAS follow the caller's thread count
 * where the BLAS offers a way (looked up at run time, so the reference BLAS, which has no threads,
 * needs nothing). */
#ifndef CL_LINALG_BLAS_THREADS_H
#define CL_LINALG_BLAS_THREADS_H

/* Ask the BLAS for n threads (n >= 1). Returns 1 when a BLAS thread control was found and called,
 * 0 when the BLAS has none (single-threaded reference BLAS). */
int cl_blas_set_threads(int n);

#endif
