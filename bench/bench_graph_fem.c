/* cleave bench graph_fem: frames per second of graph-based FEM with the Galerkin multigrid (issue 13,
 * "Speed"), against the paper's GPU figures (Mandal et al. GRAPP 2025, sec 4.6 and 5: Charpy 28k tets
 * 152.5 fps with "50/all", plain graph-based FEM 4.7 fps; sphere 34.9k tets 118.7 fps; armadillo 160k
 * tets 34.9 fps with "50/1000/all"). One step of dt = 1/60 s per frame. Scenes:
 *
 *   1. charpy: the Charpy specimen at scale 10 (0.55 m; bench_util's mesh, ~28k tets), E = 1e5 Pa,
 *      nu = 0.45, density 1000 kg/m^3, gravity; the 5 % at -x held, the 5 % at +x pulled along +x at
 *      --pull m/s (default 0.05), edge_stress threshold fracture at --strength Pa (default 1e4): edges
 *      break at the notch during the timed steps, so the fracture phase and the coarse rebuild after
 *      breaks are real.
 *   2. sphere: the hanging sphere of the volume-gain study (radius 0.1 m, icosphere 3 subdivisions,
 *      TetGen -pq2.0a4e-7: ~36k tets), E = 1e5 Pa, nu = 0.48, density 1000, the nodes within 1 cm
 *      of the top held, gravity; edge_stress at 1e9 Pa (measured, never reached).
 *   3. armadillo: data/meshes/armadillo_6k.off fitted to 1 m, TetGen -pq2.0 (~148k tets), standing
 *      on its fixed feet (lowest 3 % of the height) under gravity, E = 1e5, nu = 0.45, density 1000,
 *      edge_stress at 1e9 Pa.
 *
 * Configurations per scene (model stable_neohookean unless said):
 *   (every configuration with initial_guess = auto: each step's solve from zero in mode fixed)
 *   mg     galerkin_mg, mg_mode fixed, the grid (charpy, sphere "50/all"; armadillo "50/1000/all"),
 *          mg_cycles V-cycles (1), block Gauss-Seidel 2 + 2 sweeps, CHOLMOD at the coarsest level:
 *          the paper's Algorithm 2, tangent = model (the model's projected dP/dF);
 *   mg-w   the same with tangent = warped (the rotated small-strain stiffness, warped.c);
 *   conv   the converged reference: galerkin_mg as CG preconditioner to 1e-6 (plain graph-based FEM).
 * For each, 1 and 2 OpenMP threads, each in its own process (fork), whose peak resident memory is
 * reported. Figures: ms per frame (median wall and mean wall over the timed steps), fps = 1000 /
 * median, process CPU ms per frame; the phases (median ms): element = forces and stiffness,
 * assembly = A and b, fracture = the world's measure + criterion + topology phases, and inside the
 * solve: the Galerkin products (rebuilding the coarse matrices from A, every step since A changes
 * every step, and separately the median over the steps that follow a step where edges broke), the
 * coarse factorisation, the time at each level in the V-cycles (smoothing and transfers at the fine
 * levels, the coarse solve at the last); the V-cycle convergence factor (residual reduction per
 * cycle, median); CG iterations for conv. Options: --quick (coarse meshes, 3 steps: the smoke test),
 * --steps N (timed, default 15; armadillo half), --threads N (only that count), --only
 * charpy|sphere|armadillo, --config mg|mg-w|conv (only that configuration), --cycles N (mg's V-cycles,
 * default 1), --smoother S (mg_smoother: 1 gauss_seidel, the default, 3 colored_gauss_seidel), --pull V,
 * --strength S. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "base/timer.h"
#include "cleave/cleave.h"
#include "geom/mesh.h"
#include "linalg/linear_solver.h"
#include "linalg/multigrid.h"
#include "solvers/graph_fem/gfem.h"
#include "world/world.h"

#define PROG "cleave bench graph_fem"

/* CHOLMOD's BLAS (OpenBLAS) held at one thread, as in the other benchmarks: its pool competes with
 * OpenMP's for the two cores. Weak, so a BLAS without the function links too. */
void openblas_set_num_threads(int n) __attribute__((weak));

