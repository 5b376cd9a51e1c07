/* Small helpers shared by the benchmark programs: repeated timing with a median, the machine line. */
#ifndef CL_BENCH_UTIL_H
#define CL_BENCH_UTIL_H

#include <stdint.h>

/* Median of `runs` wall-clock measurements (ms) of fn(ctx). */
double cl_bench_median_ms(int runs, void (*fn)(void *), void *ctx);
/* Print "machine: <cpu model>, <cores> cores, <memory> GiB, <compiler>" on one line. */
void cl_bench_print_machine(void);
/* Number of OpenMP threads available (1 without OpenMP), and setting it. */
int cl_bench_max_threads(void);
void cl_bench_set_threads(int n);
/* Path of a file under the source tree's data/ folder (env CLEAVE_DATA overrides). */
const char *cl_bench_data_path(const char *relative);

#endif
