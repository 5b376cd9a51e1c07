/* Monotonic wall-clock time for per-phase timings and benchmarks (never for simulation time). */
#ifndef CL_BASE_TIMER_H
#define CL_BASE_TIMER_H

#include <stdint.h>

/* Nanoseconds from an arbitrary fixed origin (CLOCK_MONOTONIC: unaffected by clock changes). */
uint64_t cl_time_ns(void);
/* The same clock in milliseconds, as a double (sub-millisecond resolution kept). */
double cl_time_ms(void);

#endif
