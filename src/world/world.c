/* The world: lifetime, the four id pools, and adding and removing objects (with the cascades:
 * a removed body takes its conditions and probes along, a removed condition its reaction probes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/alloc.h"
#include "base/error.h"
#include "world/world.h"

cl_status cl_world_new(const cl_world_def *def, cl_world **out) {
  *out = NULL;
  cl_world *w = cl_calloc(1, sizeof *w, "world");
  if (!w) return CL_ERR_OUT_OF_MEMORY;
  w->def = *def;
  for (int k = 0; k < 3; ++k) w->gravity[k] = def->gravity[k];
#ifdef _OPENMP
  w->threads = def->threads > 0 ? def->threads : omp_get_max_threads();
#else
  w->threads = 1;
#endif
  if (w->threads < 1) w->threads = 1;
  w->tag = cl_world_next_tag();
  cl_pool_init(&w->bodies, CL_ID_BODY, w->tag);
  cl_pool_init(&w->conditions, CL_ID_CONDITION, w->tag);
  cl_pool_init(&w->colliders, CL_ID_COLLIDER, w->tag);
  cl_pool_init(&w->probes, CL_ID_PROBE, w->tag);
  *out = w;
  return CL_OK;
}

void cl_world_free(cl_world *w) {
  if (!w) return;
  for (int32_t i = 0; i < w->probes.slots; ++i) free(cl_pool_at(&w->probes, i));
  for (int32_t i = 0; i < w->conditions.slots; ++i) cl_condition_free(cl_pool_at(&w->conditions, i));
  for (int32_t i = 0; i < w->colliders.slots; ++i) cl_collider_free(cl_pool_at(&w->colliders, i));
  for (int32_t i = 0; i < w->bodies.slots; ++i) cl_body_free(cl_pool_at(&w->bodies, i));
  cl_pool_free(&w->probes);
  cl_pool_free(&w->conditions);
  cl_pool_free(&w->colliders);
  free(w->rigid_scratch);
  free(w->rigid_pairs);
  cl_pool_free(&w->bodies);
  free(w->shapes);
  free(w->contact_scratch);
  free(w->shape_of_slot);
  free(w);
}

cl_status cl_world_body(const cl_world *w, cl_id id, cl_body **b) {
  return cl_pool_get(&w->bodies, id, "body", (void **)b);
}
cl_status cl_world_condition(const cl_world *w, cl_id id, cl_condition **c) {
  return cl_pool_get(&w->conditions, id, "condition", (void **)c);
}
cl_status cl_world_collider(const cl_world *w, cl_id id, cl_collider **c) {
  return cl_pool_get(&w->colliders, id, "collider", (void **)c);
}
cl_status cl_world_probe(const cl_world *w, cl_id id, cl_probe **p) {
  return cl_pool_get(&w->probes, id, "probe", (void **)p);
}

cl_body_state *cl_world_body_state(cl_world *w, cl_id id) {
  cl_body *b = w ? cl_pool_find(&w->bodies, id) : NULL;
  return b ? &b->state : NULL;
}

cl_status cl_world_insert_body(cl_world *w, cl_body *b, cl_id *id) {
  cl_status s = cl_pool_add(&w->bodies, b, &b->id);
  if (s < 0) {
    cl_body_free(b);
    return s;
  }
  cl_body_set_label(b);
  cl_watch_body_added(w, b);
  *id = b->id;
  return CL_OK;
}

/* Remove the probes for which `match` holds. */
static void delete_probes(cl_world *w, cl_id body, cl_id condition, cl_id collider) {
  for (int32_t i = 0; i < w->probes.slots; ++i) {
    cl_probe *p = cl_pool_at(&w->probes, i);
    if (!p) continue;
    if ((body && p->def.kind != CL_PROBE_PHASE_TIME && p->def.body == body) ||
        (condition && p->def.kind == CL_PROBE_REACTION && p->def.condition == condition) ||
        (collider && p->def.kind == CL_PROBE_CONTACT && p->def.collider == collider)) {
      w->contact_probes -= p->def.kind == CL_PROBE_CONTACT;
      free(cl_pool_remove(&w->probes, p->id));
    }
  }
}

void cl_world_delete_condition(cl_world *w, cl_id id) {
  cl_condition *c = cl_pool_remove(&w->conditions, id);
  if (!c) return;
  delete_probes(w, 0, id, 0);
  cl_condition_free(c);
}

