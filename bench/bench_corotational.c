/* cleave bench corotational: ms per step of the corotational solver (issue 3, "Speed").
 *
 *   1. The Charpy specimen at scale 10 (0.55 m), TetGen -pq2.0 with max_volume = volume / 10400
 *      (~28k tets; TetGen's -a bound is loose, volume / 21000 gives ~49k), E = 1e5 Pa, nu = 0.45, density 1000 kg/m^3, dt = 1/60 s, CG to 1e-6, supported
 *      at both ends and sagging under gravity: PCG (block Jacobi) and CHOLMOD (factor reused as CG
 *      preconditioner), or with --solver 2 CG preconditioned by the Galerkin multigrid (--grid), 1 and 2 threads, with the phase breakdown of the thesis's Fig. 5 (stiffness:
 *      rotations, strains and element forces; dynamics assembly: A and b; solve; fracture criterion).
 *   2. The cost of each fracture criterion in ns per element and per node (measure + evaluate, with a
 *      toughness no element reaches so that nothing breaks), next to the thesis's FLOP estimates.
 *   3. The armadillo (data/meshes/armadillo_6k.off fitted to 1 m, TetGen -pq2.0, ~148k tets) standing
 *      on its fixed feet under gravity, same material and settings.
 * Every figure is the median over the timed steps (after warm-up steps). Options: --quick (coarse
 * meshes, few steps: a smoke test), --steps N (timed steps, default 15), --threads N (only that
 * thread count; default 1 and 2), --no-armadillo, --solver 0|1|2 (only PCG, CHOLMOD or the Galerkin
 * multigrid; default PCG and CHOLMOD), --refactor-iterations N (CHOLMOD: 0 = a fresh factor every step),
 * --grid SPEC (the multigrid's grid spec, default "50/all"), --mg-sweeps N (its Gauss-Seidel sweeps before
 * and after the coarse correction, default 2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "base/timer.h"
#include "cleave/cleave.h"
#include "fracture/criterion.h"
#include "geom/mesh.h"
#include "solvers/corotational/corot.h"
#include "world/world.h"

/* OpenBLAS (the BLAS CHOLMOD's supernodal factor runs on here) keeps its own thread pool, which
 * competes with OpenMP's for the same two cores, and its threaded triangular solves were slower than
 * one thread in every configuration measured here (memory-bound kernels): it is held at one thread,
 * and "threads" below are the OpenMP threads of cleave's own loops. Weak, so the benchmark also
 * links against a BLAS without this function. */
void openblas_set_num_threads(int n) __attribute__((weak));

static void set_threads(int n) {
  cl_bench_set_threads(n);
  if (openblas_set_num_threads) openblas_set_num_threads(1);
}

static int g_quick = 0;
static int g_steps = 15;
static int g_criteria = 1;
static int g_threads = 0; /* 0: 1 and 2 */
static double g_warm = 1.0; /* solver parameter warm_start */
static int g_solver = -1;  /* -1: PCG and CHOLMOD; 0 PCG; 1 CHOLMOD; 2 the Galerkin multigrid */
static double g_fsolve = 2.0; /* solver parameter factor_solve */
static int g_refactor = 30; /* solver parameter refactor_iterations (0: a fresh factor every step) */
static const char *g_grid = "50/all"; /* solver parameter grid (galerkin_mg) */
static int g_sweeps = 2; /* solver parameter mg_sweeps (galerkin_mg) */
static const char *const k_solver_names[] = {"PCG", "CHOLMOD", "MG"};

static void die(const char *what) {
  fprintf(stderr, "cleave bench corotational: %s: %s\n", what, cl_last_error());
  exit(1);
}

/* CPU time of the whole process, ms: on a machine shared with other jobs this is what a step costs
 * (with one thread it is close to the wall time of an idle machine). */
static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

