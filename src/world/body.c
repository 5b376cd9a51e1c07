/* Bodies: creation and binding of the solver and criterion, the world-owned per-node and per-unit
 * arrays, and the derived quantities the world computes without knowing the solver (surface,
 * pieces, volume, kinetic energy). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "geom/boundary.h"
#include "geom/components.h"
#include "geom/mesh.h"
#include "geom/tet.h"
#include "world/world.h"

void cl_body_set_label(cl_body *b) {
  /* the name the user gave; an id means nothing to a user, so an unnamed body is named by the order
   * of its slot in the world (slots are the low bits of the id, ids.c) */
  if (b->name && b->name[0])
    snprintf(b->label, sizeof b->label, "body '%.60s'", b->name);
  else
    snprintf(b->label, sizeof b->label, "unnamed body #%u", (unsigned)(b->id & 0x3fffu) + 1u);
}

static void free_texts(char **texts, int32_t count) {
  if (!texts) return;
  for (int32_t i = 0; i < count; ++i) free(texts[i]);
  free(texts);
}

void cl_body_free(cl_body *b) {
  if (!b) return;
  if (b->cops && b->criterion) b->cops->destroy(b->criterion);
  if (b->ops && b->solver) b->ops->destroy(b->solver);
  cl_body_state_free(&b->state);
  free(b->name);
  free(b->params);
  free(b->cparams);
  free_texts(b->ptexts, b->ops ? b->ops->param_count : 0);
  free_texts(b->ctexts, b->cops ? b->cops->param_count : 0);
  free(b->f_ext);
  free(b->slot);
  free(b->pslot);
  free(b->s_nodes);
  free(b->s_held);
  free(b->s_axes);
  free(b->s_x);
  free(b->s_v);
  free(b->s_r);
  free(b->c_nodes);
  free(b->c_x);
  free(b->c_v);
  free(b->c_r);
  free(b->units.F);
  free(b->units.stress);
  free(b->units.plastic);
  free(b->units.center);
  free(b->units.volume);
  free(b->units.damage);
  cl_event_list_free(&b->events);
  free(b->tris);
  free(b);
}

cl_status cl_body_sync_nodes(cl_body *b) {
  int32_t n = b->state.n;
  if (n <= b->node_capacity) return CL_OK;
  int32_t cap = b->state.capacity > n ? b->state.capacity : n;
  CL_TRY(CL_RESIZE(b->f_ext, 3 * (size_t)cap, "node external forces"));
  CL_TRY(CL_RESIZE(b->slot, (size_t)cap, "node constraint slots"));
  CL_TRY(CL_RESIZE(b->pslot, (size_t)cap, "node support slots"));
  for (int32_t i = b->node_capacity; i < cap; ++i) {
    b->slot[i] = -1;
    b->pslot[i] = -1;
    b->f_ext[3 * i] = b->f_ext[3 * i + 1] = b->f_ext[3 * i + 2] = 0.0;
  }
  b->node_capacity = cap;
  return CL_OK;
}

/* Check what bind produced: the world relies on it from now on. */
static cl_status check_bound_state(const cl_body *b) {
  const cl_body_state *s = &b->state;
  if (s->n < 1) return cl_fail(CL_ERR_MESH, "%s: solver '%s' produced no nodes", b->label, b->ops->name);
  for (int32_t i = 0; i < s->n; ++i) {
    if (!(s->m[i] > 0.0) || isinf(s->m[i]))
      return cl_fail(CL_ERR_MESH, "%s: node %d has mass %g kg after binding (a node in no element?)", b->label, i,
                     s->m[i]);
    for (int k = 0; k < 3; ++k)
      if (!isfinite(s->x[3 * i + k]) || !isfinite(s->X[3 * i + k]) || !isfinite(s->v[3 * i + k]))
        return cl_fail(CL_ERR_MESH, "%s: node %d has a non-finite coordinate after binding", b->label, i);
  }
  if (s->cell_size != 0 && s->cell_size != 2 && s->cell_size != 4)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: solver '%s' set cell size %d (0, 2 or 4 expected)", b->label,
                   b->ops->name, s->cell_size);
  for (int64_t j = 0; j < (int64_t)s->cell_size * s->ncells; ++j)
    if (s->cells[j] < 0 || s->cells[j] >= s->n)
      return cl_fail(CL_ERR_MESH, "%s: cell %lld refers to node %d outside [0, %d)", b->label,
                     (long long)(j / s->cell_size), s->cells[j], s->n);
  return CL_OK;
}

