/* Dense symmetric eigenvalues for the tests' positive semi-definiteness checks. */
#ifndef CL_TEST_DENSE_EIG_H
#define CL_TEST_DENSE_EIG_H

/* The smallest eigenvalue of the symmetric n x n matrix M (row-major, n <= 12), by cyclic Jacobi. */
double cl_test_min_eigenvalue(const double *M, int n);

#endif
