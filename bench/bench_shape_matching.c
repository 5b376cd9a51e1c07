/* cleave bench shape_matching: Table 1 of Jones, Martin, Levine, Shinar and Bargteil, "Ductile
 * Fracture for Clustered Shape Matching" (I3D 2016), per scene: ms per frame of dynamics,
 * plasticity, fracture and in total, median and 95th percentile over the run (fracture makes frames
 * uneven), with 1 and 2 threads, next to the per-frame time of the authors' implementation measured
 * on this machine with the same parameter sets (issue 4).
 *
 * The scenes are the paper's (parameters from the authors' scene files, one step of 1/60 s per
 * frame); the same set-ups are scripted in experiments/shape_matching/scenes.lua: keep them in sync.
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

#include "bench_util.h"
#include "base/timer.h"
#include "cleave/cleave.h"
#include "geom/mesh.h"
#include "solvers/shape_matching/shape_matching.h"
#include "world/world.h"

/* Process CPU time, ms (all threads): with 1 thread, the compute time of a frame even when the
 * machine is shared and the wall clock is not. */
static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static double loadavg(void) {
  double l = -1.0;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1.0;
    fclose(f);
  }
  return l;
}

static void die(const char *what) {
  fprintf(stderr, "cleave bench shape_matching: %s: %s\n", what, cl_last_error());
  exit(1);
}

#define TRY(expr, what)          \
  do {                           \
    if ((expr) < 0) die(what);   \
  } while (0)

/* springDamping f (a fraction per 1/60 s frame) as the solver's rate, 1/s */
static double rate(double f) { return -60.0 * log(1.0 - f); }

typedef struct scene {
  const char *name;
  int particles;
  double radius;
  int clusters;
  double alpha, omega;
  int iterations;
  double gamma, damping_fraction;
  double toughness, boost, falloff; /* toughness < 0: no fracture criterion */
  double yield, flow, hardening;    /* yield < 0: no plasticity; flow in 1/s (the authors' nu per frame x 60) */
  double authors_ms;                /* the authors' implementation on this machine (issue 4) */
  int big;                          /* skipped by --quick */
} scene;

static const scene k_scenes[] = {
    {"twisted_bar", 5317, 0.15, 40, 1.0, 0.3, 8, 0.5, 0.1, -1.0, 0, 0, 0.0, 60.0, 0.005, 14.9, 0},
    {"twisted_bar_fracture", 5317, 0.1875, 50, 1.0, 0.3, 8, 0.5, 0.5, 0.03, 3.0, 0.05, 0.0, 60.0, 0.01, 18.0, 0},
    {"plate_ductile", 5325, 0.1125, 63, 1.0, 0.3, 4, 0.2, 0.6, 0.025, 0, 0, 0.013, 6000.0, 0.02, 11.6, 0},
    {"plate_ductile_20k", 20335, 0.1125, 63, 1.0, 0.3, 4, 0.2, 0.6, 0.025, 0, 0, 0.013, 6000.0, 0.02, 67.9, 1},
    {"plate_brittle_strong", 5325, 0.1125, 63, 1.0, 0.3, 4, 0.2, 0.5, 0.07, 0, 0, -1.0, 0, 0, 11.6, 0},
    {"plate_brittle_weak", 5325, 0.1125, 63, 1.0, 0.3, 4, 0.2, 0.5, 0.001, 0, 0, -1.0, 0, 0, 11.6, 0},
    {"armadillo", 20115, 0.15, 157, 0.6, 0.3, 4, 0.5, 0.2, 0.12, 0, 0, 0.06, 120.0, 0.0, 206.6, 1},
    {"broken_heart", 20132, 0.09, 100, 0.8, 0.3, 4, 0.5, 0.5, 0.12, 0, 0, 0.0, 600.0, 0.05, 22.7, 1},
    {"swiss_cheese", 25032, 0.15, 63, 0.8, 0.3, 4, 0.5, 0.5, 0.1, 0, 0, 0.1, 60.0, 0.0, 66.6, 1},
    {"hollow_ball", 5098, 0.24, 30, 0.3, 0.2, 8, 0.1, 0.18, 0.22, 0, 0, -1.0, 0, 0, 0.0, 0},
};

