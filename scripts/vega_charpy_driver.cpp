// Vega FEM on cleave's Charpy bar, for scripts/vega_side_by_side.lua (issue 17). Compiled by that
// script against a Vega FEM checkout the user gives; not built or run by cleave's CMake or CI.
//
//   vega_charpy_driver MESH WARMUP STEPS
//
// MESH (written by the script): "nodes tets fixed", then x y z per node, then 4 0-based corners per
// tet, then the fixed node indices. Material E = 1e5 Pa, nu = 0.45, density 1000 kg/m^3 (an "E, nu"
// TetMesh); Vega's corotational linear FEM with warping; lumped mass (each node's share of its tets'
// mass, Vega's computeVertexMasses, on the diagonal); gravity 9.81 m/s^2 along -y as external
// forces m_i g; the fixed nodes' three dofs constrained; implicit backward Euler with one Newton
// iteration per step, dt = 1/60 s, no damping, the integrator's Jacobi-preconditioned CG (built
// with PCG selected; its tolerance is 1e-6, set inside Vega). Prints one line:
//   RESULT nodes N tets N fixed N steps N median_ms X mean_ms Y solve_mean_ms Z assembly_mean_ms W
// over STEPS timed DoTimestep calls after WARMUP untimed ones (wall clock, std::chrono).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "corotationalLinearFEM.h"
#include "corotationalLinearFEMForceModel.h"
#include "generateMassMatrix.h"
#include "implicitBackwardEulerSparse.h"
#include "sparseMatrix.h"
#include "tetMesh.h"

static void die(const char *what) {
  std::fprintf(stderr, "vega_charpy_driver: %s\n", what);
  std::exit(1);
}

int main(int argc, char **argv) {
  if (argc != 4) die("usage: vega_charpy_driver MESH WARMUP STEPS");
  const int warmup = std::atoi(argv[2]), steps = std::atoi(argv[3]);
  if (warmup < 0 || steps < 1) die("WARMUP must be >= 0 and STEPS >= 1");
  FILE *f = std::fopen(argv[1], "r");
  if (!f) die("cannot open the mesh file");
  int n = 0, m = 0, nf = 0;
  if (std::fscanf(f, "%d %d %d", &n, &m, &nf) != 3 || n < 4 || m < 1 || nf < 0) die("bad mesh header");
  std::vector<double> x(3 * (size_t)n);
  std::vector<int> tets(4 * (size_t)m), fixed(nf);
  for (double &v : x)
    if (std::fscanf(f, "%lf", &v) != 1) die("bad node coordinates");
  for (int &v : tets)
    if (std::fscanf(f, "%d", &v) != 1 || v < 0 || v >= n) die("bad tet corners");
  for (int &v : fixed)
    if (std::fscanf(f, "%d", &v) != 1 || v < 0 || v >= n) die("bad fixed node");
  std::fclose(f);

  TetMesh mesh(n, x.data(), m, tets.data(), 1e5, 0.45, 1000.0);
  std::vector<double> mass(n);
  GenerateMassMatrix::computeVertexMasses(&mesh, mass.data(), false);
  SparseMatrixOutline outline(3 * n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) outline.AddEntry(3 * i + k, 3 * i + k, mass[i]);
  SparseMatrix M(&outline);

  CorotationalLinearFEM fem(&mesh);
  CorotationalLinearFEMForceModel model(&fem, 1);

  std::sort(fixed.begin(), fixed.end());
  fixed.erase(std::unique(fixed.begin(), fixed.end()), fixed.end());
  std::vector<int> dofs;
  for (int i : fixed)
    for (int k = 0; k < 3; ++k) dofs.push_back(3 * i + k);

  ImplicitBackwardEulerSparse integrator(3 * n, 1.0 / 60.0, &M, &model, (int)dofs.size(), dofs.data(), 0.0, 0.0, 1,
                                         1e-6, 0);
  std::vector<double> gravity(3 * (size_t)n, 0.0);
  for (int i = 0; i < n; ++i) gravity[3 * (size_t)i + 1] = -9.81 * mass[i];
  integrator.SetExternalForces(gravity.data());

  std::vector<double> t, solve, assembly;
  for (int s = 0; s < warmup + steps; ++s) {
    integrator.SetExternalForces(gravity.data());
    const auto t0 = std::chrono::steady_clock::now();
    integrator.DoTimestep();
    const auto t1 = std::chrono::steady_clock::now();
    if (s < warmup) continue;
    t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    solve.push_back(1e3 * integrator.GetSystemSolveTime());
    assembly.push_back(1e3 * integrator.GetForceAssemblyTime());
  }
  auto mean = [](const std::vector<double> &v) {
    double s = 0.0;
    for (double e : v) s += e;
    return s / (double)v.size();
  };
  std::vector<double> sorted = t;
  std::sort(sorted.begin(), sorted.end());
  const size_t k = sorted.size();
  const double median = k % 2 ? sorted[k / 2] : 0.5 * (sorted[k / 2 - 1] + sorted[k / 2]);
  std::printf("RESULT nodes %d tets %d fixed %d steps %d median_ms %.3f mean_ms %.3f solve_mean_ms %.3f "
              "assembly_mean_ms %.3f\n",
              n, m, (int)fixed.size(), steps, median, mean(t), mean(solve), mean(assembly));
  return 0;
}
