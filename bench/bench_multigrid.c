/* cleave bench multigrid: the linear-solver table's entries on the systems of backward Euler (issue 13,
 * "Measure"): A = M + dt^2 K (lumped mass, linear elastic tets, dt = 1/60 s), b = dt M g (the first
 * step from rest under gravity), some nodes held (x = 0 there), solved to a relative residual of 1e-6:
 *
 *   1. the Charpy specimen (ISO 148-1, 55 mm, scale 1) meshed by TetGen -pq2.0 with max_volume 5e-10
 *      m^3 (~28k tets), steel: E = 2e11 Pa, nu = 0.3, density 7850 kg/m^3; the nodes within 1 mm of
 *      either end held;
 *   2. a sphere of radius 0.1 m (icosphere, 3 subdivisions) meshed by TetGen -pq2.0a4e-7 (~36k tets),
 *      rubber-like: E = 1e5 Pa, nu = 0.48, density 1000 kg/m^3; the nodes within 1 cm of the top held
 *      (the hanging sphere of the volume-gain study).
 *
 * For each: "pcg" (block-Jacobi CG), "cholmod" (a fresh factor per set-up: analysis once, then
 * factorisation + solve), and "galerkin_mg" in mode pcg and in mode fixed (V-cycles until 1e-6, at
 * most 2000) for the grid specs 50/all, 200/all and 50/1000/all, with the defaults otherwise (block
 * Gauss-Seidel 2 + 2 sweeps, CHOLMOD at the coarsest level); then the coarse solver and smoother
 * variants for 50/all. Reported: the analysis (once per pattern), the set-up (per matrix: the
 * Galerkin products = the rebuild of the coarse matrices after A changed, and the coarse factor), the
 * solve, iterations (CG iterations or V-cycles), the residual reached, and the measured convergence
 * factor per V-cycle (mode fixed) or per PCG iteration. Every time is the median of --runs runs (wall
 * clock; CPU time of the process beside it, which on a shared machine is the better measure with one
 * thread). Options: --quick (coarse meshes, one run: a smoke test), --runs N (default 5), --threads N
 * (OpenMP threads, default all), --only charpy|sphere. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "base/timer.h"
#include "cleave/cleave.h"
#include "geom/mesh.h"
#include "linalg/bsr.h"
#include "linalg/linear_solver.h"
#include "linalg/multigrid.h"
#include "support/elastic_assembly.h"

/* CHOLMOD's BLAS (OpenBLAS) is held at one thread, as in bench_corotational.c: its pool competes with
 * OpenMP's for the two cores. Weak, so a BLAS without the function links too. */
void openblas_set_num_threads(int n) __attribute__((weak));

static int g_quick = 0, g_runs = 0, g_threads = 0; /* runs 0: 5, or 1 with --quick */
static const char *g_only = NULL;

static void die(const char *what) {
  fprintf(stderr, "cleave bench multigrid: %s: %s\n", what, cl_last_error());
  exit(1);
}

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

typedef struct problem {
  const char *name;
  cl_mesh *mesh;
  cl_bsr *A;
  int64_t *slots;
  uint8_t *fixed;
  double *b, *x;
  int64_t n3;
  int32_t held;
} problem;

/* A = M + dt^2 K scaled by 1/dt^2 (K + rho/dt^2 M_unit): the same relative residuals. b = dt M g scaled
 * alike: rho/dt g V/4 per node of each tet, in -z. */
static void assemble(problem *p, double young, double nu, double rho) {
  const double dt = 1.0 / 60.0;
  if (cl_test_elastic_system(p->mesh, young, nu, rho / (dt * dt), &p->A, &p->slots) < 0) die("assembling");
  p->n3 = 3 * (int64_t)p->mesh->npoints;
  p->b = calloc((size_t)p->n3, sizeof(double));
  p->x = calloc((size_t)p->n3, sizeof(double));
  for (int32_t t = 0; t < p->mesh->ncells; ++t) {
    const int32_t *c = p->mesh->cells + 4 * (int64_t)t;
    double x[12], g[12];
    for (int a = 0; a < 4; ++a)
      for (int k = 0; k < 3; ++k) x[3 * a + k] = p->mesh->x[3 * (int64_t)c[a] + k];
    const double vol = fabs(cl_test_tet_gradients(x, g));
    for (int a = 0; a < 4; ++a) p->b[3 * (int64_t)c[a] + 2] -= rho / dt * 9.81 * vol / 4.0;
  }
  for (int64_t d = 0; d < p->n3; ++d)
    if (p->fixed[d]) p->b[d] = 0.0;
}