static cl_mesh *shape(cl_shape_kind kind, double a, double b, double c) {
  cl_shape_def sd;
  cl_shape_def_default(&sd, kind);
  sd.size[0] = a;
  sd.size[1] = b;
  sd.size[2] = c;
  if (kind == CL_SHAPE_HOLLOW_SPHERE) {
    sd.radius = a;
    sd.inner_radius = b;
    sd.subdivisions = 4;
  }
  cl_mesh *m = NULL;
  TRY(cl_shape_build(&sd, &m), "shape");
  return m;
}

/* The Swiss cheese slice: Poisson samples of a 1.6 x 1.0 x 0.15 m slab with 14 spherical holes,
 * as a point set (each particle stands for the slab volume / samples before carving). */
static cl_mesh *cheese(int target, double *spacing) {
  cl_mesh *slab = shape(CL_SHAPE_BOX, 1.6, 1.0, 0.15);
  static const double holes[14][4] = {
      {-0.55, 0.25, 0.0, 0.14},  {-0.2, -0.2, 0.05, 0.12}, {0.3, 0.3, -0.04, 0.15}, {0.55, -0.25, 0.02, 0.11},
      {-0.6, -0.3, -0.05, 0.09}, {0.0, 0.35, 0.06, 0.08},  {0.1, -0.05, -0.07, 0.1}, {-0.35, 0.05, 0.07, 0.07},
      {0.65, 0.15, 0.0, 0.08},   {-0.05, -0.4, 0.0, 0.09}, {0.4, -0.02, 0.07, 0.06}, {-0.7, 0.0, 0.0, 0.06},
      {0.25, -0.35, -0.06, 0.07}, {-0.4, 0.38, -0.06, 0.08}};
  double removed = 0.0;
  for (int h = 0; h < 14; ++h) removed += 4.0 / 3.0 * 3.14159265358979 * pow(holes[h][3], 3); /* upper bound */
  double V = 1.6 * 1.0 * 0.15;
  /* choose the spacing so that about `target` points survive the carving (corrected once) */
  double keep = 1.0 - 0.7 * removed / V;
  cl_sample_def def;
  cl_sample_def_default(&def);
  def.method = CL_SAMPLE_POISSON;
  def.seed = 5;
  cl_mesh *pts = NULL;
  for (int pass = 0; pass < 2; ++pass) {
    def.spacing = cbrt(0.7 * V * keep / target);
    if (pts) cl_mesh_destroy(pts);
    TRY(cl_mesh_sample(slab, &def, &pts), "cheese sampling");
    int before = pts->npoints;
    double c[3 * 14], r[14];
    for (int h = 0; h < 14; ++h) {
      for (int k = 0; k < 3; ++k) c[3 * h + k] = holes[h][k];
      r[h] = holes[h][3];
    }
    TRY(cl_mesh_carve_spheres(pts, c, r, 14), "carving");
    keep *= (double)pts->npoints / target;
    *spacing = cbrt(V / before);
  }
  cl_mesh_destroy(slab);
  return pts;
}

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

static void add_slab_motion(cl_world *w, cl_id b, int axis, double lo, double hi, const cl_motion_def *m) {
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_SLAB);
  r.axis = axis;
  r.lo[0] = lo;
  r.hi[0] = hi;
  cl_id c;
  TRY(cl_world_constrain(w, b, &r, m, &c), "constraint");
}

/* Nodes whose rest position has n . X >= d (the authors' moving planes select by rest position). */
static void add_plane_motion(cl_world *w, cl_id b, const double *n, double d, const cl_motion_def *m) {
  cl_body_state *st = cl_world_body_state(w, b);
  int32_t *idx = malloc(sizeof(int32_t) * (size_t)st->n), cnt = 0;
  double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (int32_t i = 0; i < st->n; ++i) {
    const double *X = st->X + 3 * i;
    if ((X[0] * n[0] + X[1] * n[1] + X[2] * n[2]) / len >= d) idx[cnt++] = i;
  }
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_INDICES);
  r.indices = idx;
  r.count = cnt;
  cl_id c;
  TRY(cl_world_constrain(w, b, &r, m, &c), "plane constraint");
  free(idx);
}

