/* Fracture events: raised by criteria (and by scripted tools), applied by a solver's topology
 * operation. Part of the simulation contract (src/contract/).
 *
 * An event is a tagged union: the criterion says WHAT should break and how urgently, the solver's
 * fracture op decides HOW (replicate a node, split a cluster, degrade an element). Solvers handle
 * the kinds they declare in their capabilities with a switch on `kind`; the world never hands a
 * solver a kind it did not declare (contract/capabilities.h). */
#ifndef CL_CONTRACT_EVENTS_H
#define CL_CONTRACT_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "cleave/status.h"

typedef enum cl_event_kind {
  /* Split the mesh at a node along a plane through it: elements on the positive side of the plane
   * take a copy of the node (O'Brien & Hodgins 1999 sec 4; the corotational solver). */
  CL_EVENT_SPLIT_NODE = 0,
  /* Split an integration unit along a plane through its centre (a shape-matching cluster, Jones et
   * al. 2016 sec 3.3), or detach it from its neighbours when no plane is given. */
  CL_EVENT_SPLIT_UNIT = 1,
  /* Damage the mesh edge between two nodes (graph-based FEM, Mandal et al. 2025 Alg. 1). */
  CL_EVENT_DAMAGE_EDGE = 2,
  /* Cut along a triangle of a surface swept by a tool (scripted knives, meshless cutting). */
  CL_EVENT_CUT_SURFACE = 3,
  CL_EVENT_KIND_COUNT
} cl_event_kind;

/* Bit of a kind in an event-kind mask (capabilities). */
#define CL_EVENT_BIT(kind) (1u << (unsigned)(kind))

/* Name of a kind ("split_node", ...) for messages. */
const char *cl_event_kind_name(cl_event_kind kind);

typedef struct cl_fracture_event {
  cl_event_kind kind;
  double priority;   /* larger goes first (e.g. stress / toughness) */
  double value;      /* the criterion's raw value, for statistics */
  union {
    struct {
      int32_t node;       /* node to split */
      int32_t unit;       /* a unit touching the node (the one that raised it), or -1 */
      double normal[3];   /* crack plane normal; zero: the solver puts `unit` on the positive side */
    } split_node;
    struct {
      int32_t unit;       /* unit that failed */
      double normal[3];   /* crack plane normal (unit); zero: the solver chooses (or detaches) */
    } split_unit;
    struct {
      int32_t a, b;       /* the edge's end nodes */
      int32_t unit;       /* a unit holding the edge, or -1 */
      int32_t in_unit;    /* 0: the edge's damage in every unit that has it; 1: in `unit` only (a crack
                           * crossing that element: cl_event_damage_edge_in) */
      double damage;      /* added damage in (0, 1]; an edge at 1 is broken */
    } damage_edge;
    struct {
      double tri[9];      /* the cutting triangle's corners, world coordinates, m */
    } cut_surface;
  };
} cl_fracture_event;

/* The unit an event names (split_node: the raising unit; damage_edge: its unit; -1 for a cut): the
 * deterministic tie-break of the world's priority sort. */
int32_t cl_event_unit(const cl_fracture_event *event);

/* Constructors, so criteria never fill the union by hand. */
cl_fracture_event cl_event_split_node(int32_t node, int32_t unit, const double normal[3], double priority,
                                      double value);
cl_fracture_event cl_event_split_unit(int32_t unit, const double normal[3], double priority, double value);
cl_fracture_event cl_event_damage_edge(int32_t a, int32_t b, int32_t unit, double damage, double priority,
                                       double value);
/* The same, for the edge inside `unit` only (in_unit = 1). */
cl_fracture_event cl_event_damage_edge_in(int32_t a, int32_t b, int32_t unit, double damage, double priority,
                                          double value);
/* A cut along the triangle tri (3 corners, world coordinates, m); value 0. */
cl_fracture_event cl_event_cut_surface(const double tri[9], double priority);

typedef struct cl_event_list {
  cl_fracture_event *items;
  int32_t count;
  size_t capacity;
} cl_event_list;
/* Append an event (grows the list; allocation happens only on steps that raise events). */
cl_status cl_event_push(cl_event_list *list, const cl_fracture_event *event);
void cl_event_list_free(cl_event_list *list);
/* Sort by decreasing priority, ties by increasing cl_event_unit, then by kind (deterministic). */
void cl_event_list_sort(cl_event_list *list);

#endif
