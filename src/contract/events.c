/* Fracture events (contract/events.h): constructors, the list, the world's priority order. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "contract/events.h"

const char *cl_event_kind_name(cl_event_kind kind) {
  switch (kind) {
    case CL_EVENT_SPLIT_NODE: return "split_node";
    case CL_EVENT_SPLIT_UNIT: return "split_unit";
    case CL_EVENT_DAMAGE_EDGE: return "damage_edge";
    case CL_EVENT_CUT_SURFACE: return "cut_surface";
    case CL_EVENT_KIND_COUNT: break;
  }
  return "unknown";
}

int32_t cl_event_unit(const cl_fracture_event *e) {
  switch (e->kind) {
    case CL_EVENT_SPLIT_NODE: return e->split_node.unit;
    case CL_EVENT_SPLIT_UNIT: return e->split_unit.unit;
    case CL_EVENT_DAMAGE_EDGE: return e->damage_edge.unit;
    case CL_EVENT_CUT_SURFACE:
    case CL_EVENT_KIND_COUNT: break;
  }
  return -1;
}

/* An event of `kind` with every other field zero. */
static cl_fracture_event event_of(cl_event_kind kind, double priority, double value) {
  cl_fracture_event e;
  memset(&e, 0, sizeof e);
  e.kind = kind;
  e.priority = priority;
  e.value = value;
  return e;
}

static void copy_normal(double *out, const double *normal) {
  for (int k = 0; k < 3; ++k) out[k] = normal ? normal[k] : 0.0;
}

cl_fracture_event cl_event_split_node(int32_t node, int32_t unit, const double normal[3], double priority,
                                      double value) {
  cl_fracture_event e = event_of(CL_EVENT_SPLIT_NODE, priority, value);
  e.split_node.node = node;
  e.split_node.unit = unit;
  copy_normal(e.split_node.normal, normal);
  return e;
}

cl_fracture_event cl_event_split_unit(int32_t unit, const double normal[3], double priority, double value) {
  cl_fracture_event e = event_of(CL_EVENT_SPLIT_UNIT, priority, value);
  e.split_unit.unit = unit;
  copy_normal(e.split_unit.normal, normal);
  return e;
}

cl_fracture_event cl_event_damage_edge(int32_t a, int32_t b, int32_t unit, double damage, double priority,
                                       double value) {
  cl_fracture_event e = event_of(CL_EVENT_DAMAGE_EDGE, priority, value);
  e.damage_edge.a = a;
  e.damage_edge.b = b;
  e.damage_edge.unit = unit;
  e.damage_edge.damage = damage;
  return e;
}

cl_fracture_event cl_event_damage_edge_in(int32_t a, int32_t b, int32_t unit, double damage, double priority,
                                          double value) {
  cl_fracture_event e = cl_event_damage_edge(a, b, unit, damage, priority, value);
  e.damage_edge.in_unit = 1;
  return e;
}

cl_fracture_event cl_event_cut_surface(const double tri[9], double priority) {
  cl_fracture_event e = event_of(CL_EVENT_CUT_SURFACE, priority, 0.0);
  memcpy(e.cut_surface.tri, tri, sizeof e.cut_surface.tri);
  return e;
}

cl_status cl_event_push(cl_event_list *list, const cl_fracture_event *event) {
  if (!list || !event) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_event_push: NULL argument");
  if (cl_reserve((void **)&list->items, &list->capacity, (size_t)list->count + 1, sizeof *list->items))
    return CL_ERR_OUT_OF_MEMORY;
  list->items[list->count++] = *event;
  return CL_OK;
}

void cl_event_list_free(cl_event_list *list) {
  if (!list) return;
  free(list->items);
  memset(list, 0, sizeof *list);
}

static int by_priority(const void *pa, const void *pb) {
  const cl_fracture_event *a = pa, *b = pb;
  if (a->priority > b->priority) return -1;
  if (a->priority < b->priority) return 1;
  const int32_t ua = cl_event_unit(a), ub = cl_event_unit(b);
  if (ua != ub) return (ua > ub) - (ua < ub);
  return ((int)a->kind > (int)b->kind) - ((int)a->kind < (int)b->kind);
}

void cl_event_list_sort(cl_event_list *list) {
  if (list && list->count > 1) qsort(list->items, (size_t)list->count, sizeof *list->items, by_priority);
}
