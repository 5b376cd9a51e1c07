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
/* A benchmark program's command line, as a table: one entry per option.
 *   CL_BENCH_FLAG   no value; stores (int)lo in *(int *)out (1 for --quick, 0 for --no-armadillo)
 *   CL_BENCH_INT    an integer in [lo, hi] into *(int *)out
 *   CL_BENCH_NUM    a finite number in [lo, hi] into *(double *)out
 *   CL_BENCH_TEXT   any text into *(const char **)out
 *   CL_BENCH_CHOICE one of the '|'-separated words of `arg` into *(const char **)out
 * `arg` names the value in the usage line ("N", "SPEC"; for a choice, the choices). */
enum cl_bench_opt_kind { CL_BENCH_FLAG, CL_BENCH_INT, CL_BENCH_NUM, CL_BENCH_TEXT, CL_BENCH_CHOICE };
typedef struct cl_bench_opt {
  const char *name; /* "--steps" */
  enum cl_bench_opt_kind kind;
  void *out;
  double lo, hi;
  const char *arg;
} cl_bench_opt;
/* Parse argv[1..argc-1] by the table: 1 when every argument was an option of it with a good value;
 * otherwise 0 after one line on stderr, "<prog>: <opt> <text>: ..." for a bad value (not a number,
 * outside the range, not one of the choices) or the usage line (built from the table) for an
 * unknown option or a missing value; the caller then exits with status 2. */
int cl_bench_parse_options(const char *prog, const cl_bench_opt *opts, int n_opts, int argc, char **argv);
/* Path of a file under the source tree's data/ folder (env CLEAVE_DATA overrides). */
const char *cl_bench_data_path(const char *relative);

#endif
