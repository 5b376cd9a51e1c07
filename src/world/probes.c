/* Probes: quantities read between steps. Values are computed when read (from the state the last
 * step left), except the reaction, which the step accumulates from the constraint forces the
 * solver reports, and pieces, cached until the topology changes. */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "world/world.h"

/* Barycentric coordinates of p in the tet (a, b, c, d): solve [b-a, c-a, d-a] l = p - a by Cramer's
 * rule; w = (1 - l1 - l2 - l3, l1, l2, l3). Returns 0 for a degenerate tet. */
static int barycentric(const double *a, const double *b, const double *c, const double *d, const double *p,
                       double *w) {
  double e1[3], e2[3], e3[3], r[3];
  for (int k = 0; k < 3; ++k) {
    e1[k] = b[k] - a[k];
    e2[k] = c[k] - a[k];
    e3[k] = d[k] - a[k];
    r[k] = p[k] - a[k];
  }
#define DET3(u, v, x)                                                                   \
  ((u)[0] * ((v)[1] * (x)[2] - (v)[2] * (x)[1]) - (u)[1] * ((v)[0] * (x)[2] - (v)[2] * (x)[0]) + \
   (u)[2] * ((v)[0] * (x)[1] - (v)[1] * (x)[0]))
  double det = DET3(e1, e2, e3);
  if (det == 0.0) return 0;
  w[1] = DET3(r, e2, e3) / det;
  w[2] = DET3(e1, r, e3) / det;
  w[3] = DET3(e1, e2, r) / det;
#undef DET3
  w[0] = 1.0 - w[1] - w[2] - w[3];
  return 1;
}

/* Locate a material point by its rest position: the containing tet (the one where the point is
 * deepest, i.e. the largest smallest barycentric weight, so points on shared faces are stable),
 * else the nearest node. */
static void locate(const cl_body_state *s, const double *p, cl_material_point *mp) {
  mp->tet = -1;
  mp->node = 0;
  if (s->cell_size == 4) {
    double best = -1e-9;
    for (int32_t t = 0; t < s->ncells; ++t) {
      const int32_t *v = s->cells + 4 * t;
      double w[4];
      if (!barycentric(s->X + 3 * v[0], s->X + 3 * v[1], s->X + 3 * v[2], s->X + 3 * v[3], p, w)) continue;
      double lo = fmin(fmin(w[0], w[1]), fmin(w[2], w[3]));
      if (lo > best) {
        best = lo;
        mp->tet = t;
        memcpy(mp->w, w, sizeof w);
      }
    }
    if (mp->tet >= 0) return;
  }
  double best = INFINITY;
  for (int32_t i = 0; i < s->n; ++i) {
    double d2 = 0.0;
    for (int k = 0; k < 3; ++k) d2 += (s->X[3 * i + k] - p[k]) * (s->X[3 * i + k] - p[k]);
    if (d2 < best) {
      best = d2;
      mp->node = i;
    }
  }
}

static void current_position(const cl_body_state *s, const cl_material_point *mp, double *x) {
  if (mp->tet >= 0 && mp->tet < s->ncells && s->cell_size == 4) {
    const int32_t *v = s->cells + 4 * mp->tet;
    for (int k = 0; k < 3; ++k) x[k] = 0.0;
    for (int a = 0; a < 4; ++a)
      for (int k = 0; k < 3; ++k) x[k] += mp->w[a] * s->x[3 * v[a] + k];
  } else {
    for (int k = 0; k < 3; ++k) x[k] = s->x[3 * mp->node + k];
  }
}

int32_t cl_probe_value_count(const cl_probe *p) {
  switch (p->def.kind) {
    case CL_PROBE_REACTION: return 3;
    case CL_PROBE_CONTACT: return 6;
    case CL_PROBE_PHASE_TIME: return CL_PHASE_COUNT;
    default: return 1;
  }
}