static cl_mesh *tetrahedralize(const cl_shape_def *sd, double max_volume) {
  cl_mesh *surf = NULL, *mesh = NULL;
  if (cl_shape_build(sd, &surf) < 0) die("building the shape");
  cl_tetgen_def td;
  cl_tetgen_def_default(&td);
  td.max_radius_edge = 2.0;
  td.max_volume = max_volume;
  if (cl_mesh_tetrahedralize(surf, &td, &mesh) < 0) die("TetGen");
  cl_mesh_destroy(surf);
  return mesh;
}

/* Hold the nodes within `lo` of the bounding box's low side along `axis`, and within `hi` of its high
 * side (a negative distance: none). */
static void hold(problem *p, int axis, double lo, double hi) {
  cl_mesh_info info;
  cl_mesh_get_info(p->mesh, &info);
  p->fixed = calloc(3 * (size_t)p->mesh->npoints, 1);
  for (int32_t i = 0; i < p->mesh->npoints; ++i) {
    const double x = p->mesh->x[3 * (int64_t)i + axis];
    if ((lo >= 0.0 && x < info.lo[axis] + lo) || (hi >= 0.0 && x > info.hi[axis] - hi)) {
      memset(p->fixed + 3 * (int64_t)i, 1, 3);
      p->held++;
    }
  }
}

static void charpy(problem *p) {
  cl_shape_def sd;
  cl_shape_def_default(&sd, CL_SHAPE_CHARPY);
  sd.scale = 1.0;
  const double maxv = g_quick ? 5e-9 : 5e-10;
  p->name = "Charpy";
  p->mesh = tetrahedralize(&sd, maxv);
  hold(p, 0, 1e-3, 1e-3);
  printf("Charpy specimen (55 mm, TetGen -pq2.0a%.3g): %d nodes, %d tets, %d nodes held (1 mm at each end); "
         "steel E = 2e11 Pa, nu = 0.3, density 7850\n", maxv, p->mesh->npoints, p->mesh->ncells, p->held);
  assemble(p, 2e11, 0.3, 7850.0);
}

static void sphere(problem *p) {
  cl_shape_def sd;
  cl_shape_def_default(&sd, CL_SHAPE_ICOSPHERE);
  sd.radius = 0.1;
  sd.subdivisions = g_quick ? 2 : 3;
  const double maxv = g_quick ? 2e-6 : 4e-7;
  p->name = "sphere";
  p->mesh = tetrahedralize(&sd, maxv);
  hold(p, 2, -1.0, 0.01);
  printf("sphere (radius 0.1 m, TetGen -pq2.0a%.3g): %d nodes, %d tets, %d nodes held (1 cm at the top); "
         "E = 1e5 Pa, nu = 0.48, density 1000\n", maxv, p->mesh->npoints, p->mesh->ncells, p->held);
  assemble(p, 1e5, 0.48, 1000.0);
}

static void problem_free(problem *p) {
  free(p->b);
  free(p->x);
  free(p->fixed);
  free(p->slots);
  cl_bsr_destroy(p->A);
  cl_mesh_destroy(p->mesh);
}

typedef struct method {
  const char *entry, *label, *grid;
  int mode, smoother, sweeps, coarse;
} method;

static double median(double *v, int n) { return cl_bench_median(v, n); }