static int g_quick = 0, g_steps = 15, g_threads = 0, g_cycles = 1;
static double g_pull = 0.05, g_strength = 1e4;
static const char *g_only = NULL;
static int g_config = -1; /* --config: only this configuration */
static int g_smoother = 1; /* --smoother: mg_smoother (1 gauss_seidel, 3 colored_gauss_seidel) */

static void die(const char *what) {
  fprintf(stderr, PROG ": %s: %s\n", what, cl_last_error());
  exit(1);
}

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

typedef enum scene_kind { SC_CHARPY, SC_SPHERE, SC_ARMADILLO } scene_kind;
typedef enum config_kind { CF_MG, CF_MG_WARPED, CF_CONVERGED, CF_COUNT } config_kind;
static const char *const k_config_names[CF_COUNT] = {"mg", "mg-w", "conv"};

typedef struct scene {
  scene_kind kind;
  const char *name, *grid;
  cl_mesh *mesh;
  double young, poisson, strength;
  int steps, warmup;
} scene;

static cl_world *build(const scene *sc, config_kind cf, int threads, cl_id *body) {
  cl_world_def wd;
  cl_world_def_default(&wd);
  wd.dt = 1.0 / 60.0;
  wd.threads = threads;
  cl_world *w;
  if (cl_world_create(&wd, &w) < 0) die("world");
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.name = sc->name;
  bd.solver = "graph_fem";
  bd.material.young = sc->young;
  bd.material.poisson = sc->poisson;
  bd.material.density = 1000.0;
  cl_param p[] = {{"linear_solver", 2, NULL},
                  {"grid", 0, sc->grid},
                  {"mg_mode", cf == CF_CONVERGED ? 0 : 1, NULL},
                  {"mg_cycles", g_cycles, NULL},
                  {"mg_smoother", g_smoother, NULL},
                  {"mg_sweeps", 2, NULL},
                  {"mg_coarse", 1, NULL},
                  {"tolerance", 1e-6, NULL},
                  {"max_iterations", 10000, NULL},
                  {"model", 2, NULL},
                  {"tangent", cf == CF_MG_WARPED ? 1 : 0, NULL},
                  {"initial_guess", 0, NULL}}; /* auto: zero for the fixed cycles (graph_fem.md) */
  bd.params = p;
  bd.param_count = (int32_t)(sizeof p / sizeof p[0]);
  cl_param cp[] = {{"strength", sc->strength, NULL}};
  bd.criterion = "edge_stress";
  bd.criterion_params = cp;
  bd.criterion_param_count = 1;
  if (cl_world_add_body(w, &bd, sc->mesh, body) < 0) die("adding the body");
  cl_mesh_info info;
  cl_mesh_get_info(sc->mesh, &info);
  const int axis = sc->kind == SC_CHARPY ? 0 : 1;
  const double ext = info.hi[axis] - info.lo[axis];
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_SLAB);
  r.axis = axis;
  cl_motion_def m;
  cl_motion_def_default(&m, CL_MOTION_FIXED);
  cl_id c;
  if (sc->kind == SC_SPHERE) { /* the top centimetre */
    r.lo[0] = info.hi[1] - 0.01;
    r.hi[0] = info.hi[1] + 1.0;
  } else { /* the low end: the Charpy bar's left 5 %, the armadillo's feet (3 %) */
    r.lo[0] = info.lo[axis] - 1.0;
    r.hi[0] = info.lo[axis] + (sc->kind == SC_CHARPY ? 0.05 : 0.03) * ext;
  }
  if (cl_world_constrain(w, *body, &r, &m, &c) < 0) die("holding");
  if (sc->kind == SC_CHARPY) {
    r.lo[0] = info.hi[0] - 0.05 * ext;
    r.hi[0] = info.hi[0] + 1.0;
    cl_motion_def_default(&m, CL_MOTION_TRANSLATE);
    m.velocity[0] = g_pull;
    if (cl_world_constrain(w, *body, &r, &m, &c) < 0) die("pulling");
  }
  return w;
}

