/* Structured tet grid of a box (Kuhn subdivision of each cube into 6 tets). */
#include "geom/tet_grid.h"

#include <math.h>

#include "base/error.h"
#include "geom/mesh.h"

cl_status cl_tet_grid(int32_t nx, int32_t ny, int32_t nz, const double lo[3], const double hi[3],
                      cl_mesh **out) {
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_tet_grid: out is NULL");
  *out = NULL;
  if (!lo || !hi) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_tet_grid: lo or hi is NULL");
  if (nx < 1 || ny < 1 || nz < 1)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_tet_grid: cell counts (%d, %d, %d) must be >= 1", nx, ny, nz);
  const int64_t npts = (int64_t)(nx + 1) * (ny + 1) * (nz + 1);
  const int64_t ntets = 6 * (int64_t)nx * ny * nz;
  if (npts > INT32_MAX || 4 * ntets > INT32_MAX)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_tet_grid: %d x %d x %d cells give %lld tets, too many for int32 indices",
                   nx, ny, nz, (long long)ntets);
  for (int a = 0; a < 3; ++a)
    if (!isfinite(lo[a]) || !isfinite(hi[a]) || !(lo[a] < hi[a]))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_tet_grid: axis %d has lo = %g, hi = %g; need finite lo < hi",
                     a, lo[a], hi[a]);
  cl_mesh *m;
  CL_TRY(cl_mesh_alloc(CL_MESH_TETS, (int32_t)npts, (int32_t)ntets, &m));
  const int32_t sx = 1, sy = nx + 1, sz = (nx + 1) * (ny + 1);
  for (int32_t k = 0; k <= nz; ++k)
    for (int32_t j = 0; j <= ny; ++j)
      for (int32_t i = 0; i <= nx; ++i) {
        double *x = m->x + 3 * ((int64_t)i * sx + (int64_t)j * sy + (int64_t)k * sz);
        /* lo + t (hi - lo) with t = i/nx hits hi exactly at i = nx */
        x[0] = i == nx ? hi[0] : lo[0] + (hi[0] - lo[0]) * i / nx;
        x[1] = j == ny ? hi[1] : lo[1] + (hi[1] - lo[1]) * j / ny;
        x[2] = k == nz ? hi[2] : lo[2] + (hi[2] - lo[2]) * k / nz;
      }
  /* The six Kuhn tets of the unit cube are v0, v0+e_a, v0+e_a+e_b, v0+e_x+e_y+e_z for each ordering
   * (a, b, c) of the axes. Their orientation is the sign of the permutation; odd ones get their last
   * two vertices swapped so every tet has positive volume. */
  static const int perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  const int32_t step[3] = {sx, sy, sz};
  int64_t t = 0;
  for (int32_t k = 0; k < nz; ++k)
    for (int32_t j = 0; j < ny; ++j)
      for (int32_t i = 0; i < nx; ++i) {
        const int32_t v0 = i * sx + j * sy + k * sz;
        for (int p = 0; p < 6; ++p) {
          int32_t v1 = v0 + step[perm[p][0]];
          int32_t v2 = v1 + step[perm[p][1]];
          int32_t v3 = v0 + sx + sy + sz;
          int32_t *c = m->cells + 4 * t++;
          c[0] = v0;
          c[1] = v1;
          if (p < 3) { /* even permutations */
            c[2] = v2;
            c[3] = v3;
          } else {
            c[2] = v3;
            c[3] = v2;
          }
        }
      }
  cl_status s = cl_mesh_validate(m, "cl_tet_grid");
  if (s < 0) {
    cl_mesh_destroy(m);
    return s;
  }
  *out = m;
  return CL_OK;
}