void cl_world_delete_body(cl_world *w, cl_id id) {
  cl_body *b = cl_pool_remove(&w->bodies, id);
  if (!b) return;
  for (int32_t i = 0; i < w->conditions.slots; ++i) {
    cl_condition *c = cl_pool_at(&w->conditions, i);
    if (c && c->body == id) cl_world_delete_condition(w, c->id);
  }
  delete_probes(w, id, 0, 0);
  cl_body_free(b);
}

/* Room for `total` supported nodes in the body's merged support set. */
static cl_status reserve_supports(cl_body *b, int32_t total) {
  if (total <= b->s_capacity) return CL_OK;
  const size_t n = (size_t)total;
  CL_TRY(CL_RESIZE(b->s_nodes, n, "supported nodes"));
  CL_TRY(CL_RESIZE(b->s_held, n, "supported nodes"));
  CL_TRY(CL_RESIZE(b->s_axes, 9 * n, "support directions"));
  CL_TRY(CL_RESIZE(b->s_x, 3 * n, "support targets"));
  CL_TRY(CL_RESIZE(b->s_v, 3 * n, "support targets"));
  CL_TRY(CL_RESIZE(b->s_r, 3 * n, "support reactions"));
  b->s_capacity = total;
  return CL_OK;
}

cl_status cl_world_reserve_constraints(cl_world *w, cl_body *b) {
  /* supports whose directions add up to three become full constraints: count them in both */
  int32_t total = 0, supports = 0;
  for (int32_t i = 0; i < w->conditions.slots; ++i) {
    cl_condition *o = cl_pool_at(&w->conditions, i);
    if (!o || o->body != b->id) continue;
    if (o->kind == CL_CONDITION_CONSTRAIN || o->kind == CL_CONDITION_SUPPORT) total += o->count;
    if (o->kind == CL_CONDITION_SUPPORT) supports += o->count;
  }
  CL_TRY(reserve_supports(b, supports));
  if (total <= b->c_capacity) return CL_OK;
  const size_t cap = cl_grow_capacity((size_t)b->c_capacity, (size_t)total, INT32_MAX);
  CL_TRY(CL_RESIZE(b->c_nodes, cap, "constrained nodes"));
  CL_TRY(CL_RESIZE(b->c_x, 3 * cap, "constraint targets"));
  CL_TRY(CL_RESIZE(b->c_v, 3 * cap, "constraint velocities"));
  CL_TRY(CL_RESIZE(b->c_r, 3 * cap, "constraint reactions"));
  b->c_capacity = (int32_t)cap;
  return CL_OK;
}

cl_status cl_world_insert_condition(cl_world *w, cl_body *b, const cl_region_def *region, const cl_condition_spec *spec,
                                    cl_id *id) {
  int32_t *nodes = NULL, count = 0;
  CL_TRY(cl_region_select(region, b, &nodes, &count));
  cl_condition *c;
  CL_TRY(cl_condition_new(spec, b, nodes, count, w->time, &c));
  cl_status s = cl_pool_add(&w->conditions, c, &c->id);
  if (s < 0) {
    cl_condition_free(c);
    return s;
  }
  s = cl_world_reserve_constraints(w, b);
  if (s < 0) {
    cl_world_delete_condition(w, c->id);
    return s;
  }
  *id = c->id;
  if (spec->kind != CL_CONDITION_CONSTRAIN) return CL_OK;
  /* Every node held is allowed (the body moves only as prescribed) but probably not meant. A node
   * held by two conditions that move it differently follows only one (step.c keeps the condition in
   * the lower slot): a fix and a drive on the same nodes dropped the drive without a word. */
  int32_t held = 0, shared = 0;
  int new_wins = 1;
  unsigned char *mark = calloc((size_t)b->state.n, 1); /* bit 0: in c, 1: in another, 2: shared */
  if (!mark) return CL_OK; /* the warnings are advice only */
  for (int32_t j = 0; j < c->count; ++j) mark[c->nodes[j]] |= 1;
  for (int32_t i = 0; i < w->conditions.slots; ++i) {
    cl_condition *o = cl_pool_at(&w->conditions, i);
    if (!o || o == c || o->body != b->id || o->kind != CL_CONDITION_CONSTRAIN) continue;
    const int same = o->t_add == c->t_add && memcmp(&o->motion, &c->motion, sizeof o->motion) == 0;
    int32_t overlap = 0;
    for (int32_t j = 0; j < o->count; ++j) {
      unsigned char *m = &mark[o->nodes[j]];
      if ((*m & 1) && !same && !(*m & 4)) *m |= 4, ++overlap;
      *m |= 2;
    }
    shared += overlap;
    if (overlap > 0 && i < (int32_t)(c->id & 0x3fffu)) new_wins = 0; /* the lower slot keeps the node */
  }
  for (int32_t k = 0; k < b->state.n; ++k) held += mark[k] != 0;
  free(mark);
  if (shared > 0)
    return cl_fail(CL_WARN_OVERLAP,
                   "%s: %d of the %d nodes of the new fixed or driven region are already held by another condition "
                   "that moves them differently; each such node follows only one of them (%s), so %s. Make the "
                   "regions disjoint, or remove the other condition", b->label, shared, c->count,
                   new_wins ? "the new one" : "the other one",
                   new_wins ? "the other condition no longer moves them" : "the new condition does not move them");
  if (held == b->state.n)
    return cl_fail(CL_WARN_ALL_FIXED, "%s: all %d nodes are now fixed or driven; the body will only move as "
                   "prescribed", b->label, held);
  return CL_OK;
}