enum { T_WALL, T_CPU, T_ELEM, T_ASM, T_FRAC, T_GAL, T_CFAC, T_FACTOR, T_ITS, T_SOLVE, T_SETUP, T_CYCLES, T_OTHER, T_COUNT };

static double median_of(double *v, int n) { return n > 0 ? cl_bench_median(v, n) : NAN; }

/* Runs in the child: warm-up, timed steps, one line of figures and one of the levels. */
static void run_config(const scene *sc, config_kind cf, int threads) {
  cl_bench_set_threads(threads);
  if (openblas_set_num_threads) openblas_set_num_threads(1);
  cl_id id;
  cl_world *w = build(sc, cf, threads, &id);
  cl_body *b;
  if (cl_world_body(w, id, &b) < 0) die("body");
  const cl_gfem *s = b->solver;
  for (int i = 0; i < sc->warmup; ++i)
    if (cl_world_step(w, 1) < 0) die("warm-up step");
  const int n = sc->steps;
  double *t = calloc((size_t)n * T_COUNT, sizeof(double));
  double *after_break = calloc((size_t)n, sizeof(double));
  double level[CL_MG_MAX_COARSE + 1] = {0}, level0[CL_MG_MAX_COARSE + 1];
  int nbreak = 0, broke_before = 0;
  int64_t events = 0;
  cl_mg_stats st;
  memset(&st, 0, sizeof st);
  for (int i = 0; i < n; ++i) {
    const cl_mg *mg = cl_linear_solver_multigrid(s->ls);
    cl_mg_get_stats(mg, &st);
    for (int32_t l = 0; l < st.levels; ++l) level0[l] = st.level[l].smooth_ms;
    const double t0 = cl_time_ms(), c0 = cpu_ms();
    if (cl_world_step(w, 1) < 0) die("step");
    t[T_WALL * n + i] = cl_time_ms() - t0;
    t[T_CPU * n + i] = cpu_ms() - c0;
    cl_world_stats ws;
    cl_world_get_stats(w, &ws);
    t[T_ELEM * n + i] = s->element_ms;
    t[T_ASM * n + i] = s->assembly_ms;
    t[T_FRAC * n + i] = ws.phase_ms[CL_PHASE_MEASURE] + ws.phase_ms[CL_PHASE_CRITERIA] + ws.phase_ms[CL_PHASE_TOPOLOGY];
    t[T_ITS * n + i] = ws.iterations;
    mg = cl_linear_solver_multigrid(s->ls);
    cl_mg_get_stats(mg, &st);
    t[T_GAL * n + i] = st.galerkin_ms;
    /* the solve (set-up, V-cycles, contact rounds), and what no phase above holds (the update of x
     * and v, the world's own work) */
    t[T_SOLVE * n + i] = s->solve_ms;
    t[T_SETUP * n + i] = st.setup_ms;
    t[T_CYCLES * n + i] = st.solve_ms;
    t[T_OTHER * n + i] = t[T_WALL * n + i] - s->element_ms - s->assembly_ms - s->solve_ms - t[T_FRAC * n + i];
    t[T_CFAC * n + i] = st.coarse_factor_ms;
    t[T_FACTOR * n + i] = st.cycle_factor;
    for (int32_t l = 0; l < st.levels; ++l) level[l] += (st.level[l].smooth_ms - level0[l]) / n;
    /* the coarse matrices of this step were built from an A with the edges the last step broke */
    if (broke_before) after_break[nbreak++] = st.galerkin_ms;
    broke_before = ws.fracture_events > 0;
    events += ws.fracture_events;
  }
  double mean = 0.0, cpu_mean = 0.0;
  for (int i = 0; i < n; ++i) {
    mean += t[i] / n;
    cpu_mean += t[T_CPU * n + i] / n;
  }
  const double wall = median_of(t, n);
  cl_body_info info;
  cl_body_get_info(w, id, &info);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("  %-9s %-4s %2d %8.1f %8.1f %6.1f %8.1f %8.1f | %7.1f %7.1f %7.2f | %7.2f %7.2f %7.2f | %6.3f %5.0f | %5lld %3d | %6.0f\n",
         sc->name, k_config_names[cf], threads, wall, mean, 1000.0 / wall, median_of(t + T_CPU * n, n), cpu_mean,
         median_of(t + T_ELEM * n, n), median_of(t + T_ASM * n, n), median_of(t + T_FRAC * n, n),
         median_of(t + T_GAL * n, n), nbreak ? median_of(after_break, nbreak) : NAN, median_of(t + T_CFAC * n, n),
         median_of(t + T_FACTOR * n, n), median_of(t + T_ITS * n, n), (long long)events, info.pieces,
         (double)ru.ru_maxrss / 1024.0);
  printf("  %-9s %-4s %2d   ms per frame at each level in the V-cycles:", "", "", threads);
  for (int32_t l = 0; l < st.levels; ++l)
    printf(" L%d (%d %s) %.2f%s", l, l ? st.level[l].handles : st.level[l].nodes, l ? "handles" : "nodes", level[l],
           l + 1 == st.levels ? " (coarse solve)" : "");
  printf("; coarse factorisations %lld, coarse CG iterations %lld over %lld V-cycles; colours of L0's multicolour "
         "order %d\n", (long long)st.coarse_factorizations, (long long)st.coarse_iterations, (long long)st.cycles,
         st.level[0].colors);
  printf("  %-9s %-4s %2d   median ms per frame: solve %.2f (multigrid set-up %.2f, V-cycles %.2f), other %.2f "
         "(the wall less element, assembly, solve and fracture)\n", "", "", threads, median_of(t + T_SOLVE * n, n),
         median_of(t + T_SETUP * n, n), median_of(t + T_CYCLES * n, n), median_of(t + T_OTHER * n, n));
  fflush(stdout);
  free(t);
  free(after_break);
  cl_world_destroy(w);
}

