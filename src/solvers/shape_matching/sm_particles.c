/* Particles of a shape-matching body (paper sec 3.1, "Sampling Geometry"):
 *  - a closed triangle surface is sampled inside, by Bridson's Poisson disk (default, the paper's
 *    choice) or a grid; every sample gets the same mass, density x enclosed volume / count, so the
 *    body weighs exactly what its surface encloses. With spacing = 0 the spacing is chosen for the
 *    'particles' target (a maximal Poisson set of radius r holds about 0.7 V / r^3 points, a grid
 *    V / h^3) and corrected once from the first count, which lands within a few per cent;
 *  - a point set is used as given, each point standing for spacing^3 of material (or, with
 *    spacing = 0, the cube of the mean nearest-neighbour distance, which is the step of a grid);
 *  - a tet mesh gives its nodes as particles with lumped masses density x volume / 4 per tet
 *    (so the conformance suite's tet boxes work unchanged). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/hash_grid.h"
#include "geom/mesh.h"
#include "geom/morton.h"
#include "geom/tet.h"
#include "solvers/shape_matching/sm_internal.h"

static cl_status fill_state(cl_body_state *st, const double *xyz, int32_t n) {
  CL_TRY(cl_body_state_resize(st, n));
  memcpy(st->X, xyz, sizeof(double) * 3 * (size_t)n);
  memcpy(st->x, xyz, sizeof(double) * 3 * (size_t)n);
  memset(st->v, 0, sizeof(double) * 3 * (size_t)n);
  for (int32_t i = 0; i < n; ++i) st->origin[i] = i;
  return CL_OK;
}

/* Sampled particles in Z-order (geom/morton.h): neighbours in space get nearby indices, so the
 * per-cluster and per-particle loops of a step touch memory that is already cached (sampled bodies
 * only: a user's point set keeps its numbering). */
static cl_status morton_sort(double *xyz, int32_t n) {
  int32_t *order = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
  double *tmp = malloc(sizeof(double) * 3 * (size_t)(n > 0 ? n : 1));
  cl_status r = order && tmp ? cl_morton_order(xyz, n, order)
                             : cl_fail(CL_ERR_OUT_OF_MEMORY, "solver 'shape_matching': out of memory ordering %d "
                                                             "particles", n);
  if (r >= 0) {
    for (int32_t j = 0; j < n; ++j) memcpy(tmp + 3 * j, xyz + 3 * order[j], 3 * sizeof(double));
    memcpy(xyz, tmp, sizeof(double) * 3 * (size_t)n);
  }
  free(order);
  free(tmp);
  return r;
}

static cl_status from_surface(cl_sm *s, const cl_mesh *mesh, cl_body_state *st, double *body_volume) {
  cl_status c = cl_mesh_check_closed(mesh);
  if (c < 0)
    return cl_fail_context(c, "solver 'shape_matching' samples particles inside a closed surface, and this one "
                              "is not closed: ");
  cl_mesh_info info;
  CL_TRY(cl_mesh_get_info(mesh, &info));
  double V = info.measure;
  if (!(V > 0.0))
    return cl_fail(CL_ERR_MESH, "solver 'shape_matching': the surface encloses volume %g m^3 (inside out?)", V);
  cl_sample_def def;
  cl_sample_def_default(&def);
  def.method = (cl_sampling)s->p.sampling;
  def.seed = s->seed;
  int automatic = !(s->p.spacing > 0.0);
  double target = (double)s->p.particles;
  double packing = s->p.sampling == CL_SAMPLE_POISSON ? 0.7 : 1.0;
  def.spacing = automatic ? cbrt(packing * V / target) : s->p.spacing;
  cl_mesh *pts = NULL;
  CL_TRY(cl_mesh_sample(mesh, &def, &pts));
  if (automatic && fabs((double)pts->npoints - target) > 0.02 * target) {
    /* one correction: the count scales like spacing^-3 */
    def.spacing *= cbrt((double)pts->npoints / target);
    cl_mesh_destroy(pts);
    pts = NULL;
    CL_TRY(cl_mesh_sample(mesh, &def, &pts));
  }
  int32_t n = pts->npoints;
  cl_status r = morton_sort(pts->x, n);
  if (r >= 0) r = fill_state(st, pts->x, n);
  cl_mesh_destroy(pts);
  CL_TRY(r);
  double m = s->density * V / n;
  for (int32_t i = 0; i < n; ++i) st->m[i] = m;
  s->stats.spacing = def.spacing;
  s->stats.particle_volume = V / n;
  *body_volume = V;
  return CL_OK;
}

typedef struct nn_ctx {
  int32_t self;
  double best;
} nn_ctx;