typedef struct run_result {
  double cpu_ms;            /* process CPU time per step (median) */
  double cpu_mean_ms;       /* process CPU time per step (mean, with the refactorisations) */
  double mean_ms;           /* mean wall time per step: with the factorisations the median skips */
  double step_ms, element_ms, assembly_ms, solve_ms, update_ms;
  double iterations;        /* mean CG iterations per step */
  int64_t factorizations;   /* over the timed steps */
  double residual;          /* largest relative residual */
  cl_cholmod_stats chol;    /* of the largest island, when CHOLMOD ran */
  int has_chol;
  double mg_setup_ms, mg_galerkin_ms, mg_coarse_ms; /* median per step, largest island, when galerkin_mg ran */
  double mg_analyse_ms, mg_factor;
  int mg_levels, has_mg;
} run_result;

/* A world with the mesh as one corotational body; `axis`/`frac`: fix the nodes within frac of the
 * extent at the low end of axis (and also the high end when both_ends). */
static cl_world *make_scene(const cl_mesh *mesh, int threads, int solver, int axis, double frac, int both_ends,
                            const char *criterion, double toughness, cl_id *body) {
  cl_world_def wd;
  cl_world_def_default(&wd);
  wd.dt = 1.0 / 60.0;
  wd.threads = threads;
  cl_world *w;
  if (cl_world_create(&wd, &w) < 0) die("world");
  cl_body_def bd;
  cl_body_def_default(&bd);
  bd.name = "bench";
  bd.solver = "corotational";
  bd.material.young = 1e5;
  bd.material.poisson = 0.45;
  bd.material.density = 1000.0;
  if (criterion && strcmp(criterion, "plastic_excess") == 0) {
    /* the excess exists only with a capped plasticity; this one yields little under its own weight */
    bd.material.plastic_yield = 0.02;
    bd.material.plastic_flow = 10.0;
    bd.material.plastic_max = 0.1;
  }
  cl_param p[] = {{"linear_solver", solver, NULL},  {"tolerance", 1e-6, NULL},
                  {"warm_start", g_warm, NULL},     {"factor_solve", g_fsolve, NULL},
                  {"refactor_iterations", g_refactor, NULL}, {"grid", 0.0, g_grid}, {"mg_sweeps", g_sweeps, NULL}};
  bd.params = p;
  bd.param_count = 7;
  cl_param cp[] = {{"toughness", toughness, NULL}};
  if (criterion) {
    bd.criterion = criterion;
    bd.criterion_params = cp;
    bd.criterion_param_count = 1;
  }
  if (cl_world_add_body(w, &bd, mesh, body) < 0) die("adding the body");
  cl_mesh_info info;
  cl_mesh_get_info(mesh, &info);
  double ext = info.hi[axis] - info.lo[axis];
  cl_region_def r;
  cl_region_def_default(&r, CL_REGION_SLAB);
  r.axis = axis;
  r.lo[0] = info.lo[axis] - 1.0;
  r.hi[0] = info.lo[axis] + frac * ext;
  cl_motion_def m;
  cl_motion_def_default(&m, CL_MOTION_FIXED);
  cl_id c;
  if (cl_world_constrain(w, *body, &r, &m, &c) < 0) die("fixing");
  if (both_ends) {
    r.lo[0] = info.hi[axis] - frac * ext;
    r.hi[0] = info.hi[axis] + 1.0;
    if (cl_world_constrain(w, *body, &r, &m, &c) < 0) die("fixing");
  }
  return w;
}