/* Each configuration in its own process: its peak memory is its own, and a crash names it. */
static void run_forked(const scene *sc, config_kind cf, int threads) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    run_config(sc, cf, threads);
    exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, PROG ": %s %s with %d threads failed (status %d)\n", sc->name, k_config_names[cf], threads,
            status);
    exit(1);
  }
}

static void bench_scene(scene *sc) {
  printf("\n%s: %d nodes, %d tets; E = %g Pa, nu = %g, density 1000 kg/m^3, dt = 1/60 s, grid \"%s\", "
         "edge_stress %g Pa; %d warm-up + %d timed steps\n", sc->name, sc->mesh->npoints, sc->mesh->ncells, sc->young,
         sc->poisson, sc->grid, sc->strength, sc->warmup, sc->steps);
  printf("  %-9s %-4s %2s %8s %8s %6s %8s %8s | %7s %7s %7s | %7s %7s %7s | %6s %5s | %5s %3s | %6s\n", "scene", "cfg",
         "th", "ms/frame", "mean", "fps", "CPU ms", "CPU mean", "element", "assembl", "fractur", "Galerk", "G.break", "c.fact",
         "factor", "its", "broke", "pcs", "MiB");
  int lo = 1, hi = cl_bench_max_threads() >= 2 ? 2 : 1;
  if (g_threads > 0) lo = hi = g_threads;
  for (int cf = 0; cf < CF_COUNT; ++cf)
    if (g_config < 0 || g_config == cf)
      for (int th = lo; th <= hi; ++th) run_forked(sc, (config_kind)cf, th);
}

static cl_mesh *sphere_mesh(void) {
  cl_shape_def sd;
  cl_shape_def_default(&sd, CL_SHAPE_ICOSPHERE);
  sd.radius = 0.1;
  sd.subdivisions = g_quick ? 2 : 3;
  cl_mesh *surf = NULL, *mesh = NULL;
  if (cl_shape_build(&sd, &surf) < 0) die("building the sphere");
  cl_tetgen_def td;
  cl_tetgen_def_default(&td);
  td.max_radius_edge = 2.0;
  td.max_volume = g_quick ? 2e-5 : 4e-7;
  if (cl_mesh_tetrahedralize(surf, &td, &mesh) < 0) die("TetGen");
  cl_mesh_destroy(surf);
  printf("  mesh: icosphere radius 0.1 m, %d subdivisions, TetGen -pq2.0a%g: %d nodes, %d tets\n", sd.subdivisions,
         td.max_volume, mesh->npoints, mesh->ncells);
  return mesh;
}