/* Build the scene's world; returns the body. */
static cl_id build(const scene *sc, int threads, cl_world **out) {
  cl_world_def wd;
  cl_world_def_default(&wd);
  wd.dt = 1.0 / 60.0;
  wd.threads = threads;
  wd.seed = 1;
  int cheese_scene = strcmp(sc->name, "swiss_cheese") == 0, ball = strcmp(sc->name, "hollow_ball") == 0;
  wd.gravity[1] = cheese_scene ? -9.81 : ball ? -10.0 : 0.0;
  cl_world *w;
  TRY(cl_world_create(&wd, &w), "world");
  cl_mesh *m = NULL;
  double spacing = 0.0;
  if (strncmp(sc->name, "twisted_bar", 11) == 0) m = shape(CL_SHAPE_BOX, 2.0, 0.4, 0.12);
  else if (strncmp(sc->name, "plate", 5) == 0) m = shape(CL_SHAPE_PLATE, 1.0, 1.0, 0.05);
  else if (strcmp(sc->name, "broken_heart") == 0) m = shape(CL_SHAPE_HEART, 1.0, 0.9, 0.45);
  else if (ball) {
    m = shape(CL_SHAPE_HOLLOW_SPHERE, 0.5, 0.4, 0);
    double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t[3] = {0, 0.4, 0};
    TRY(cl_mesh_transform(m, I, t), "transform");
  } else if (cheese_scene) {
    m = cheese(sc->particles, &spacing);
  } else if (strcmp(sc->name, "armadillo") == 0) {
    TRY(cl_mesh_read(cl_bench_data_path("meshes/armadillo_2500.off"), &m), "armadillo");
    double c[3] = {0, 0, 0};
    TRY(cl_mesh_fit(m, 1.0, c), "fit");
  }
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.name = sc->name;
  bd.solver = "shape_matching";
  bd.material.density = 1000.0;
  if (sc->yield >= 0.0) {
    bd.material.plastic_yield = sc->yield;
    bd.material.plastic_flow = sc->flow;
    bd.material.plastic_hardening = sc->hardening;
  }
  cl_param p[9] = {{"particles", sc->particles}, {"cluster_radius", sc->radius}, {"cluster_count", sc->clusters},
                   {"alpha", sc->alpha},         {"omega", sc->omega},          {"iterations", sc->iterations},
                   {"gamma", sc->gamma},         {"damping", rate(sc->damping_fraction)},
                   {"spacing", spacing}};
  bd.params = p;
  bd.param_count = 9;
  cl_param cp[3] = {{"toughness", sc->toughness}, {"boost", sc->boost}, {"falloff", sc->falloff}};
  if (sc->toughness >= 0.0) {
    bd.criterion = "cluster_stretch";
    bd.criterion_params = cp;
    bd.criterion_param_count = 3;
  }
  cl_id b;
  TRY(cl_world_add_body(w, &bd, m, &b), sc->name);
  cl_mesh_destroy(m);

  cl_motion_def mo;
  if (strncmp(sc->name, "twisted_bar", 11) == 0) {
    /* both ends twisted about x in opposite senses at 0.3 rad/s for 10 s, then released */
    cl_motion_def_default(&mo, CL_MOTION_TWIST);
    mo.axis[0] = 1.0;
    mo.axis[1] = mo.axis[2] = 0.0;
    mo.duration = 10.0;
    mo.release = 10.0;
    mo.rate = 0.3;
    add_slab_motion(w, b, 0, 0.7, 2.0, &mo);
    mo.rate = -0.3;
    add_slab_motion(w, b, 0, -2.0, -0.7, &mo);
  } else if (strncmp(sc->name, "plate", 5) == 0) {
    /* clamped at two edges; a sphere of radius 0.1 m at 0.3 m/s through the middle */
    cl_motion_def_default(&mo, CL_MOTION_FIXED);
    add_slab_motion(w, b, 0, -1.0, -0.45, &mo);
    add_slab_motion(w, b, 0, 0.45, 1.0, &mo);
    cl_collider_def cd;
    cl_collider_def_default(&cd, CL_COLLIDER_SPHERE);
    cd.radius = 0.1;
    cd.center[2] = 0.15;
    cd.velocity[2] = -0.3;
    cl_id col;
    TRY(cl_world_add_collider(w, &cd, &col), "projectile");
  } else if (strcmp(sc->name, "armadillo") == 0) {
    /* arms pulled apart by planes at 0.15 m/s, two cannonballs of radius 0.05 m at 2 m/s */
    cl_motion_def_default(&mo, CL_MOTION_TRANSLATE);
    double n1[3] = {1.0, 0.1, 0.0}, n2[3] = {-1.0, 0.1, 0.0};
    double l = sqrt(1.01);
    for (int k = 0; k < 3; ++k) mo.velocity[k] = 0.15 * n1[k] / l;
    add_plane_motion(w, b, n1, 0.33, &mo);
    for (int k = 0; k < 3; ++k) mo.velocity[k] = 0.15 * n2[k] / l;
    add_plane_motion(w, b, n2, 0.33, &mo);
    cl_collider_def cd;
    cl_collider_def_default(&cd, CL_COLLIDER_SPHERE);
    cd.radius = 0.05;
    cd.center[0] = -0.25;
    cd.center[1] = 0.25;
    cd.center[2] = -1.0;
    cd.velocity[2] = 2.0;
    cl_id col;
    TRY(cl_world_add_collider(w, &cd, &col), "cannonball");
    cd.center[0] = 0.25;
    cd.center[1] = 0.3;
    cd.center[2] = 1.0;
    cd.velocity[2] = -2.0;
    TRY(cl_world_add_collider(w, &cd, &col), "cannonball");
  } else if (strcmp(sc->name, "broken_heart") == 0) {
    cl_motion_def_default(&mo, CL_MOTION_TRANSLATE);
    mo.velocity[0] = 0.1;
    add_slab_motion(w, b, 0, 0.4, 2.0, &mo);
    mo.velocity[0] = -0.1;
    add_slab_motion(w, b, 0, -2.0, -0.4, &mo);
  } else if (cheese_scene) {
    cl_motion_def_default(&mo, CL_MOTION_TRANSLATE);
    mo.velocity[0] = 0.05;
    add_slab_motion(w, b, 0, 0.7, 2.0, &mo);
    mo.velocity[0] = -0.05;
    add_slab_motion(w, b, 0, -2.0, -0.7, &mo);
  } else if (ball) {
    cl_collider_def cd;
    cl_collider_def_default(&cd, CL_COLLIDER_PLANE);
    cd.center[1] = -2.0;
    cd.friction = 0.6;
    cd.restitution = 0.0;
    cl_id col;
    TRY(cl_world_add_collider(w, &cd, &col), "ground");
  }
  *out = w;
  return b;
}

