/* cleave bench shape_matching: Table 1 of Jones, Martin, Levine, Shinar and Bargteil, "Ductile
 * Fracture for Clustered Shape Matching" (I3D 2016), per scene: ms per frame of dynamics,
 * plasticity, fracture and in total, median and 95th percentile over the run (fracture makes frames
 * uneven), the mean of the total beside its median, with 1 and 2 threads. Raw figures only: a ratio
 * to the authors' implementation is only meaningful when both ran in one sitting on the same
 * machine with the same work, which scripts/sm_side_by_side.sh does (issue 17).
 *
 * The scenes are the paper's (parameters from the authors' scene files, one step of 1/60 s per
 * frame), built from their Lua definitions, experiments/scenes/shape_matching/ (bench_scenes.h):
 * the scenes the experiments run, with their defaults; the scenes listed are those with a `bench`
 * entry in their info (`big` for the scenes --quick leaves out).
 * Columns: dynamics = the frame minus plasticity and fracture (shape matching, strain limiting,
 * colliders, proxies, the world's forces and constraints); plasticity = eqs 9-14; fracture = the
 * world's measure + criterion + topology phases (per-cluster F and SVD after the dynamics, the
 * cluster_stretch queue, splitting, propagation, bookkeeping).
 *
 * Options: --frames N (default 240), --quick (60 frames, small scenes only unless --scene names one),
 * --scene NAME, --threads N (run only N threads instead of 1 and 2), --phases (also the median ms of each world
 * phase: forces, solve, measure, criteria, topology, probes), --checksum (a hash of the final
 * positions, to check that a change of speed leaves the results bitwise the same), --trace FILE
 * (every frame's times, pieces and nodes as tab-separated columns, for a plot of where a run spends
 * its time; with 1 and 2 threads both runs are written, a blank line apart).
 *
 * The program re-runs itself with OMP_WAIT_POLICY=passive unless the variable is set: on a machine
 * whose cores are busy with other jobs, threads that spin at OpenMP barriers take the core the
 * working thread needs, and a 2-thread frame then costs ten times a 1-thread one (measured here:
 * the broken heart at 40 ms spinning against 2.3 ms passive, with a load average of 3.8). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_scenes.h"
#include "bench_util.h"
#include "base/timer.h"
#include "cleave/cleave.h"
#include "solvers/shape_matching/shape_matching.h"
#include "world/world.h"

/* Process CPU time, ms (all threads): with 1 thread, the compute time of a frame even when the
 * machine is shared and the wall clock is not. */
static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* The 1-minute load average, or -1 when unknown. */
static double loadavg(void) {
  char *end;
  const char *line = cl_bench_load_line();
  const double l = strtod(line, &end);
  return end == line ? -1.0 : l;
}

static void die(const char *what) {
  fprintf(stderr, "cleave bench shape_matching: %s: %s\n", what, cl_last_error());
  exit(1);
}

#define TRY(expr, what)          \
  do {                           \
    if ((expr) < 0) die(what);   \
  } while (0)

typedef struct frame_times {
  double *total, *dyn, *plast, *frac, *cpu;
  int n;
} frame_times;

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double pct(double *v, int n, double p) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  int i = (int)ceil(p * n) - 1;
  if (i < 0) i = 0;
  if (i >= n) i = n - 1;
  return v[i];
}

static int phases;   /* --phases: also print the median time of each world phase */
static int checksum; /* --checksum: also print a hash of the final positions */
static FILE *trace;  /* --trace FILE: every frame's times */