static void run(problem *p, const method *m) {
  cl_linear_solver_def def;
  cl_linear_solver_def_default(&def);
  def.rel_tol = 1e-6;
  def.max_iter = 20000;
  def.threads = g_threads;
  def.reuse_factor = 0;
  if (m->grid) snprintf(def.mg_grid, sizeof def.mg_grid, "%s", m->grid);
  def.mg_positions = p->mesh->x;
  def.mg_position_count = p->mesh->npoints;
  def.mg_mode = m->mode;
  def.mg_cycles = 2000;
  if (m->smoother >= 0) def.mg_smoother = m->smoother;
  if (m->sweeps > 0) def.mg_pre_sweeps = def.mg_post_sweeps = m->sweeps;
  if (m->coarse >= 0) def.mg_coarse_solver = m->coarse;
  cl_linear_solver *ls = NULL;
  if (cl_linear_solver_create(m->entry, &def, &ls) < 0) die(m->label);
  double t0 = cl_time_ms();
  if (cl_linear_solver_analyse(ls, p->A) < 0) die(m->label);
  const double analyse = cl_time_ms() - t0;
  double setup[64], setup_cpu[64], solve[64], solve_cpu[64], gal[64], coarse[64];
  cl_linear_result res;
  memset(&res, 0, sizeof res);
  cl_mg_stats st;
  memset(&st, 0, sizeof st);
  double level_ms[CL_MG_MAX_COARSE + 1] = {0};
  for (int r = 0; r < g_runs; ++r) {
    memset(p->x, 0, sizeof(double) * (size_t)p->n3);
    cl_mg_get_stats(cl_linear_solver_multigrid(ls), &st);
    for (int32_t l = 0; l < st.levels; ++l) level_ms[l] = -st.level[l].smooth_ms;
    double c0 = cpu_ms();
    t0 = cl_time_ms();
    if (cl_linear_solver_setup(ls, p->A, p->fixed) != CL_OK) die(m->label);
    setup[r] = cl_time_ms() - t0;
    setup_cpu[r] = cpu_ms() - c0;
    c0 = cpu_ms();
    t0 = cl_time_ms();
    cl_status s = cl_linear_solver_solve(ls, p->b, p->x, p->fixed, &res);
    solve[r] = cl_time_ms() - t0;
    solve_cpu[r] = cpu_ms() - c0;
    if (s < 0) die(m->label);
    const cl_mg *mg = cl_linear_solver_multigrid(ls);
    cl_mg_get_stats(mg, &st);
    for (int32_t l = 0; l < st.levels; ++l) level_ms[l] += st.level[l].smooth_ms; /* the last run's */
    gal[r] = st.galerkin_ms;
    coarse[r] = st.coarse_factor_ms;
  }
  const double su = median(setup, g_runs), so = median(solve, g_runs);
  printf("  %-28s analyse %7.1f  set-up %7.2f (cpu %7.2f)  solve %8.2f (cpu %8.2f)  total %8.2f ms  %5d its  "
         "residual %.1e", m->label, analyse, su, median(setup_cpu, g_runs), so, median(solve_cpu, g_runs), su + so,
         res.iterations, res.rel_residual);
  if (st.levels > 0)
    printf("  factor %.3f  Galerkin %.2f coarse factor %.2f ms", st.cycle_factor, median(gal, g_runs),
           median(coarse, g_runs));
  printf("\n");
  if (st.levels > 0 && m->coarse < 0 && m->mode == CL_MG_MODE_PCG && m->smoother < 0) {
    printf("  %-28s levels:", "");
    for (int32_t l = 0; l < st.levels; ++l)
      printf(" %d: %d %s (%lld blocks, %d degenerate)%s", l, l ? st.level[l].handles : st.level[l].nodes,
             l ? "handles" : "nodes", (long long)st.level[l].blocks, st.level[l].degenerate,
             l + 1 < st.levels ? "," : "\n");
  }
  if (st.levels > 0) {
    printf("  %-28s time in the last solve per level (smoothing and transfers; the coarse solve last):", "");
    for (int32_t l = 0; l < st.levels; ++l) printf(" %.2f", level_ms[l]);
    printf(" ms\n");
  }
  cl_linear_solver_destroy(ls);
}