static cl_status grow_units(cl_body *b, int32_t count) {
  if (count <= b->units_capacity) return CL_OK;
  const size_t cap = cl_grow_capacity((size_t)b->units_capacity, (size_t)count, INT32_MAX);
  cl_unit_fields *u = &b->units;
  CL_TRY(CL_RESIZE(u->F, 9 * cap, "unit deformation gradients"));
  CL_TRY(CL_RESIZE(u->stress, 9 * cap, "unit stresses"));
  CL_TRY(CL_RESIZE(u->plastic, 9 * cap, "unit plastic strains"));
  CL_TRY(CL_RESIZE(u->center, 3 * cap, "unit centres"));
  CL_TRY(CL_RESIZE(u->volume, cap, "unit volumes"));
  CL_TRY(CL_RESIZE(u->damage, cap, "unit damage"));
  b->units_capacity = (int32_t)cap;
  return CL_OK;
}

/* Resolve a solver's or criterion's parameters (contract/params.h) into *values (malloc'd, one per
 * table entry) and *texts (malloc'd copies of the text parameters' values, NULL for the others). */
static cl_status resolve_params(const char *owner, const cl_param_info *table, int32_t count, const cl_param *given,
                                int32_t ngiven, double **values, char ***texts) {
  *values = cl_malloc(sizeof(double) * (size_t)(count + 1), "parameters");
  *texts = cl_calloc((size_t)count + 1, sizeof(char *), "text parameters");
  const char **view = cl_calloc((size_t)count + 1, sizeof(char *), "text parameters");
  cl_status s = *values && *texts && view ? CL_OK : CL_ERR_OUT_OF_MEMORY;
  if (s == CL_OK) s = cl_params_resolve_text(owner, table, count, given, ngiven, *values, view);
  for (int32_t i = 0; s == CL_OK && i < count; ++i) {
    if (!view[i]) continue;
    const size_t len = strlen(view[i]);
    (*texts)[i] = cl_malloc(len + 1, "text parameter");
    if (!(*texts)[i]) s = CL_ERR_OUT_OF_MEMORY;
    else memcpy((*texts)[i], view[i], len + 1);
  }
  free(view);
  return s;
}

/* The names of the registered criteria that fit `solver` (crit NULL) or of the solvers that `crit`
 * can drive (solver NULL), comma separated; the number found. */
static int fitting_names(const cl_solver_ops *solver, const cl_criterion_ops *crit, char *names, size_t size) {
  size_t used = 0;
  int found = 0;
  names[0] = '\0';
  const int32_t count = solver ? cl_criterion_count() : cl_solver_count();
  for (int32_t i = 0; i < count && used + 1 < size; ++i) {
    const cl_criterion_ops *c = solver ? cl_criterion_at(i) : crit;
    const cl_solver_ops *o = solver ? solver : cl_solver_at(i);
    if (!cl_criterion_fits(&o->caps, &c->caps, NULL, 0)) continue;
    int w = snprintf(names + used, size - used, "%s%s", used ? ", " : "", solver ? c->name : o->name);
    if (w < 0) break;
    used += (size_t)w;
    ++found;
  }
  return found;
}

/* CL_ERR_INVALID_ARGUMENT unless the criterion can drive the solver (contract/capabilities.h); the
 * message says why and names the criteria that would (or that the solver cannot fracture), and the
 * solvers the criterion works with. */
static cl_status check_criterion_fits(const cl_solver_ops *ops, const cl_criterion_ops *cops) {
  char why[256];
  if (cl_criterion_fits(&ops->caps, &cops->caps, why, sizeof why)) return CL_OK;
  char names[512], solvers[512];
  const int ncrit = fitting_names(ops, NULL, names, sizeof names);
  const int nsolv = fitting_names(NULL, cops, solvers, sizeof solvers);
  char tail[600];
  snprintf(tail, sizeof tail, nsolv ? "; criterion '%s' works with solver(s): %s" : "%s%s", nsolv ? cops->name : "",
           solvers);
  if (!ncrit)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "fracture criterion '%s' cannot drive solver '%s' (%s); solver '%s' "
                   "takes no fracture criterion%s", cops->name, ops->name, why, ops->name, tail);
  return cl_fail(CL_ERR_INVALID_ARGUMENT, "fracture criterion '%s' cannot drive solver '%s' (%s); criteria that work "
                 "with solver '%s': %s%s", cops->name, ops->name, why, ops->name, names, tail);
}

