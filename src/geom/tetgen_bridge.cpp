// The TetGen bridge: the only C++ in cleave. It fills a tetgenio with one triangular facet per
// input triangle, runs tetrahedralize(switches, &in, &out) and copies the result into malloc'd C
// arrays. TetGen, compiled with TETLIBRARY, reports failure by throwing the int code passed to
// terminatetetgen() (tetgen.h); every exception is caught here so nothing escapes into C.
//
// TetGen 1.5.0 (Debian's libtet1.5) has a double free on that path: terminatetetgen() calls
// m->freememory() and throws, then unwinding runs ~tetgenmesh(), which calls freememory() again on
// the same, not-reset pointers, and the process dies in ~memorypool(). (Reported for meshpy, issue
// 21, with the same backtrace.) terminatetetgen is an inline function that libtet.so exports as a
// weak symbol and calls only through its PLT, so the definition below, exported from cleave,
// interposes it: it throws without freeing, and the destructor frees once. The header's own inline
// copy is renamed away so this translation unit holds a single definition. What TetGen allocated
// in plain arrays inside the routine that throws (tens of KB) is still lost; the checks in
// tetrahedralize.c keep TetGen from failing on the inputs we can foresee.
#include "geom/tetgen_bridge.h"

#define terminatetetgen cl_tetgen_header_terminatetetgen
#include <tetgen.h>
#undef terminatetetgen

#include <cstdlib>
#include <cstring>
#include <new>

extern "C" {
#include "base/error.h"
}

// Replaces TetGen's terminatetetgen() (see above): report the code, leave the freeing to
// ~tetgenmesh(). Declared here with external linkage so the dynamic linker binds libtet to it.
void terminatetetgen(tetgenmesh *m, int x);
void terminatetetgen(tetgenmesh *m, int x) {
  (void)m;
  throw x;
}

namespace {

// The meaning of TetGen's exit codes, from terminatetetgen() in tetgen.h 1.5.
cl_status map_tetgen_code(int code) {
  switch (code) {
    case 1:
      return cl_fail(CL_ERR_OUT_OF_MEMORY, "TetGen ran out of memory (code 1)");
    case 2:
      return cl_fail(CL_ERR_EXTERNAL, "TetGen met an internal error (code 2); try other quality or volume bounds");
    case 3:
      return cl_fail(CL_ERR_MESH, "TetGen detected a self-intersection of the surface (code 3)");
    case 4:
      return cl_fail(CL_ERR_MESH,
                     "TetGen detected a very small input feature, below its relative tolerance 1e-8 "
                     "(code 4): nearly touching or nearly coincident parts of the surface");
    case 5:
      return cl_fail(CL_ERR_MESH, "TetGen detected two very close or overlapping facets (code 5)");
    case 10:
      return cl_fail(CL_ERR_MESH, "TetGen rejected the input (code 10): invalid switches or surface");
    default:
      return cl_fail(CL_ERR_EXTERNAL, "TetGen failed with unknown code %d", code);
  }
}

// TetGen's size callback (tetgenio::tetunsuitable, asked by checktet4split during refinement) is a
// plain function pointer without a user pointer, so the sizing of the run in progress is reached
// through a thread-local: one run per thread at a time, which is how TetGen runs anyway.
thread_local const cl_tetgen_sizing *active_sizing = nullptr;

bool tet_unsuitable(REAL *a, REAL *b, REAL *c, REAL *d, REAL *elen, REAL vol) {
  (void)elen;
  (void)vol;
  const cl_tetgen_sizing *s = active_sizing;
  return s && s->too_big(s->ctx, a, b, c, d) != 0;
}

// Clears the thread-local however the run ends (TetGen throws on failure).
struct sizing_scope {
  explicit sizing_scope(const cl_tetgen_sizing *s) { active_sizing = s; }
  ~sizing_scope() { active_sizing = nullptr; }
  sizing_scope(const sizing_scope &) = delete;
  sizing_scope &operator=(const sizing_scope &) = delete;
};

double orient3d_volume(const double *a, const double *b, const double *c, const double *d) {
  double u[3], v[3], w[3];
  for (int k = 0; k < 3; ++k) {
    u[k] = b[k] - a[k];
    v[k] = c[k] - a[k];
    w[k] = d[k] - a[k];
  }
  return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
         u[2] * (v[0] * w[1] - v[1] * w[0]);
}

// Fill `in` (the tetgenio destructor frees with delete[], so everything is allocated with new[]).
void fill_input(tetgenio &in, const double *xyz, int32_t npoints, const int32_t *tris, int32_t ntris,
                const double *holes, int32_t nholes) {
  in.firstnumber = 0;
  in.numberofpoints = npoints;
  in.pointlist = new REAL[3 * (size_t)npoints];
  std::memcpy(in.pointlist, xyz, sizeof(double) * 3 * (size_t)npoints);
  in.numberoffacets = ntris;
  in.facetlist = new tetgenio::facet[(size_t)ntris];
  // Initialise every facet before allocating inside any, so a bad_alloc half-way leaves a state the
  // destructor can free.
  for (int32_t t = 0; t < ntris; ++t) {
    tetgenio::facet *f = &in.facetlist[t];
    tetgenio::init(f);
  }
  for (int32_t t = 0; t < ntris; ++t) {
    tetgenio::facet *f = &in.facetlist[t];
    f->polygonlist = new tetgenio::polygon[1];
    tetgenio::init(&f->polygonlist[0]);
    f->numberofpolygons = 1;
    tetgenio::polygon *p = &f->polygonlist[0];
    p->vertexlist = new int[3];
    p->numberofvertices = 3;
    for (int k = 0; k < 3; ++k) p->vertexlist[k] = tris[3 * (size_t)t + k];
  }
  if (nholes > 0) {
    in.holelist = new REAL[3 * (size_t)nholes];
    std::memcpy(in.holelist, holes, sizeof(double) * 3 * (size_t)nholes);
    in.numberofholes = nholes;
  }
}

}  // namespace