cl_status cl_probe_new(cl_world *w, const cl_probe_def *def, cl_probe **out) {
  *out = NULL;
  if (def->kind < CL_PROBE_REACTION || def->kind > CL_PROBE_CONTACT)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "probe kind %d is not one of reaction (0), distance (1), volume (2), kinetic_energy (3), "
                   "elastic_energy (4), pieces (5), phase_time (6), contact (7)", (int)def->kind);
  cl_probe_def d = *def;
  cl_body *body = NULL;
  if (d.kind == CL_PROBE_REACTION) {
    cl_condition *c;
    CL_TRY(cl_world_condition(w, d.condition, &c));
    if (c->kind == CL_CONDITION_KNIFE)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "reaction probe: the condition is a knife, it holds no node (a brush or "
                     "an anchor does)");
    if (c->kind != CL_CONDITION_CONSTRAIN && c->kind != CL_CONDITION_SUPPORT)
      return cl_fail(CL_ERR_INVALID_ARGUMENT,
                     "reaction probe: the condition applies a load (world:force, world:load), it is not a fixed, "
                     "driven or supported region; a reaction probe needs the condition of world:fix, world:drive or "
                     "world:support");
    if (d.body != 0 && d.body != c->body) {
      cl_body *cb = NULL, *db = NULL;
      (void)cl_world_body(w, c->body, &cb);
      (void)cl_world_body(w, d.body, &db);
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "reaction probe: the condition belongs to %s, not to %s",
                     cb ? cb->label : "another body", db ? db->label : "the body given");
    }
    d.body = c->body;
  }
  if (d.kind != CL_PROBE_PHASE_TIME) CL_TRY(cl_world_body(w, d.body, &body));
  cl_collider *collider = NULL;
  if (d.kind == CL_PROBE_CONTACT) CL_TRY(cl_world_collider(w, d.collider, &collider));
  if (d.kind == CL_PROBE_DISTANCE)
    for (int k = 0; k < 3; ++k)
      if (!isfinite(d.a[k]) || !isfinite(d.b[k]))
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "distance probe: points a and b must be finite (a[%d] = %g, b[%d] = %g)",
                       k, d.a[k], k, d.b[k]);
  if (d.kind == CL_PROBE_VOLUME && body->state.cell_size != 4 && !body->ops->volume)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "volume probe: %s has no tets and solver '%s' reports no volume",
                   body->label, body->ops->name);
  cl_probe *p = cl_calloc(1, sizeof *p, "probe");
  if (!p) return CL_ERR_OUT_OF_MEMORY;
  p->def = d;
  if (collider) memcpy(p->center, collider->def.center, sizeof p->center);
  if (d.kind == CL_PROBE_DISTANCE) {
    locate(&body->state, d.a, &p->a);
    locate(&body->state, d.b, &p->b);
  }
  *out = p;
  return CL_OK;
}

cl_status cl_probe_eval(cl_world *w, const cl_probe *p, double *out) {
  if (p->def.kind == CL_PROBE_PHASE_TIME) {
    for (int k = 0; k < CL_PHASE_COUNT; ++k) out[k] = w->stats.phase_ms[k];
    return CL_OK;
  }
  if (p->def.kind == CL_PROBE_CONTACT) {
    /* the step's impulse over dt: the mean force of the step; the point weighted by impulse size */
    const double *r = p->contact;
    for (int k = 0; k < 3; ++k) {
      out[k] = r[k] / w->def.dt;
      out[3 + k] = r[6] > 0.0 ? r[3 + k] / r[6] : p->center[k];
    }
    return CL_OK;
  }
  if (p->def.kind == CL_PROBE_REACTION) {
    cl_condition *c;
    CL_TRY(cl_world_condition(w, p->def.condition, &c));
    for (int k = 0; k < 3; ++k) out[k] = c->reaction[k];
    return CL_OK;
  }
  cl_body *b;
  CL_TRY(cl_world_body(w, p->def.body, &b));
  switch (p->def.kind) {
    case CL_PROBE_DISTANCE: {
      double xa[3], xb[3];
      current_position(&b->state, &p->a, xa);
      current_position(&b->state, &p->b, xb);
      out[0] = sqrt((xa[0] - xb[0]) * (xa[0] - xb[0]) + (xa[1] - xb[1]) * (xa[1] - xb[1]) +
                    (xa[2] - xb[2]) * (xa[2] - xb[2]));
      return CL_OK;
    }
    case CL_PROBE_VOLUME: return cl_body_volume(b, out);
    case CL_PROBE_KINETIC_ENERGY: out[0] = cl_body_kinetic_energy(b); return CL_OK;
    case CL_PROBE_ELASTIC_ENERGY: {
      cl_status s = b->ops->elastic_energy(b->solver, &b->state, out);
      if (s < 0) return cl_fail_context(s, "%s: elastic energy: ", b->label);
      return s;
    }
    case CL_PROBE_PIECES: {
      int32_t n = 0;
      CL_TRY(cl_body_pieces(b, &n));
      out[0] = n;
      return CL_OK;
    }
    default: break;
  }
  return cl_fail(CL_ERR_INVALID_ARGUMENT, "probe kind %d cannot be read", (int)p->def.kind);
}

const char *cl_probe_kind_name(const cl_probe *p) {
  static const char *names[] = {"reaction", "distance", "volume", "kinetic energy", "elastic energy", "pieces",
                                "phase time", "contact force"};
  return p->def.kind >= CL_PROBE_REACTION && p->def.kind <= CL_PROBE_CONTACT ? names[p->def.kind] : "a";
}