static int nn_visit(void *ctx, int32_t id, double d2) {
  nn_ctx *c = ctx;
  if (id != c->self && d2 < c->best) c->best = d2;
  return 0;
}

static cl_status from_points(cl_sm *s, const cl_mesh *mesh, cl_body_state *st, double *body_volume) {
  int32_t n = mesh->npoints;
  if (n < 4)
    return cl_fail(CL_ERR_MESH, "solver 'shape_matching': a point set needs at least 4 points (a cluster needs 4), "
                                "got %d", n);
  double h = s->p.spacing;
  if (!(h > 0.0)) {
    /* mean nearest-neighbour distance, searched in a grid of cell ~ the mean spacing of the box */
    cl_mesh_info info;
    CL_TRY(cl_mesh_get_info(mesh, &info));
    double box = 1.0;
    int dims = 0;
    for (int k = 0; k < 3; ++k) {
      double e = info.hi[k] - info.lo[k];
      if (e > 0.0) {
        box *= e;
        ++dims;
      }
    }
    double cell = dims ? pow(box / n, 1.0 / dims) : 1.0;
    if (!(cell > 0.0) || !isfinite(cell))
      return cl_fail(CL_ERR_MESH, "solver 'shape_matching': the point set has no extent; give 'spacing'");
    cl_hash_grid g = {0};
    CL_TRY(cl_hash_grid_build(&g, mesh->x, n, cell));
    double sum = 0.0;
    int32_t found = 0;
    for (int32_t i = 0; i < n; ++i) {
      nn_ctx c = {i, INFINITY};
      for (double r = cell; r < 1e3 * cell && !(c.best < INFINITY); r *= 2.0)
        cl_hash_grid_visit(&g, mesh->x + 3 * i, r, nn_visit, &c);
      if (c.best < INFINITY && c.best > 0.0) {
        sum += sqrt(c.best);
        ++found;
      }
    }
    cl_hash_grid_free(&g);
    if (found == 0)
      return cl_fail(CL_ERR_MESH, "solver 'shape_matching': the points coincide; give 'spacing'");
    h = sum / found;
  }
  CL_TRY(fill_state(st, mesh->x, n));
  double vol = h * h * h;
  for (int32_t i = 0; i < n; ++i) st->m[i] = s->density * vol;
  s->stats.spacing = h;
  s->stats.particle_volume = vol;
  *body_volume = vol * n;
  return CL_OK;
}

static cl_status from_tets(cl_sm *s, const cl_mesh *mesh, cl_body_state *st, double *body_volume) {
  int32_t n = mesh->npoints;
  CL_TRY(fill_state(st, mesh->x, n));
  for (int32_t i = 0; i < n; ++i) st->m[i] = 0.0;
  double V = 0.0;
  for (int32_t t = 0; t < mesh->ncells; ++t) {
    const int32_t *c = mesh->cells + 4 * t;
    const double vol = cl_tet_volume(mesh->x + 3 * c[0], mesh->x + 3 * c[1], mesh->x + 3 * c[2], mesh->x + 3 * c[3]);
    V += vol;
    for (int k = 0; k < 4; ++k) st->m[c[k]] += s->density * vol / 4.0;
  }
  for (int32_t i = 0; i < n; ++i)
    if (!(st->m[i] > 0.0))
      return cl_fail(CL_ERR_MESH, "solver 'shape_matching': node %d of the tet mesh is in no tet (it would have "
                                  "no mass)", i);
  if (n < 4) return cl_fail(CL_ERR_MESH, "solver 'shape_matching': a tet mesh with %d nodes (4 needed)", n);
  s->stats.spacing = 0.0;
  s->stats.particle_volume = V / n;
  *body_volume = V;
  return CL_OK;
}

cl_status cl_sm_make_particles(cl_sm *s, const cl_bind_input *in, cl_body_state *st, double *body_volume) {
  const cl_mesh *mesh = in->mesh;
  if (!mesh) return cl_fail(CL_ERR_INVALID_ARGUMENT, "solver 'shape_matching': no mesh given");
  s->seed = in->seed;
  cl_status r;
  switch (mesh->kind) {
    case CL_MESH_TRIANGLES: r = from_surface(s, mesh, st, body_volume); break;
    case CL_MESH_POINTS: r = from_points(s, mesh, st, body_volume); break;
    case CL_MESH_TETS: r = from_tets(s, mesh, st, body_volume); break;
    default: r = cl_fail(CL_ERR_MESH, "solver 'shape_matching': unknown mesh kind %d", (int)mesh->kind);
  }
  st->cell_size = 2;
  s->stats.sampled_particles = st->n;
  return r;
}
