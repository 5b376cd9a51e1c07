#include "base/error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define CL_MESSAGE_SIZE 2048

static _Thread_local char g_message[CL_MESSAGE_SIZE];

const char *cl_last_error(void) { return g_message; }

void cl_clear_error(void) { g_message[0] = '\0'; }

cl_status cl_fail(cl_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_message, sizeof g_message, fmt, ap);
  va_end(ap);
  return status;
}

cl_status cl_fail_context(cl_status status, const char *fmt, ...) {
  char prefix[512];
  char old[CL_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, g_message, sizeof old);
  size_t n = strlen(prefix);
  if (n >= sizeof g_message) n = sizeof g_message - 1;
  memcpy(g_message, prefix, n);
  size_t rest = strlen(old);
  if (n + rest >= sizeof g_message) rest = sizeof g_message - 1 - n;
  memcpy(g_message + n, old, rest);
  g_message[n + rest] = '\0';
  return status;
}

cl_status cl_check_range(const char *name, double value, double lo, double hi) {
  if (!(value >= lo && value <= hi))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "parameter '%s' = %g is outside its allowed range [%g, %g]",
                   name, value, lo, hi);
  return CL_OK;
}

cl_status cl_check_positive(const char *name, double value) {
  if (!(value > 0.0) || isinf(value))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "parameter '%s' = %g must be positive and finite", name,
                   value);
  return CL_OK;
}

const char *cl_status_name(cl_status s) {
  switch (s) {
    case CL_OK: return "CL_OK";
    case CL_WARN_NOT_CONVERGED: return "CL_WARN_NOT_CONVERGED";
    case CL_WARN_CLAMPED: return "CL_WARN_CLAMPED";
    case CL_WARN_NOT_POSDEF: return "CL_WARN_NOT_POSDEF";
    case CL_WARN_ALL_FIXED: return "CL_WARN_ALL_FIXED";
    case CL_WARN_OVERLAP: return "CL_WARN_OVERLAP";
    case CL_WARN_INACCURATE: return "CL_WARN_INACCURATE";
    case CL_WARN_NO_EFFECT: return "CL_WARN_NO_EFFECT";
    case CL_ERR_INVALID_ARGUMENT: return "CL_ERR_INVALID_ARGUMENT";
    case CL_ERR_OUT_OF_MEMORY: return "CL_ERR_OUT_OF_MEMORY";
    case CL_ERR_IO: return "CL_ERR_IO";
    case CL_ERR_PARSE: return "CL_ERR_PARSE";
    case CL_ERR_MESH: return "CL_ERR_MESH";
    case CL_ERR_NOT_FOUND: return "CL_ERR_NOT_FOUND";
    case CL_ERR_STALE_ID: return "CL_ERR_STALE_ID";
    case CL_ERR_NUMERICAL: return "CL_ERR_NUMERICAL";
    case CL_ERR_STATE: return "CL_ERR_STATE";
    case CL_ERR_EXTERNAL: return "CL_ERR_EXTERNAL";
  }
  return "CL_UNKNOWN_STATUS";
}
