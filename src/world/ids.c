/* Generational ids (Box2D's habit): a slot index plus a generation bumped when the slot is freed,
 * so an id kept after its object was destroyed is caught instead of reaching a reused slot. A kind
 * field catches a condition id passed as a body id, and a per-world tag catches ids from another
 * world (6 bits: two worlds share a tag only when more than 63 were created, so the check is strong
 * but not absolute). A slot is reused at most GEN_MAX - 1 times and then retired, so a generation
 * never wraps and a stale id stays stale for the world's life. */
#include <stdatomic.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/error.h"
#include "world/world.h"

enum {
  SLOT_BITS = 14,
  KIND_BITS = 2,
  TAG_BITS = 6,
  GEN_BITS = 10,
  SLOT_MAX = (1 << SLOT_BITS) - 1, /* slots 0..16382 usable */
  GEN_MAX = (1 << GEN_BITS) - 1
};

static const char *kind_name(uint32_t kind) {
  static const char *names[] = {"body", "condition", "collider", "probe"};
  return kind < 4 ? names[kind] : "object";
}

static cl_id pack(uint32_t slot, uint32_t kind, uint32_t tag, uint32_t gen) {
  return slot | (kind << SLOT_BITS) | (tag << (SLOT_BITS + KIND_BITS)) |
         (gen << (SLOT_BITS + KIND_BITS + TAG_BITS));
}

static uint32_t id_slot(cl_id id) { return id & SLOT_MAX; }
static uint32_t id_kind(cl_id id) { return (id >> SLOT_BITS) & 3u; }
static uint32_t id_tag(cl_id id) { return (id >> (SLOT_BITS + KIND_BITS)) & 63u; }
static uint32_t id_gen(cl_id id) { return id >> (SLOT_BITS + KIND_BITS + TAG_BITS); }

int32_t cl_pool_slot(cl_id id) { return (int32_t)id_slot(id); }

uint32_t cl_world_next_tag(void) {
  static atomic_uint counter; /* worlds may be created on several threads */
  return (uint32_t)(atomic_fetch_add(&counter, 1u) % 63u) + 1u;
}

void cl_pool_init(cl_pool *pool, cl_id_kind kind, uint32_t tag) {
  pool->items = NULL;
  pool->generation = NULL;
  pool->slots = pool->capacity = pool->nfree = pool->live = 0;
  pool->free_slots = NULL;
  pool->kind = kind;
  pool->tag = tag;
}

void cl_pool_free(cl_pool *pool) {
  free(pool->items);
  free(pool->generation);
  free(pool->free_slots);
  pool->items = NULL;
  pool->generation = NULL;
  pool->free_slots = NULL;
  pool->slots = pool->capacity = pool->nfree = pool->live = 0;
}

cl_status cl_pool_add(cl_pool *pool, void *item, cl_id *id) {
  int32_t slot;
  if (pool->nfree > 0) {
    slot = pool->free_slots[--pool->nfree];
  } else {
    if (pool->slots >= SLOT_MAX)
      return cl_fail(CL_ERR_INVALID_ARGUMENT,
                     "too many %ss in one world: at most %d at once, and %d adds and removes in all (a slot is "
                     "retired after %d reuses so that old handles stay stale); create a new world",
                     kind_name(pool->kind), SLOT_MAX, SLOT_MAX * GEN_MAX, GEN_MAX);
    if (pool->slots == pool->capacity) {
      const size_t cap = cl_grow_capacity((size_t)pool->capacity, (size_t)pool->slots + 1, SLOT_MAX);
      CL_TRY(CL_RESIZE(pool->items, cap, kind_name(pool->kind)));
      CL_TRY(CL_RESIZE(pool->generation, cap, kind_name(pool->kind)));
      CL_TRY(CL_RESIZE(pool->free_slots, cap, kind_name(pool->kind)));
      pool->capacity = (int32_t)cap;
    }
    slot = pool->slots++;
    pool->generation[slot] = 1;
  }
  pool->items[slot] = item;
  pool->live++;
  *id = pack((uint32_t)slot, (uint32_t)pool->kind, pool->tag, pool->generation[slot]);
  return CL_OK;
}

void *cl_pool_find(const cl_pool *pool, cl_id id) {
  if (id == 0 || id_kind(id) != (uint32_t)pool->kind || id_tag(id) != pool->tag) return NULL;
  uint32_t slot = id_slot(id);
  if (slot >= (uint32_t)pool->slots || pool->generation[slot] != id_gen(id)) return NULL;
  return pool->items[slot];
}

cl_status cl_pool_get(const cl_pool *pool, cl_id id, const char *what, void **item) {
  *item = NULL;
  if (!what) what = kind_name(pool->kind);
  if (id == 0) return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s id is 0 (none)", what);
  if (id_kind(id) != (uint32_t)pool->kind)
    return cl_fail(CL_ERR_STALE_ID, "the %s given is a %s id, not a %s id", what, kind_name(id_kind(id)),
                   kind_name(pool->kind));
  if (id_tag(id) != pool->tag) return cl_fail(CL_ERR_STALE_ID, "the %s given belongs to another world", what);
  void *p = cl_pool_find(pool, id);
  if (!p)
    return cl_fail(CL_ERR_STALE_ID,
                   "the %s given is stale: it was removed (directly, or with the body or condition it belonged "
                   "to) and can no longer be used", what);
  *item = p;
  return CL_OK;
}

void *cl_pool_remove(cl_pool *pool, cl_id id) {
  void *p = cl_pool_find(pool, id);
  if (!p) return NULL;
  uint32_t slot = id_slot(id);
  pool->items[slot] = NULL;
  pool->live--;
  /* A slot whose generation is at GEN_MAX is retired, never reused: bumping it would wrap to a
   * generation an old id still carries, and that id would name the new object. A retired slot
   * keeps its generation, so its old ids stay stale (items[slot] is NULL for ever). */
  if (pool->generation[slot] >= GEN_MAX) return p;
  pool->generation[slot] = (uint16_t)(pool->generation[slot] + 1);
  pool->free_slots[pool->nfree++] = (int32_t)slot;
  return p;
}