extern "C" cl_status cl_tetgen_run(const double *xyz, int32_t npoints, const int32_t *tris, int32_t ntris,
                                   const double *holes, int32_t nholes, const char *switches,
                                   const cl_tetgen_sizing *sizing, double **xyz_out, int32_t *npoints_out, int32_t **tets_out,
                                   int32_t *ntets_out) {
  if (!xyz_out || !npoints_out || !tets_out || !ntets_out || !switches || !xyz || !tris)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_tetgen_run: NULL argument");
  *xyz_out = NULL;
  *tets_out = NULL;
  *npoints_out = *ntets_out = 0;
  if (npoints < 4 || ntris < 4)
    return cl_fail(CL_ERR_MESH, "TetGen needs a closed surface: %d points and %d triangles are too few", npoints, ntris);
  if (nholes < 0 || (nholes > 0 && !holes))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_tetgen_run: bad hole list (%d holes)", nholes);
  if (sizing && !sizing->too_big)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_tetgen_run: sizing without a too_big function");
  if (!std::strchr(switches, 'z'))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_tetgen_run: switches '%s' lack 'z' (zero-based output)", switches);
  char sw[256];
  if (std::strlen(switches) >= sizeof sw)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_tetgen_run: switch string too long");
  std::strcpy(sw, switches);  // tetrahedralize() takes a non-const char *

  double *pts = NULL;
  int32_t *tets = NULL;
  try {
    tetgenio in, out;
    fill_input(in, xyz, npoints, tris, ntris, holes, nholes);
    sizing_scope scope(sizing);
    if (sizing) in.tetunsuitable = tet_unsuitable;
    tetrahedralize(sw, &in, &out);
    if (out.numberoftetrahedra <= 0 || out.numberofpoints <= 0 || !out.tetrahedronlist || !out.pointlist)
      return cl_fail(CL_ERR_MESH, "TetGen produced no tetrahedra (is the surface closed and non-degenerate?)");
    if (out.numberofcorners != 4)
      return cl_fail(CL_ERR_EXTERNAL, "TetGen returned %d corners per tet, expected 4", out.numberofcorners);
    if (out.firstnumber != 0)
      return cl_fail(CL_ERR_EXTERNAL, "TetGen returned %d-based indices despite 'z'", out.firstnumber);
    size_t np = (size_t)out.numberofpoints, nt = (size_t)out.numberoftetrahedra;
    pts = static_cast<double *>(std::malloc(sizeof(double) * 3 * np));
    tets = static_cast<int32_t *>(std::malloc(sizeof(int32_t) * 4 * nt));
    if (!pts || !tets) {
      std::free(pts);
      std::free(tets);
      return cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory copying the TetGen result (%zu points, %zu tets)", np, nt);
    }
    std::memcpy(pts, out.pointlist, sizeof(double) * 3 * np);
    for (size_t t = 0; t < nt; ++t) {
      int32_t *v = tets + 4 * t;
      for (int k = 0; k < 4; ++k) {
        int idx = out.tetrahedronlist[4 * t + k];
        if (idx < 0 || (size_t)idx >= np) {
          std::free(pts);
          std::free(tets);
          return cl_fail(CL_ERR_EXTERNAL, "TetGen returned tet %zu with point %d outside [0, %zu)", t, idx, np);
        }
        v[k] = idx;
      }
      // TetGen's own convention differs from ours (it orients so that the fourth point sees the
      // first three clockwise); rather than rely on it, fix the sign of every tet explicitly.
      if (orient3d_volume(pts + 3 * v[0], pts + 3 * v[1], pts + 3 * v[2], pts + 3 * v[3]) < 0) {
        int32_t tmp = v[2];
        v[2] = v[3];
        v[3] = tmp;
      }
    }
    *xyz_out = pts;
    *tets_out = tets;
    *npoints_out = (int32_t)np;
    *ntets_out = (int32_t)nt;
    return CL_OK;
  } catch (int code) {
    std::free(pts);
    std::free(tets);
    return map_tetgen_code(code);
  } catch (const std::bad_alloc &) {
    std::free(pts);
    std::free(tets);
    return cl_fail(CL_ERR_OUT_OF_MEMORY, "out of memory inside TetGen (%d points, %d triangles)", npoints, ntris);
  } catch (...) {
    std::free(pts);
    std::free(tets);
    return cl_fail(CL_ERR_EXTERNAL, "TetGen threw an unexpected exception");
  }
}
