#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/timer.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double cl_bench_median_ms(int runs, void (*fn)(void *), void *ctx) {
  double t[64];
  if (runs > 64) runs = 64;
  if (runs < 1) runs = 1;
  for (int r = 0; r < runs; ++r) {
    double t0 = cl_time_ms();
    fn(ctx);
    t[r] = cl_time_ms() - t0;
  }
  qsort(t, (size_t)runs, sizeof t[0], cmp_double);
  return runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
}

void cl_bench_print_machine(void) {
  char model[256] = "unknown CPU";
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f))
      if (strncmp(line, "model name", 10) == 0) {
        char *p = strchr(line, ':');
        if (p) {
          snprintf(model, sizeof model, "%s", p + 2);
          model[strcspn(model, "\n")] = 0;
        }
        break;
      }
    fclose(f);
  }
  long mem_kb = 0;
  f = fopen("/proc/meminfo", "r");
  if (f) {
    if (fscanf(f, "MemTotal: %ld kB", &mem_kb) != 1) mem_kb = 0;
    fclose(f);
  }
  printf("machine: %s, %d threads available, %.0f GiB RAM, %s\n", model, cl_bench_max_threads(),
         (double)mem_kb / (1024.0 * 1024.0),
#if defined(__clang__)
         "clang " __clang_version__
#elif defined(__GNUC__)
         "gcc " __VERSION__
#else
         "unknown compiler"
#endif
  );
}

int cl_bench_max_threads(void) {
#ifdef _OPENMP
  return omp_get_num_procs();
#else
  return 1;
#endif
}

void cl_bench_set_threads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

const char *cl_bench_data_path(const char *relative) {
  static char path[4096];
  const char *root = getenv("CLEAVE_DATA");
  if (root)
    snprintf(path, sizeof path, "%s/%s", root, relative);
  else
    snprintf(path, sizeof path, "%s/data/%s", CLEAVE_SOURCE_DIR, relative);
  return path;
}