static run_result time_steps(cl_world *w, cl_id body, int warmup, int steps) {
  cl_body *b;
  if (cl_world_body(w, body, &b) < 0) die("body");
  for (int i = 0; i < warmup; ++i)
    if (cl_world_step(w, 1) < 0) die("warm-up step");
  double *t = calloc((size_t)steps * 9, sizeof(double));
  run_result r;
  memset(&r, 0, sizeof r);
  for (int i = 0; i < steps; ++i) {
    double t0 = cl_time_ms(), c0 = cpu_ms();
    if (cl_world_step(w, 1) < 0) die("step");
    t[i] = cl_time_ms() - t0;
    t[5 * steps + i] = cpu_ms() - c0;
    cl_corot_timing tm;
    cl_corot_get_timing(b->solver, &tm);
    t[steps + i] = tm.element_ms;
    t[2 * steps + i] = tm.assembly_ms;
    t[3 * steps + i] = tm.solve_ms;
    t[4 * steps + i] = tm.update_ms;
    r.iterations += tm.iterations;
    r.factorizations += tm.factorizations;
    const cl_corot *sv = b->solver;
    const cl_mg *mg = NULL;
    int32_t biggest = 0;
    for (int32_t k = 0; k < sv->nislands; ++k)
      if (cl_linear_solver_multigrid(sv->islands[k].ls) && sv->islands[k].nnodes > biggest) {
        mg = cl_linear_solver_multigrid(sv->islands[k].ls);
        biggest = sv->islands[k].nnodes;
      }
    if (mg) {
      cl_mg_stats ms;
      cl_mg_get_stats(mg, &ms);
      t[6 * steps + i] = ms.setup_ms;
      t[7 * steps + i] = ms.galerkin_ms;
      t[8 * steps + i] = ms.coarse_factor_ms;
      r.mg_analyse_ms = ms.analyse_ms;
      r.mg_levels = ms.levels;
      r.mg_factor = ms.cycle_factor;
      r.has_mg = 1;
    }
    if (tm.residual > r.residual) r.residual = tm.residual;
  }
  r.iterations /= steps;
  const cl_corot *s = b->solver;
  for (int32_t k = 0; k < s->nislands; ++k)
    if (cl_linear_solver_cholmod(s->islands[k].ls) && (!r.has_chol || s->islands[k].nnodes > r.chol.n / 3)) {
      cl_cholmod_get_stats(cl_linear_solver_cholmod(s->islands[k].ls), &r.chol);
      r.has_chol = 1;
    }
  for (int i = 0; i < steps; ++i) {
    r.mean_ms += t[i] / steps;
    r.cpu_mean_ms += t[5 * steps + i] / steps;
  }
  r.step_ms = cl_bench_median(t, steps);
  r.element_ms = cl_bench_median(t + steps, steps);
  r.assembly_ms = cl_bench_median(t + 2 * steps, steps);
  r.solve_ms = cl_bench_median(t + 3 * steps, steps);
  r.update_ms = cl_bench_median(t + 4 * steps, steps);
  r.cpu_ms = cl_bench_median(t + 5 * steps, steps);
  r.mg_setup_ms = cl_bench_median(t + 6 * steps, steps);
  r.mg_galerkin_ms = cl_bench_median(t + 7 * steps, steps);
  r.mg_coarse_ms = cl_bench_median(t + 8 * steps, steps);
  free(t);
  return r;
}

static void print_header(void) {
  printf("  %-8s %-7s %9s %9s %9s %9s | %9s %9s %9s %9s | %7s %8s %9s\n", "solver", "threads", "ms/step", "mean", "CPU ms",
         "CPU mean", "stiffness",
         "assembly", "solve", "update", "CG it", "factors", "residual");
}

static void print_row(const char *solver, int threads, const run_result *r) {
  printf("  %-8s %-7d %9.2f %9.2f %9.2f %9.2f | %9.2f %9.2f %9.2f %9.2f | %7.1f %8lld %9.2g\n", solver, threads,
         r->step_ms, r->mean_ms, r->cpu_ms, r->cpu_mean_ms,
         r->element_ms, r->assembly_ms, r->solve_ms, r->update_ms, r->iterations, (long long)r->factorizations,
         r->residual);
}

