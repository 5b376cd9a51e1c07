/* A spatial hash grid over points for fixed-radius neighbour queries (Teschner et al. 2003,
 * "Optimized spatial hashing for collision detection of deformable objects", VMV): integer cell
 * coordinates floor(x / cell) are hashed into a power-of-two table.
 *
 * Two ways to fill it:
 * - static: cl_hash_grid_build sorts n points into buckets with a counting sort (one pass to count,
 *   one to scatter; the sorted copies of positions make queries walk contiguous memory). Rebuilding
 *   with n not above the previous capacity reuses every buffer (no allocation per step).
 * - dynamic: cl_hash_grid_reset then cl_hash_grid_insert, one point at a time (Poisson sampling);
 *   buckets are chained through an index array.
 * Ids returned by queries are the point's index in the build array (static) or its insertion
 * order (dynamic). Initialise a grid with `cl_hash_grid g = {0};` and free it with cl_hash_grid_free. */
#ifndef CL_GEOM_HASH_GRID_H
#define CL_GEOM_HASH_GRID_H

#include <stdint.h>

#include "cleave/status.h"

typedef struct cl_hash_grid {
  double cell, inv_cell; /* cell edge, m, and its inverse */
  uint32_t mask;         /* table size - 1 */
  int32_t n;             /* points stored */
  int32_t cap;           /* capacity of the per-point arrays */
  int dynamic;           /* 1 after cl_hash_grid_reset */
  int32_t *start;        /* static: table size + 1 bucket offsets */
  int32_t *head;         /* dynamic: first slot of each bucket, -1 when empty */
  int32_t *next;         /* dynamic: next slot in the bucket, -1 at the end */
  int32_t *id;           /* per slot: the id reported by queries */
  int32_t *cellc;        /* per slot: integer cell coordinates (3) */
  double *pos;           /* per slot: position (3) */
  uint32_t *bucket;      /* static build scratch: bucket of each input point */
  uint32_t start_len, head_len; /* allocated lengths of start and head */
} cl_hash_grid;

/* Static build over xyz (3 doubles per point, copied). cell > 0 m, typically the query radius. */
cl_status cl_hash_grid_build(cl_hash_grid *g, const double *xyz, int32_t n, double cell);
/* Start an empty dynamic grid with room for `capacity` points (it grows when needed). */
cl_status cl_hash_grid_reset(cl_hash_grid *g, double cell, int32_t capacity);
/* Add a point (dynamic grids only); its id is the number of points inserted before it. */
cl_status cl_hash_grid_insert(cl_hash_grid *g, const double *p);

/* Ids of all points within distance r of p (|x - p| <= r), written to out (at most `capacity` of
 * them, in no particular order). Returns the total number found, which may exceed capacity. */
int32_t cl_hash_grid_query(const cl_hash_grid *g, const double *p, double r, int32_t *out, int32_t capacity);
/* Call fn(ctx, id, squared distance) for every point within distance r of p. A non-zero return
 * from fn stops the query, and is returned. */
int cl_hash_grid_visit(const cl_hash_grid *g, const double *p, double r, int (*fn)(void *ctx, int32_t id, double d2),
                       void *ctx);
/* 1 if some point lies within distance r of p (early exit). */
int cl_hash_grid_any_within(const cl_hash_grid *g, const double *p, double r);

void cl_hash_grid_free(cl_hash_grid *g);

#endif