static int phases;   /* --phases: also print the median time of each world phase */
static int checksum; /* --checksum: also print a hash of the final positions */
static FILE *trace;  /* --trace FILE: every frame's times */

static void run(const scene *sc, int threads, int frames) {
  cl_world *w;
  double t0 = cl_time_ms();
  cl_id b = build(sc, threads, &w);
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
  double med[5], p95[5];
  double *cols[5] = {ft.dyn, ft.plast, ft.frac, ft.total, ft.cpu};
  for (int c = 0; c < 5; ++c) {
    med[c] = pct(cols[c], frames, 0.5);
    p95[c] = pct(cols[c], frames, 0.95);
  }
  char ratio[32] = "   -";
  if (sc->authors_ms > 0.0) snprintf(ratio, sizeof ratio, "%5.1fx", sc->authors_ms / med[3]);
  printf("%-21s %2d %6d %5.2f %7lld %2d | %6.2f %6.2f | %5.2f %5.2f | %6.2f %6.2f | %6.2f %6.2f | %6.2f | %6.1f %s | "
         "%5d %6d %4.0f %4.1f\n",
         sc->name, threads, st0.particles, st0.mean_clusters_per_particle, (long long)st0.memberships,
         sc->iterations, med[0], p95[0], med[1], p95[1], med[2], p95[2], med[3], p95[3], med[4], sc->authors_ms,
         ratio, info.pieces, info.nodes, bind_ms, 0.5 * (load0 + loadavg()));
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
  cl_world_destroy(w);
}