cl_status cl_body_new(const cl_world *world, const cl_body_def *def, const cl_mesh *mesh, cl_body **out) {
  *out = NULL;
  cl_body *b = cl_calloc(1, sizeof *b, "body");
  if (!b) return CL_ERR_OUT_OF_MEMORY;
  b->surface_version = b->pieces_version = -1;
  if (def->name && def->name[0]) {
    size_t len = strlen(def->name);
    b->name = cl_malloc(len + 1, "body name");
    if (!b->name) {
      cl_body_free(b);
      return CL_ERR_OUT_OF_MEMORY;
    }
    memcpy(b->name, def->name, len + 1);
    snprintf(b->label, sizeof b->label, "body '%.60s'", b->name);
  } else {
    snprintf(b->label, sizeof b->label, "unnamed body");
  }
  b->material = def->material;

  cl_status warn = CL_OK;
  cl_status s = cl_solver_find(def->solver, &b->ops);
  if (s < 0) goto fail;
  char owner[160];
  snprintf(owner, sizeof owner, "solver '%s'", b->ops->name);
  s = resolve_params(owner, b->ops->params, b->ops->param_count, def->params, def->param_count, &b->params,
                     &b->ptexts);
  if (s < 0) goto fail;

  if (def->criterion && def->criterion[0]) {
    s = cl_criterion_find(def->criterion, &b->cops);
    if (s < 0) goto fail;
    s = check_criterion_fits(b->ops, b->cops);
    if (s < 0) goto fail;
    snprintf(owner, sizeof owner, "criterion '%s'", b->cops->name);
    s = resolve_params(owner, b->cops->params, b->cops->param_count, def->criterion_params,
                       def->criterion_param_count, &b->cparams, &b->ctexts);
    if (s < 0) goto fail;
  } else if (def->criterion_param_count > 0) {
    s = cl_fail(CL_ERR_INVALID_ARGUMENT, "%d criterion parameters given without a criterion",
                def->criterion_param_count);
    goto fail;
  }

  s = b->ops->create(&b->solver);
  if (s < 0) goto fail;
  cl_bind_input in = {mesh,          &b->material,   b->params,
                      b->label,      world->def.seed, world->threads,
                      (const char *const *)b->ptexts};
  s = b->ops->bind(b->solver, &in, &b->state);
  if (s < 0) goto fail;
  s = check_bound_state(b);
  if (s >= 0 && CL_VALIDATE) s = cl_body_validate(b, CL_VALIDATE_BIND);
  if (s < 0) goto fail;
  if (b->cops) {
    s = b->cops->create(&b->criterion);
    if (s < 0) goto fail;
    cl_criterion_bind_input cin = {b->cparams, &b->material, b->ops->name, &b->ops->caps,
                                   &b->state,  b->label,     (const char *const *)b->ctexts, world->threads};
    s = b->cops->bind(b->criterion, &cin);
    if (s < 0) goto fail;
    warn = s; /* e.g. edge_stress lowering the strength of edges too long for the fracture energy */
  }
  s = cl_body_sync_nodes(b);
  if (s < 0) goto fail;
  s = grow_units(b, b->ops->unit_count(b->solver));
  if (s < 0) goto fail;
  b->nodes_seen = b->state.n;
  *out = b;
  return warn;
fail:
  cl_fail_context(s, "%s: ", b->label);
  cl_body_free(b);
  return s;
}

cl_status cl_body_measure(cl_body *b) {
  int32_t count = b->ops->unit_count(b->solver);
  CL_TRY(grow_units(b, count));
  b->units.count = count;
  if (count > 0) memset(b->units.damage, 0, sizeof(double) * (size_t)count);
  cl_status s = b->ops->measure(b->solver, &b->state, &b->units);
  if (s < 0) return cl_fail_context(s, "%s: measure: ", b->label);
  /* a stress that overflowed is a blow-up, never an output (value * 0 is NaN only for NaN and Inf) */
  const double *S = b->units.stress;
  double z = 0.0;
  for (int64_t j = 0; j < 9 * (int64_t)count; ++j) z += S[j] * 0.0;
  if (z != 0.0)
    for (int64_t j = 0; j < 9 * (int64_t)count; ++j)
      if (!isfinite(S[j]))
        return cl_fail(CL_ERR_NUMERICAL,
                       "%s: non-finite stress %g Pa in unit %lld (component %lld): the simulation blew up; try a "
                       "smaller dt or more substeps, or a material within range", b->label, S[j],
                       (long long)(j / 9), (long long)(j % 9));
  return s;
}