static int wanted(const char *name) { return !g_only || strcmp(g_only, name) == 0; }

int main(int argc, char **argv) {
  const char *config = NULL;
  const cl_bench_opt opts[] = {
      {"--quick", CL_BENCH_FLAG, &g_quick, 1, 0, NULL},
      {"--steps", CL_BENCH_INT, &g_steps, 3, 100000, "N"},
      {"--threads", CL_BENCH_INT, &g_threads, 1, 256, "N"},
      {"--cycles", CL_BENCH_INT, &g_cycles, 1, 1000, "N"},
      {"--smoother", CL_BENCH_INT, &g_smoother, 0, 3, "0-3"},
      {"--pull", CL_BENCH_NUM, &g_pull, 0.0, 100.0, "V"},
      {"--strength", CL_BENCH_NUM, &g_strength, 1.0, 1e12, "S"},
      {"--only", CL_BENCH_CHOICE, &g_only, 0, 0, "charpy|sphere|armadillo"},
      {"--config", CL_BENCH_CHOICE, &config, 0, 0, "mg|mg-w|conv"},
  };
  if (!cl_bench_parse_options(PROG, opts, (int)(sizeof opts / sizeof opts[0]), argc, argv)) return 2;
  for (int c = 0; config && c < CF_COUNT; ++c)
    if (strcmp(config, k_config_names[c]) == 0) g_config = c;
  if (g_quick) g_steps = 3;
  printf(PROG " (cleave %s, git %s%s)\n", cl_version(), cl_git_revision(),
         g_quick ? ", --quick: reduced sizes, not for the record" : "");
  cl_bench_print_machine();
  const char *load = cl_bench_load_line();
  printf("load average at start: %s\n", load);
  static const char *const smoothers[] = {"block Jacobi", "block Gauss-Seidel", "symmetric block Gauss-Seidel",
                                          "multicolour block Gauss-Seidel"};
  printf("one step of 1/60 s per frame; model stable_neohookean; mg = galerkin_mg fixed %d V-cycle(s), %s "
         "2+2 sweeps, CHOLMOD coarse (kept by rent or buy), tangent model; mg-w = the same with tangent warped; conv = "
         "galerkin_mg-preconditioned CG to 1e-6. ms/frame = median wall, mean = mean wall, CPU ms = process CPU "
         "(threads summed, median; CPU mean = its mean), phases = median wall ms; Galerk = the Galerkin products of the coarse matrices per step, "
         "G.break = the same on the steps after edges broke, c.fact = coarse factorisation, factor = V-cycle "
         "convergence factor, its = V-cycles or CG iterations, broke = edges broken over the timed steps, pcs = "
         "pieces at the end, MiB = peak resident memory of the configuration's process\n", g_cycles,
         smoothers[g_smoother]);
  if (wanted("charpy")) {
    scene sc = {SC_CHARPY, "charpy", "50/all", NULL, 1e5, 0.45, g_strength, g_steps, 3};
    sc.mesh = cl_bench_charpy_tets(g_quick ? 2000.0 : 10400.0);
    if (!sc.mesh) die("meshing the Charpy specimen");
    bench_scene(&sc);
    cl_mesh_destroy(sc.mesh);
  }
  if (wanted("sphere")) {
    scene sc = {SC_SPHERE, "sphere", "50/all", NULL, 1e5, 0.48, 1e9, g_steps, 3};
    sc.mesh = sphere_mesh();
    bench_scene(&sc);
    cl_mesh_destroy(sc.mesh);
  }
  if (wanted("armadillo")) {
    scene sc = {SC_ARMADILLO, "armadillo", g_quick ? "50/all" : "50/1000/all", NULL, 1e5, 0.45, 1e9,
                g_quick ? 3 : (g_steps + 1) / 2, 2};
    sc.mesh = cl_bench_armadillo_tets(g_quick);
    if (!sc.mesh) die("meshing the armadillo");
    bench_scene(&sc);
    cl_mesh_destroy(sc.mesh);
  }
  return 0;
}