cl_status cl_world_insert_collider(cl_world *w, const cl_collider_def *def, cl_id *id) {
  cl_collider *c = cl_calloc(1, sizeof *c, "collider");
  if (!c) return CL_ERR_OUT_OF_MEMORY;
  c->def = *def;
  c->t_add = w->time;
  c->number = ++w->colliders_added;
  if (cl_kinematic_own_path(&c->def, &c->path) < 0) {
    free(c);
    return CL_ERR_OUT_OF_MEMORY;
  }
  double n = sqrt(def->normal[0] * def->normal[0] + def->normal[1] * def->normal[1] + def->normal[2] * def->normal[2]);
  for (int k = 0; k < 3; ++k) c->def.normal[k] = n > 0.0 ? def->normal[k] / n : 0.0;
  cl_status s = cl_pool_add(&w->colliders, c, &c->id);
  if (s < 0) {
    cl_collider_free(c);
    return s;
  }
  if (w->colliders.live > w->shapes_capacity) {
    const size_t cap = cl_grow_capacity((size_t)w->shapes_capacity, (size_t)w->colliders.live, INT32_MAX);
    if (CL_RESIZE(w->shapes, cap, "collider shapes") < 0) {
      cl_collider_free(cl_pool_remove(&w->colliders, c->id));
      return CL_ERR_OUT_OF_MEMORY;
    }
    w->shapes_capacity = (int32_t)cap;
    s = CL_RESIZE(w->contact_scratch, 7 * (size_t)cap, "collider contact records");
    if (s < 0) {
      cl_collider_free(cl_pool_remove(&w->colliders, c->id));
      return s;
    }
  }
  if (w->colliders.slots > 0) {
    s = CL_RESIZE(w->shape_of_slot, (size_t)w->colliders.capacity, "collider slots");
    if (s < 0) {
      cl_collider_free(cl_pool_remove(&w->colliders, c->id));
      return s;
    }
  }
  cl_watch_collider_added(w, c);
  *id = c->id;
  return CL_OK;
}

void cl_collider_free(cl_collider *c) {
  if (!c) return;
  free(c->path);
  free(c);
}

void cl_world_delete_collider(cl_world *w, cl_id id) {
  delete_probes(w, 0, 0, id);
  cl_collider_free(cl_pool_remove(&w->colliders, id));
}

cl_status cl_world_insert_probe(cl_world *w, const cl_probe_def *def, cl_id *id) {
  cl_probe *p;
  CL_TRY(cl_probe_new(w, def, &p));
  cl_status s = cl_pool_add(&w->probes, p, &p->id);
  if (s < 0) {
    free(p);
    return s;
  }
  *id = p->id;
  w->contact_probes += p->def.kind == CL_PROBE_CONTACT;
  return CL_OK;
}

cl_status cl_world_stop(cl_world *w, cl_status s) {
  w->stopped = 1;
  snprintf(w->stop_message, sizeof w->stop_message, "%s", cl_last_error());
  return s;
}