cl_status cl_body_surface(cl_body *b) {
  const cl_body_state *st = &b->state;
  if (b->surface_version == st->topology_version) return CL_OK;
  if (b->ops->surface) {
    /* the solver's own surface (solvers without tets; graph_fem's splits along damaged edges) */
    const int32_t *tris = NULL;
    int32_t ntris = 0;
    cl_status s = b->ops->surface(b->solver, st, &tris, &ntris);
    if (s < 0) return cl_fail_context(s, "%s: surface: ", b->label);
    int32_t *copy = cl_malloc(sizeof(int32_t) * 3 * (size_t)(ntris > 0 ? ntris : 1), "surface");
    if (!copy) return CL_ERR_OUT_OF_MEMORY;
    if (ntris > 0) memcpy(copy, tris, sizeof(int32_t) * 3 * (size_t)ntris);
    free(b->tris);
    b->tris = copy;
    b->ntris = ntris;
  } else if (st->cell_size == 4) {
    int32_t *tris = NULL, ntris = 0;
    cl_status s = cl_boundary_faces(st->ncells, st->cells, &tris, &ntris);
    if (s < 0) return cl_fail_context(s, "%s: surface: ", b->label);
    free(b->tris);
    b->tris = tris;
    b->ntris = ntris;
  } else {
    b->ntris = 0;
  }
  b->surface_version = st->topology_version;
  return CL_OK;
}

cl_status cl_body_piece_labels(cl_body *b, int32_t *labels, int32_t *count) {
  const cl_body_state *st = &b->state;
  cl_status s = CL_OK;
  if (b->ops->pieces) {
    /* the solver's connectivity (graph_fem: the unbroken edges; its cells never change) */
    s = b->ops->pieces(b->solver, st, labels, count);
  } else if (st->cell_size == 0 || st->ncells == 0) {
    *count = st->n;
    if (labels)
      for (int32_t i = 0; i < st->n; ++i) labels[i] = i;
  } else {
    s = cl_components(st->n, st->cells, st->ncells, st->cell_size, labels, count);
  }
  if (s < 0) return cl_fail_context(s, "%s: pieces: ", b->label);
  return s;
}

cl_status cl_body_pieces(cl_body *b, int32_t *pieces) {
  const cl_body_state *st = &b->state;
  if (b->pieces_version != st->topology_version) {
    int32_t count = 0;
    CL_TRY(cl_body_piece_labels(b, NULL, &count));
    b->pieces = count;
    b->pieces_version = st->topology_version;
  }
  *pieces = b->pieces;
  return CL_OK;
}

cl_status cl_body_volume(cl_body *b, double *volume) {
  const cl_body_state *st = &b->state;
  if (st->cell_size == 4) {
    /* sum of the signed tet volumes det[x1 - x0, x2 - x0, x3 - x0] / 6 */
    double vol = 0.0;
    for (int32_t c = 0; c < st->ncells; ++c) {
      const int32_t *t = st->cells + 4 * c;
      vol += cl_tet_volume(st->x + 3 * t[0], st->x + 3 * t[1], st->x + 3 * t[2], st->x + 3 * t[3]);
    }
    *volume = vol;
    return CL_OK;
  }
  if (!b->ops->volume)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: solver '%s' has no tets and reports no volume", b->label,
                   b->ops->name);
  cl_status s = b->ops->volume(b->solver, st, volume);
  if (s < 0) return cl_fail_context(s, "%s: volume: ", b->label);
  return s;
}

double cl_body_kinetic_energy(const cl_body *b) {
  const cl_body_state *st = &b->state;
  double e = 0.0;
  for (int32_t i = 0; i < st->n; ++i) {
    const double *v = st->v + 3 * i;
    e += 0.5 * st->m[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  return e;
}

cl_status cl_body_fill_info(cl_body *b, cl_body_info *info) {
  memset(info, 0, sizeof *info);
  CL_TRY(cl_body_surface(b));
  int32_t pieces = 0;
  CL_TRY(cl_body_pieces(b, &pieces));
  info->nodes = b->state.n;
  info->units = b->ops->unit_count(b->solver);
  info->surface_triangles = b->ntris;
  info->pieces = pieces;
  info->mass = cl_body_state_mass(&b->state);
  return CL_OK;
}