static void run(cl_bench_scenes *scenes, const cl_bench_scene *sc, int threads, int frames) {
  cl_world *w;
  cl_id b;
  double t0 = cl_time_ms();
  cl_bench_scene_build(scenes, sc->name, threads, &w, &b);
  double bind_ms = cl_time_ms() - t0;
  cl_body *body;
  TRY(cl_world_body(w, b, &body), "body");
  frame_times ft = {malloc(sizeof(double) * (size_t)frames), malloc(sizeof(double) * (size_t)frames),
                    malloc(sizeof(double) * (size_t)frames), malloc(sizeof(double) * (size_t)frames),
                    malloc(sizeof(double) * (size_t)frames), frames};
  double *phase = phases ? malloc(sizeof(double) * CL_PHASE_COUNT * (size_t)frames) : NULL;
  if (phases && !phase) die("out of memory");
  double load0 = loadavg();
  cl_sm_stats st0;
  TRY(cl_shape_matching_stats(body->solver, &st0), "stats");
  if (trace)
    fprintf(trace, "# %s, %d thread(s)\n# frame\ttotal_ms\tdynamics_ms\tplasticity_ms\tfracture_ms\tcpu_ms\tpieces\tnodes\n",
            sc->name, threads);
  for (int f = 0; f < frames; ++f) {
    double c0 = cpu_ms();
    TRY(cl_world_step(w, 1), sc->name);
    ft.cpu[f] = cpu_ms() - c0;
    cl_world_stats ws;
    TRY(cl_world_get_stats(w, &ws), "stats");
    cl_sm_stats st;
    TRY(cl_shape_matching_stats(body->solver, &st), "stats");
    double frac = ws.phase_ms[CL_PHASE_MEASURE] + ws.phase_ms[CL_PHASE_CRITERIA] + ws.phase_ms[CL_PHASE_TOPOLOGY];
    ft.total[f] = ws.step_ms;
    ft.plast[f] = st.plasticity_ms;
    ft.frac[f] = frac;
    ft.dyn[f] = ws.step_ms - st.plasticity_ms - frac;
    if (phases)
      for (int ph = 0; ph < CL_PHASE_COUNT; ++ph) phase[ph * frames + f] = ws.phase_ms[ph];
    if (trace) {
      cl_body_info bi;
      TRY(cl_body_get_info(w, b, &bi), "info");
      fprintf(trace, "%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t%d\n", f + 1, ft.total[f], ft.dyn[f], ft.plast[f],
              ft.frac[f], ft.cpu[f], bi.pieces, bi.nodes);
    }
  }
  if (trace) fprintf(trace, "\n\n");
  cl_sm_stats st;
  TRY(cl_shape_matching_stats(body->solver, &st), "stats");
  cl_body_info info;
  TRY(cl_body_get_info(w, b, &info), "info");
  double med[5], p95[5], mean_total = 0.0;
  double *cols[5] = {ft.dyn, ft.plast, ft.frac, ft.total, ft.cpu};
  for (int f = 0; f < frames; ++f) mean_total += ft.total[f] / frames; /* before pct sorts the column */
  for (int c = 0; c < 5; ++c) {
    med[c] = pct(cols[c], frames, 0.5);
    p95[c] = pct(cols[c], frames, 0.95);
  }
  printf("%-21s %2d %6d %5.2f %7lld %2d | %6.2f %6.2f | %5.2f %5.2f | %6.2f %6.2f | %6.2f %6.2f %6.2f | %6.2f | "
         "%5d %5d %6d %4.0f %4.1f\n",
         sc->name, threads, st0.particles, st0.mean_clusters_per_particle, (long long)st0.memberships,
         sc->iterations, med[0], p95[0], med[1], p95[1], med[2], p95[2], med[3], mean_total, p95[3], med[4],
         st.cluster_pieces, info.pieces, info.nodes, bind_ms, 0.5 * (load0 + loadavg()));
  if (checksum) { /* --checksum: FNV-1a of the final positions' bits (a speed change must not alter them) */
    uint64_t hsh = 1469598103934665603ull;
    const unsigned char *by = (const unsigned char *)body->state.x;
    for (size_t k = 0; k < sizeof(double) * 3 * (size_t)body->state.n; ++k) hsh = (hsh ^ by[k]) * 1099511628211ull;
    printf("  checksum of the final positions: %016llx (%d nodes)\n", (unsigned long long)hsh, body->state.n);
  }
  if (phases) { /* --phases: the world's phases, median ms per frame */
    static const char *names[CL_PHASE_COUNT] = {"forces", "solve", "measure", "criteria", "topology", "probes"};
    printf("  phases (median ms):");
    for (int ph = 0; ph < CL_PHASE_COUNT; ++ph) printf(" %s %.2f", names[ph], pct(phase + ph * frames, frames, 0.5));
    printf("\n");
    free(phase);
  }
  fflush(stdout);
  for (int c = 0; c < 5; ++c) free(cols[c]);
  cl_bench_scene_release(scenes);
}