static void bench_mesh(const cl_mesh *mesh, int axis, double frac, int both, int warmup, int steps) {
  print_header();
  int maxt = cl_bench_max_threads() >= 2 ? 2 : 1, mint = 1;
  if (g_threads > 0) mint = maxt = g_threads;
  for (int solver = 0; solver <= 2; ++solver)
    if ((g_solver < 0 && solver < 2) || g_solver == solver)
    for (int threads = mint; threads <= maxt; ++threads) {
      set_threads(threads);
      cl_id body;
      cl_world *w = make_scene(mesh, threads, solver, axis, frac, both, NULL, 0.0, &body);
      run_result r = time_steps(w, body, warmup, steps);
      print_row(k_solver_names[solver], threads, &r);
      if (r.has_chol)
        printf("  %-8s %-7s CHOLMOD: n = %lld, nnz(L) = %.3g, %s, last analyse %.1f ms, factorize %.1f ms "
               "(%.3g flop), solve %.2f ms\n", "", "", (long long)r.chol.n, r.chol.nnz_l,
               r.chol.supernodal ? "supernodal" : "simplicial", r.chol.analyse_ms, r.chol.factorize_ms,
               r.chol.flops, r.chol.solve_ms);
      if (r.has_mg)
        printf("  %-8s %-7s multigrid \"%s\": %d levels, analysis %.1f ms (once per island pattern), set-up per step "
               "%.2f ms (Galerkin products %.2f, coarse factor %.2f), last CG factor per iteration %.3f\n", "", "",
               g_grid, r.mg_levels, r.mg_analyse_ms, r.mg_setup_ms, r.mg_galerkin_ms, r.mg_coarse_ms, r.mg_factor);
      cl_world_destroy(w);
    }
}

/* ns per element and per node of measure + evaluate for each registered criterion that takes
 * a "toughness", on the Charpy scene with nothing breaking. */
static void bench_criteria(const cl_mesh *mesh, int steps) {
  static const struct {
    const char *name;
    int flops_elem, flops_node; /* thesis sec 5.7.1 */
  } k_criteria[] = {{"separation_tensor", 531, 303}, {"plastic_excess", 48, 51}};
  printf("fracture criteria on the same scene, 1 thread (measure = the solver's per-tet F and stress; "
         "evaluate = the criterion; median over %d steps):\n", steps);
  printf("  %-18s %10s %10s %12s %12s %14s   %s\n", "criterion", "measure ms", "eval ms", "eval ns/elem",
         "eval ns/node", "ns/(elem+node)", "thesis FLOPs per element / node");
  set_threads(1);
  for (size_t k = 0; k < sizeof k_criteria / sizeof k_criteria[0]; ++k) {
    const cl_criterion_ops *ops;
    if (cl_criterion_find(k_criteria[k].name, &ops) < 0) {
      printf("  %-18s (not registered in this build)\n", k_criteria[k].name);
      continue;
    }
    cl_id body;
    cl_world *w = make_scene(mesh, 1, 0, 0, 0.05, 1, k_criteria[k].name, 1e30, &body);
    if (cl_world_step(w, 2) < 0) die("warm-up step");
    double *tm = calloc((size_t)steps * 2, sizeof(double));
    for (int i = 0; i < steps; ++i) {
      if (cl_world_step(w, 1) < 0) die("step");
      cl_world_stats st;
      cl_world_get_stats(w, &st);
      tm[i] = st.phase_ms[CL_PHASE_MEASURE];
      tm[steps + i] = st.phase_ms[CL_PHASE_CRITERIA];
    }
    double me = cl_bench_median(tm, steps), ev = cl_bench_median(tm + steps, steps);
    cl_body_info info;
    cl_body_get_info(w, body, &info);
    /* the criterion's loops run over elements, then nodes: its time divided by each count (the
     * measure is the solver's, shared by every criterion, and is left out) */
    printf("  %-18s %10.3f %10.3f %12.1f %12.1f %14.1f   %d / %d\n", k_criteria[k].name, me, ev,
           1e6 * ev / info.units, 1e6 * ev / info.nodes, 1e6 * ev / (info.units + info.nodes),
           k_criteria[k].flops_elem, k_criteria[k].flops_node);
    free(tm);
    cl_world_destroy(w);
  }
}

