#include "bench_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/timer.h"
#include "cleave/mesh.h"
#include "geom/mesh.h"
#include <math.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The value of option `opt` as a number in [lo, hi] (an integer when asked): 1 with *out set, or 0
 * after the message on stderr. */
static int parse_option(const char *prog, const char *opt, const char *text, double lo, double hi, int integer,
                        double *out) {
  char *end = NULL;
  errno = 0;
  const double v = strtod(text, &end);
  const int ok = end != text && *end == '\0' && errno != ERANGE && isfinite(v) && (!integer || v == floor(v));
  if (!ok) {
    fprintf(stderr, "%s: %s %s: not %s (allowed: %g..%g)\n", prog, opt, text,
            integer ? "an integer" : "a finite number", lo, hi);
    return 0;
  }
  if (v < lo || v > hi) {
    fprintf(stderr, "%s: %s %s: outside the allowed range %g..%g\n", prog, opt, text, lo, hi);
    return 0;
  }
  *out = v;
  return 1;
}

static void print_usage(const char *prog, const cl_bench_opt *opts, int n_opts) {
  fprintf(stderr, "usage: %s", prog);
  for (int k = 0; k < n_opts; ++k) {
    if (opts[k].kind == CL_BENCH_FLAG) fprintf(stderr, " [%s]", opts[k].name);
    else fprintf(stderr, " [%s %s]", opts[k].name, opts[k].arg);
  }
  fprintf(stderr, "\n");
}

/* Whether `text` is one of the '|'-separated words of `choices`. */
static int is_choice(const char *text, const char *choices) {
  const size_t n = strlen(text);
  for (const char *c = choices; *c;) {
    const char *bar = strchr(c, '|');
    const size_t len = bar ? (size_t)(bar - c) : strlen(c);
    if (len == n && strncmp(c, text, n) == 0) return 1;
    if (!bar) break;
    c = bar + 1;
  }
  return 0;
}

int cl_bench_parse_options(const char *prog, const cl_bench_opt *opts, int n_opts, int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    const cl_bench_opt *o = NULL;
    for (int k = 0; k < n_opts && !o; ++k)
      if (strcmp(argv[i], opts[k].name) == 0) o = &opts[k];
    if (!o || (o->kind != CL_BENCH_FLAG && i + 1 >= argc)) {
      print_usage(prog, opts, n_opts);
      return 0;
    }
    if (o->kind == CL_BENCH_FLAG) {
      *(int *)o->out = (int)o->lo;
      continue;
    }
    const char *text = argv[++i];
    double v;
    switch (o->kind) {
    case CL_BENCH_INT:
      if (!parse_option(prog, o->name, text, o->lo, o->hi, 1, &v)) return 0;
      *(int *)o->out = (int)v;
      break;
    case CL_BENCH_NUM:
      if (!parse_option(prog, o->name, text, o->lo, o->hi, 0, (double *)o->out)) return 0;
      break;
    case CL_BENCH_CHOICE:
      if (!is_choice(text, o->arg)) {
        fprintf(stderr, "%s: %s %s: not one of %s\n", prog, o->name, text, o->arg);
        return 0;
      }
      *(const char **)o->out = text;
      break;
    default: *(const char **)o->out = text; break;
    }
  }
  return 1;
}

double cl_bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof v[0], cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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
  return cl_bench_median(t, runs);
}

/* Mean edge length of a mesh of near-regular tets of total volume V: V / n = a^3 / (6 sqrt 2). */
static double mean_edge(double volume, int32_t ntets) { return cbrt(6.0 * sqrt(2.0) * volume / ntets); }

cl_mesh *cl_bench_charpy_tets(double divisor) {
  cl_shape_def sd;
  cl_shape_def_default(&sd, CL_SHAPE_CHARPY);
  sd.scale = 10.0;
  cl_mesh *surf = NULL, *mesh = NULL;
  if (cl_shape_build(&sd, &surf) < 0) return NULL;
  cl_mesh_info info;
  cl_mesh_get_info(surf, &info);
  cl_tetgen_def td;
  cl_tetgen_def_default(&td);
  td.max_radius_edge = 2.0;
  td.max_volume = info.measure / divisor; /* TetGen's -a bound is approximate: 10400 lands near 28k */
  cl_status s = cl_mesh_tetrahedralize(surf, &td, &mesh);
  cl_mesh_destroy(surf);
  if (s < 0) return NULL;
  printf("  mesh: Charpy specimen at scale 10 (%.3g m long), TetGen -pq2.0a%.3g (volume / %.0f): "
         "%d nodes, %d tets, mean edge %.3g m\n",
         info.hi[0] - info.lo[0], td.max_volume, divisor, mesh->npoints, mesh->ncells,
         mean_edge(info.measure, mesh->ncells));
  return mesh;
}

cl_mesh *cl_bench_armadillo_tets(int quick) {
  const char *path = cl_bench_data_path(quick ? "meshes/armadillo_2500.off" : "meshes/armadillo_6k.off");
  cl_mesh *surf = NULL, *tets = NULL;
  if (cl_mesh_read(path, &surf) < 0) return NULL;
  const double centre[3] = {0, 0, 0};
  cl_tetgen_def def;
  cl_tetgen_def_default(&def);
  def.max_radius_edge = 2.0;
  double t0 = cl_time_ms();
  cl_status s = cl_mesh_fit(surf, 1.0, centre);
  if (s >= 0) s = cl_mesh_tetrahedralize(surf, &def, &tets);
  cl_mesh_destroy(surf);
  if (s < 0) return NULL;
  cl_mesh_info info;
  cl_mesh_get_info(tets, &info);
  printf("  mesh: %s fitted to 1 m, TetGen -pq2.0: %d nodes, %d tets, mean edge %.3g m (%.0f ms)\n", path,
         tets->npoints, tets->ncells, mean_edge(info.measure, tets->ncells), cl_time_ms() - t0);
  return tets;
}

const char *cl_bench_load_line(void) {
  static char line[128];
  snprintf(line, sizeof line, "unknown");
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (!fgets(line, sizeof line, f)) snprintf(line, sizeof line, "unknown");
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
  }
  return line;
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
