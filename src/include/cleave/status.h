/* Status codes, error messages, version. */
#ifndef CLEAVE_STATUS_H
#define CLEAVE_STATUS_H

#ifndef CL_FFI_CDEF
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
#endif

/* Result of every fallible call: 0 is success, negative an error, positive a warning (the call did
 * its work but something deserves attention). */
typedef enum cl_status {
  CL_OK = 0,
  CL_WARN_NOT_CONVERGED = 1,   /* an iterative method stopped at its iteration limit */
  CL_WARN_CLAMPED = 2,         /* a value was clamped (e.g. a pseudo-inverse threshold) */
  CL_WARN_NOT_POSDEF = 3,      /* a Cholesky factorization met a non-positive pivot */
  CL_WARN_ALL_FIXED = 4,       /* every node of a body is fixed or driven: it only follows its motion */
  CL_WARN_OVERLAP = 5,         /* a fixed or driven region shares nodes with another that holds them
                                * differently: each such node follows only one of the two */
  CL_WARN_INACCURATE = 6,      /* results are finite but far outside the method's accuracy (e.g. shape
                                * matching clusters stretched beyond 1.5x) */
  CL_WARN_NO_EFFECT = 7,       /* a tool ended without touching its body (a knife that cut nothing) */
  CL_ERR_INVALID_ARGUMENT = -1, /* a parameter outside its allowed range, NULL, NaN, wrong kind */
  CL_ERR_OUT_OF_MEMORY = -2,
  CL_ERR_IO = -3,              /* a file could not be opened, read or written */
  CL_ERR_PARSE = -4,           /* a file is malformed; the message names file and line */
  CL_ERR_MESH = -5,            /* a mesh is unusable: not closed, self-intersecting, degenerate */
  CL_ERR_NOT_FOUND = -6,       /* an unknown name (solver, criterion, parameter) */
  CL_ERR_STALE_ID = -7,        /* an id that was destroyed or belongs to another world */
  CL_ERR_NUMERICAL = -8,       /* NaN or Inf appeared, or a solve failed */
  CL_ERR_STATE = -9,           /* the call is not allowed now (e.g. the world stopped on an error) */
  CL_ERR_EXTERNAL = -10        /* a library (TetGen, CHOLMOD, gnuplot) reported a failure */
} cl_status;

/* The message left by the last failing or warning call on this thread ("" if none).
 * Valid until the next cleave call on the same thread. */
const char *cl_last_error(void);
/* Clear the message. */
void cl_clear_error(void);
/* A short constant name for a status, e.g. "CL_ERR_PARSE". */
const char *cl_status_name(cl_status status);

/* Library version ("0.1.0") and the git revision it was built from ("unknown" outside git). */
const char *cl_version(void);
const char *cl_git_revision(void);

/* Progress of long operations (TetGen meshing, Poisson and grid sampling): with 1, an operation that
 * runs longer than 2 s shows a self-overwriting "task: 45% ... 12 s" line on stderr and its elapsed
 * time when it ends; 0 (the default) prints nothing. The Lua layer sets it when stderr is a terminal
 * (cl.progress.is_terminal()). Set it before starting work, from one thread. */
void cl_set_progress(int enabled);

#ifndef CL_FFI_CDEF
#ifdef __cplusplus
}
#endif
#endif
#endif