#define PROG "cleave bench shape_matching"

int main(int argc, char **argv) {
  if (!getenv("OMP_WAIT_POLICY")) {
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv); /* returns only on failure: then go on as we are */
  }
  int frames = 240, quick = 0, only_threads = 0;
  const char *only = NULL, *trace_path = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) quick = 1, frames = 60;
    else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
      if (!cl_bench_int_option(PROG, argv[i], argv[i + 1], 1, 100000, &frames)) return 2;
      ++i;
    }
    else if (!strcmp(argv[i], "--scene") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      if (!cl_bench_int_option(PROG, argv[i], argv[i + 1], 1, 256, &only_threads)) return 2;
      ++i;
    }
    else if (!strcmp(argv[i], "--phases")) phases = 1;
    else if (!strcmp(argv[i], "--checksum")) checksum = 1;
    else if (!strcmp(argv[i], "--trace") && i + 1 < argc) trace_path = argv[++i];
    else {
      fprintf(stderr, "usage: cleave bench shape_matching [--frames N] [--quick] [--scene NAME] [--threads N] [--phases] [--checksum] [--trace FILE]\n");
      return 2;
    }
  }
  if (only) { /* a misspelt scene would otherwise print an empty table */
    int known = 0;
    for (size_t s = 0; s < sizeof k_scenes / sizeof k_scenes[0]; ++s) known |= !strcmp(only, k_scenes[s].name);
    if (!known) {
      fprintf(stderr, PROG ": --scene %s: no such scene; the scenes are:", only);
      for (size_t s = 0; s < sizeof k_scenes / sizeof k_scenes[0]; ++s) fprintf(stderr, " %s", k_scenes[s].name);
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
  printf("memberships = particles x clusters per particle; iters = strain-limiting iterations; authors = their "
         "implementation on this machine (issue 4); speed-up = authors / our median total\n");
  printf("load = the machine's 1-minute load average during the run (2 cores: above ~1 the second thread waits for a "
         "core at every barrier); cpu = process CPU ms per frame (median)\n");
  printf("%-21s %2s %6s %5s %7s %2s | %13s | %11s | %13s | %13s | %6s | %13s | %5s %6s %4s %4s\n", "scene", "th",
         "parts", "cl/p", "members", "it", "dynamics", "plasticity", "fracture", "total", "cpu", "authors speed",
         "pcs", "nodes", "bind", "load");
  printf("%-21s %2s %6s %5s %7s %2s | %6s %6s | %5s %5s | %6s %6s | %6s %6s | %6s | %6s %6s | %5s %6s %4s %4s\n", "",
         "", "", "", "", "", "median", "p95", "med", "p95", "median", "p95", "median", "p95", "median", "ms", "", "",
         "", "ms", "");
  for (size_t s = 0; s < sizeof k_scenes / sizeof k_scenes[0]; ++s) {
    const scene *sc = &k_scenes[s];
    if (only && strcmp(only, sc->name) != 0) continue;
    if (quick && sc->big && !only) continue; /* a scene named with --scene runs even if big */
    for (int t = 1; t <= 2; ++t) {
      if (only_threads && t != 1) break;
      run(sc, only_threads ? only_threads : t, frames);
    }
  }
  if (trace) fclose(trace);
  return 0;
}
