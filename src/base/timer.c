/* clock_gettime is POSIX, not C11; request it before any system header. */
#define _POSIX_C_SOURCE 200809L

#include "base/timer.h"

#include <time.h>

uint64_t cl_time_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0; /* cannot fail for CLOCK_MONOTONIC on Linux */
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

double cl_time_ms(void) { return (double)cl_time_ns() * 1e-6; }