#define PROG "cleave bench corotational"

int main(int argc, char **argv) {
  int armadillo = 1;
  const cl_bench_opt opts[] = {
      {"--quick", CL_BENCH_FLAG, &g_quick, 1, 0, NULL},
      {"--steps", CL_BENCH_INT, &g_steps, 3, 100000, "N"},
      {"--threads", CL_BENCH_INT, &g_threads, 1, 256, "N"},
      {"--no-armadillo", CL_BENCH_FLAG, &armadillo, 0, 0, NULL},
      {"--no-criteria", CL_BENCH_FLAG, &g_criteria, 0, 0, NULL},
      {"--solver", CL_BENCH_INT, &g_solver, 0, 2, "0|1|2"},
      {"--warm-start", CL_BENCH_NUM, &g_warm, 0.0, 1.0, "0..1"},
      {"--factor-solve", CL_BENCH_NUM, &g_fsolve, 0.0, 2.0, "0|1|2"},
      {"--refactor-iterations", CL_BENCH_INT, &g_refactor, 0, 1000000, "N"},
      {"--grid", CL_BENCH_TEXT, &g_grid, 0, 0, "SPEC"},
      {"--mg-sweeps", CL_BENCH_INT, &g_sweeps, 1, 1000, "N"},
  };
  if (!cl_bench_parse_options(PROG, opts, (int)(sizeof opts / sizeof opts[0]), argc, argv)) return 2;
  if (g_quick) g_steps = 3;
  printf("cleave bench corotational (cleave %s, git %s)\n", cl_version(), cl_git_revision());
  cl_bench_print_machine();
  printf("settings: E = 1e5 Pa, nu = 0.45, density 1000 kg/m^3, dt = 1/60 s, gravity 9.81 m/s^2, CG relative "
         "tolerance 1e-6 (block-Jacobi PCG, or the CHOLMOD factor of an earlier step, warped by the node rotations, as "
         "preconditioner, refactored by the rent-or-buy rule, applied by the solver parameter factor_solve = %g: 0 "
         "CHOLMOD's solve, 1 cleave's sweeps in double, 2 in single precision; refactor_iterations = %d), or CG "
         "preconditioned by one V-cycle of the Galerkin multigrid (grid \"%s\", block Gauss-Seidel %d + %d, CHOLMOD "
         "at the coarsest level, coarse levels kept across steps by the same rent-or-buy rule and refactor_iterations);"
         " ms/step = median wall time, mean = "
         "mean wall time (with the steps that refactor), CPU ms / CPU mean = median / mean process CPU time (both "
         "threads summed), over %d "
         "timed steps after 3 warm-up steps; the phases are median wall times\n", g_fsolve, g_refactor, g_grid, g_sweeps, g_sweeps,
         g_steps);
  printf("load: %s\n", cl_bench_load_line());

  printf("\n1. Charpy specimen, both ends fixed (5%% of the length each), sagging under gravity:\n");
  cl_mesh *charpy = cl_bench_charpy_tets(g_quick ? 2000.0 : 10400.0);
  if (!charpy) die("meshing the Charpy specimen");
  bench_mesh(charpy, 0, 0.05, 1, 3, g_steps);
  printf("  (stiffness = rotations, strains, plasticity and element forces; assembly = gather of "
         "A = M(1 + dt alpha) + (dt^2 + dt beta) K and b; update = positions, colliders, reactions)\n");

  if (g_criteria) {
    printf("\n2. ");
    bench_criteria(charpy, g_steps);
  }
  cl_mesh_destroy(charpy);

  if (armadillo) {
    printf("\n3. Armadillo standing on its fixed feet (lowest 3%% of the height) under gravity:\n");
    cl_mesh *arm = cl_bench_armadillo_tets(g_quick);
    if (!arm) die("meshing the armadillo");
    bench_mesh(arm, 1, 0.03, 0, 2, g_quick ? 3 : 7);
    cl_mesh_destroy(arm);
  }
  return 0;
}
