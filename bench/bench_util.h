/* Small helpers shared by the benchmark programs: repeated timing with a median, the machine line. */
#ifndef CL_BENCH_UTIL_H
#define CL_BENCH_UTIL_H

#include <stdint.h>

/* Median of `runs` wall-clock measurements (ms) of fn(ctx). */
double cl_bench_median_ms(int runs, void (*fn)(void *), void *ctx);
/* Print "machine: <cpu model>, <cores> cores, <memory> GiB, <compiler>" on one line. */
void cl_bench_print_machine(void);
/* The first line of /proc/loadavg without its newline ("1.02 0.98 0.91 2/83 2523"), or "unknown";
 * a static buffer, overwritten by the next call. */
const char *cl_bench_load_line(void);
/* Number of OpenMP threads available (1 without OpenMP), and setting it. */
int cl_bench_max_threads(void);
void cl_bench_set_threads(int n);
/* Median of v[0..n) (sorts v in place). */
double cl_bench_median(double *v, int n);
/* The benchmark meshes every suite shares, so their figures are about the same mesh. Both print a
 * "  mesh: ..." line and return NULL with cl_last_error() set on failure.
 *  - the Charpy specimen at scale 10 (0.55 m), TetGen -pq2.0 with max volume = volume / divisor
 *    (divisor 10400 gives ~28k tets);
 *  - the armadillo fitted to 1 m, TetGen -pq2.0 (armadillo_6k: ~148k tets; quick: armadillo_2500). */
struct cl_mesh;
struct cl_mesh *cl_bench_charpy_tets(double divisor);
struct cl_mesh *cl_bench_armadillo_tets(int quick);
/* A command-line option's value as an integer (or a number) in [lo, hi]: 1 with *out set, or 0
 * after printing "<prog>: <opt> <text>: ..." (not a number, or outside the range) to stderr; the
 * caller then exits with status 2, as for an unknown option. */
int cl_bench_int_option(const char *prog, const char *opt, const char *text, long lo, long hi, int *out);
int cl_bench_num_option(const char *prog, const char *opt, const char *text, double lo, double hi, double *out);
/* Path of a file under the source tree's data/ folder (env CLEAVE_DATA overrides). */
const char *cl_bench_data_path(const char *relative);

#endif