#define PROG "cleave bench shape_matching"

int main(int argc, char **argv) {
  if (!getenv("OMP_WAIT_POLICY")) {
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv); /* returns only on failure: then go on as we are */
  }
  int frames = 0, quick = 0, only_threads = 0; /* frames 0: 240, or 60 with --quick */
  const char *only = NULL, *trace_path = NULL;
  const cl_bench_opt opts[] = {
      {"--frames", CL_BENCH_INT, &frames, 1, 100000, "N"},
      {"--quick", CL_BENCH_FLAG, &quick, 1, 0, NULL},
      {"--scene", CL_BENCH_TEXT, &only, 0, 0, "NAME"},
      {"--threads", CL_BENCH_INT, &only_threads, 1, 256, "N"},
      {"--phases", CL_BENCH_FLAG, &phases, 1, 0, NULL},
      {"--checksum", CL_BENCH_FLAG, &checksum, 1, 0, NULL},
      {"--trace", CL_BENCH_TEXT, &trace_path, 0, 0, "FILE"},
  };
  if (!cl_bench_parse_options(PROG, opts, (int)(sizeof opts / sizeof opts[0]), argc, argv)) return 2;
  if (!frames) frames = quick ? 60 : 240;
  cl_bench_scenes *scenes = cl_bench_scenes_open(PROG, "shape_matching");
  if (only) { /* a misspelt scene would otherwise print an empty table */
    int known = 0;
    for (int s = 0; s < scenes->count; ++s) known |= !strcmp(only, scenes->list[s].name);
    if (!known) {
      fprintf(stderr, PROG ": --scene %s: no such scene; the scenes are:", only);
      for (int s = 0; s < scenes->count; ++s) fprintf(stderr, " %s", scenes->list[s].name);
      fprintf(stderr, "\n");
      return 2;
    }
  }
  if (trace_path && !(trace = fopen(trace_path, "w"))) { /* after the checks: no empty file on a refusal */
    fprintf(stderr, PROG ": --trace %s: cannot open the file for writing\n", trace_path);
    return 2;
  }
  cl_bench_print_machine();
  printf("OMP_WAIT_POLICY=%s\n", getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "(unset)");
  printf("Table 1 of Jones et al. (I3D 2016) for cleave's shape_matching: ms per frame (1 step of 1/60 s), median "
         "and 95th percentile over %d frames\n", frames);
  printf("memberships = particles x clusters per particle; iters = strain-limiting iterations; pcs = pieces holding "
         "clusters (the authors' count), all = with debris particles\n");
  printf("load = the machine's 1-minute load average during the run (2 cores: above ~1 the second thread waits for a "
         "core at every barrier); cpu = process CPU ms per frame (median)\n");
  printf("%-21s %2s %6s %5s %7s %2s | %13s | %11s | %13s | %20s | %6s | %5s %5s %6s %4s %4s\n", "scene", "th",
         "parts", "cl/p", "members", "it", "dynamics", "plasticity", "fracture", "total", "cpu", "pcs", "all",
         "nodes", "bind", "load");
  printf("%-21s %2s %6s %5s %7s %2s | %6s %6s | %5s %5s | %6s %6s | %6s %6s %6s | %6s | %5s %5s %6s %4s %4s\n", "",
         "", "", "", "", "", "median", "p95", "med", "p95", "median", "p95", "median", "mean", "p95", "median", "", "",
         "", "ms", "");
  for (int s = 0; s < scenes->count; ++s) {
    const cl_bench_scene *sc = &scenes->list[s];
    if (only && strcmp(only, sc->name) != 0) continue;
    if (quick && sc->big && !only) continue; /* a scene named with --scene runs even if big */
    for (int t = 1; t <= 2; ++t) {
      if (only_threads && t != 1) break;
      run(scenes, sc, only_threads ? only_threads : t, frames);
    }
  }
  if (trace) fclose(trace);
  cl_bench_scenes_close(scenes);
  return 0;
}