static void bench_problem(problem *p) {
  static const method k_methods[] = {
      {"pcg", "pcg (block Jacobi)", NULL, 0, -1, 0, -1},
      {"cholmod", "cholmod (fresh factor)", NULL, 0, -1, 0, -1},
      {"galerkin_mg", "mg pcg 50/all", "50/all", CL_MG_MODE_PCG, -1, 0, -1},
      {"galerkin_mg", "mg pcg 200/all", "200/all", CL_MG_MODE_PCG, -1, 0, -1},
      {"galerkin_mg", "mg pcg 50/1000/all", "50/1000/all", CL_MG_MODE_PCG, -1, 0, -1},
      {"galerkin_mg", "mg fixed 50/all", "50/all", CL_MG_MODE_FIXED, -1, 0, -1},
      {"galerkin_mg", "mg fixed 200/all", "200/all", CL_MG_MODE_FIXED, -1, 0, -1},
      {"galerkin_mg", "mg fixed 50/1000/all", "50/1000/all", CL_MG_MODE_FIXED, -1, 0, -1},
      {"galerkin_mg", "mg pcg 50/all coarse cg20", "50/all", CL_MG_MODE_PCG, -1, 0, CL_MG_COARSE_CG},
      {"galerkin_mg", "mg pcg 50/all coarse dense", "50/all", CL_MG_MODE_PCG, -1, 0, CL_MG_COARSE_DENSE},
      {"galerkin_mg", "mg pcg 50/all jacobi 2", "50/all", CL_MG_MODE_PCG, CL_MG_SMOOTH_JACOBI, 2, -1},
      {"galerkin_mg", "mg pcg 50/all sym GS 1", "50/all", CL_MG_MODE_PCG, CL_MG_SMOOTH_SYMMETRIC_GS, 1, -1},
      {"galerkin_mg", "mg pcg 50/all GS 1", "50/all", CL_MG_MODE_PCG, CL_MG_SMOOTH_GAUSS_SEIDEL, 1, -1},
      {"galerkin_mg", "mg pcg 50/all GS 3", "50/all", CL_MG_MODE_PCG, CL_MG_SMOOTH_GAUSS_SEIDEL, 3, -1},
  };
  for (size_t k = 0; k < sizeof k_methods / sizeof k_methods[0]; ++k) run(p, &k_methods[k]);
}

int main(int argc, char **argv) {
  const cl_bench_opt opts[] = {
      {"--quick", CL_BENCH_FLAG, &g_quick, 1, 0, NULL},
      {"--runs", CL_BENCH_INT, &g_runs, 1, 64, "N"},
      {"--threads", CL_BENCH_INT, &g_threads, 1, 256, "N"},
      {"--only", CL_BENCH_CHOICE, &g_only, 0, 0, "charpy|sphere"},
  };
  if (!cl_bench_parse_options("cleave bench multigrid", opts, (int)(sizeof opts / sizeof opts[0]), argc, argv)) return 2;
  if (!g_runs) g_runs = g_quick ? 1 : 5;
  if (g_threads > 0) cl_bench_set_threads(g_threads);
  else g_threads = cl_bench_max_threads();
  if (openblas_set_num_threads) openblas_set_num_threads(1);
  printf("cleave bench multigrid  (cleave %s, git %s%s)\n", cl_version(), cl_git_revision(),
         g_quick ? ", --quick: reduced sizes, not for the record" : "");
  cl_bench_print_machine();
  const char *load = cl_bench_load_line();
  printf("load average at start: %s; %d OpenMP threads; median of %d runs; times in ms\n", load, g_threads, g_runs);
  printf("A = M + dt^2 K (dt = 1/60 s), b = dt M g, held nodes x = 0, every solve to relative residual 1e-6 "
         "from x = 0\n");
  if (!g_only || strcmp(g_only, "charpy") == 0) {
    problem p;
    memset(&p, 0, sizeof p);
    charpy(&p);
    bench_problem(&p);
    problem_free(&p);
  }
  if (!g_only || strcmp(g_only, "sphere") == 0) {
    problem p;
    memset(&p, 0, sizeof p);
    sphere(&p);
    bench_problem(&p);
    problem_free(&p);
  }
  return 0;
}
