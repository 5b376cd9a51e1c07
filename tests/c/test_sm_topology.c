/* Topology bookkeeping of the shape-matching solver after fracture (sm_props.c, sm_fracture.c,
 * sm_solver.c): topology_changed updates the membership lists and the reverse index only for the
 * particles the fracture op marked, computes the pieces by a union-find over cluster slots, and the
 * fracture op reads the outlier test's rest distances from a per-membership cache. Every one of these
 * must give exactly what a rebuild from scratch gives (the reverse index fixes the summation order of
 * the step's gathers, so any difference would change results): the from-scratch functions
 * (cl_sm_link_lists, cl_sm_reverse_index, cl_sm_bonds, cl_sm_adjacency, cl_sm_pieces, cl_components
 * over the bonds)
 * are the oracle here, checked after every fracturing step of a breaking bar and after fracture ops
 * called by hand, one or two before a topology_changed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/test_meshes.h"
#include "support/test_worlds.h"

#include "cleave/world.h"
#include "geom/components.h"
#include "geom/mesh.h"
#include "solvers/shape_matching/shape_matching.h"
#include "solvers/shape_matching/sm_internal.h"
#include "world/world.h"

static cl_world *world(void) { return cl_test_world_seeded(1.0 / 60, 0.0, 1, 3); }

/* A bar along x pulled apart at its ends: with a low toughness it fractures in most steps. */
static cl_id pulled_bar(cl_world *w, double toughness, double speed, int particles) {
  cl_mesh *m = cl_test_box(0.6, 0.15, 0.15);
  cl_param p[5] = {{"particles", particles, NULL}, {"cluster_count", particles / 60, NULL}, {"alpha", 0.8, NULL}, {"gamma", 0.5, NULL},
                   {"damping", 10, NULL}};
  cl_param cp[2] = {{"toughness", toughness, NULL}, {"relax", 0, NULL}};
  cl_id b = cl_test_add_body(w, "shape_matching", m, p, 5, "cluster_stretch", cp, 2);
  cl_mesh_destroy(m);
  cl_test_x_slab(w, b, -1.0, -0.25, -speed);
  cl_test_x_slab(w, b, 0.25, 1.0, speed);
  return b;
}

/* What topology_changed maintains incrementally, copied out. */
typedef struct snapshot {
  int32_t n, ncl, npieces, ncells;
  int64_t memberships;
  int32_t *pofs, *pc, *cpiece, *cells, *cadj_ofs, *cadj;
  int64_t *plist, *lists; /* lists: each particle's membership list walked, -1 after each */
  double *pwt;
} snapshot;

static snapshot take(const cl_sm *s, const cl_body_state *st) {
  snapshot a;
  a.n = s->n;
  a.ncl = s->ncl;
  a.npieces = s->npieces;
  a.memberships = s->memberships;
  a.ncells = st->ncells;
  a.pofs = malloc(sizeof(int32_t) * (size_t)(a.n + 1));
  memcpy(a.pofs, s->pofs, sizeof(int32_t) * (size_t)(a.n + 1));
  const int32_t m = a.pofs[a.n];
  a.pc = malloc(sizeof(int32_t) * (size_t)(m + 1));
  a.plist = malloc(sizeof(int64_t) * (size_t)(m + 1));
  a.pwt = malloc(sizeof(double) * (size_t)(m + 1));
  memcpy(a.pc, s->pc, sizeof(int32_t) * (size_t)m);
  memcpy(a.plist, s->plist, sizeof(int64_t) * (size_t)m);
  memcpy(a.pwt, s->pwt, sizeof(double) * (size_t)m);
  a.cpiece = malloc(sizeof(int32_t) * (size_t)(a.ncl + 1));
  memcpy(a.cpiece, s->cpiece, sizeof(int32_t) * (size_t)a.ncl);
  a.cadj_ofs = malloc(sizeof(int32_t) * (size_t)(a.ncl + 1));
  memcpy(a.cadj_ofs, s->cadj_ofs, sizeof(int32_t) * (size_t)(a.ncl + 1));
  a.cadj = malloc(sizeof(int32_t) * (size_t)(a.cadj_ofs[a.ncl] + 1));
  memcpy(a.cadj, s->cadj, sizeof(int32_t) * (size_t)a.cadj_ofs[a.ncl]);
  a.cells = malloc(sizeof(int32_t) * (size_t)(2 * a.ncells + 1));
  memcpy(a.cells, st->cells, sizeof(int32_t) * (size_t)(2 * a.ncells));
  a.lists = malloc(sizeof(int64_t) * (size_t)(m + a.n + 1));
  int64_t at = 0;
  for (int32_t i = 0; i < a.n; ++i) {
    for (int64_t k = s->phead[i]; k >= 0; k = s->mnext[k]) a.lists[at++] = k;
    a.lists[at++] = -1;
  }
  return a;
}

static void drop(snapshot *a) {
  free(a->pofs);
  free(a->pc);
  free(a->plist);
  free(a->pwt);
  free(a->cpiece);
  free(a->cells);
  free(a->cadj_ofs);
  free(a->cadj);
  free(a->lists);
}

/* Two labellings of the live clusters define the same partition. */
static void assert_same_partition(const cl_sm *s, const int32_t *la, const int32_t *lb) {
  int32_t *ab = malloc(sizeof(int32_t) * (size_t)(s->ncl + 1));
  int32_t *ba = malloc(sizeof(int32_t) * (size_t)(s->n + s->ncl + 1));
  for (int32_t j = 0; j <= s->ncl; ++j) ab[j] = -1;
  for (int32_t j = 0; j < s->n + s->ncl + 1; ++j) ba[j] = -1;
  for (int32_t c = 0; c < s->ncl; ++c) {
    if (!s->alive[c] || s->mcnt[c] <= 0) {
      assert_int_equal(la[c], -1);
      continue;
    }
    assert_true(la[c] >= 0 && la[c] < s->ncl);
    assert_true(lb[c] >= 0 && lb[c] < s->n + s->ncl);
    if (ab[la[c]] < 0) ab[la[c]] = lb[c];
    if (ba[lb[c]] < 0) ba[lb[c]] = la[c];
    assert_int_equal(ab[la[c]], lb[c]);
    assert_int_equal(ba[lb[c]], la[c]);
  }
  free(ab);
  free(ba);
}

/* The incremental state equals the from-scratch rebuild bit for bit; the rebuild is left in place
 * (it is the same state, so a simulation going on from here is unchanged). Returns the pieces. */
static int32_t check_against_scratch(cl_sm *s, cl_body_state *st) {
  assert_int_equal(s->tdcount, 0); /* topology_changed consumed the marks */
  snapshot inc = take(s, st);
  cl_sm_link_lists(s, st->n);
  assert_int_equal(cl_sm_reverse_index(s, st->n), CL_OK);
  assert_int_equal(cl_sm_bonds(s, st), CL_OK);
  assert_int_equal(cl_sm_adjacency(s, st->n), CL_OK);
  snapshot ref = take(s, st);
  assert_int_equal(inc.n, ref.n);
  assert_int_equal(inc.memberships, ref.memberships);
  assert_memory_equal(inc.pofs, ref.pofs, sizeof(int32_t) * (size_t)(ref.n + 1));
  const int32_t m = ref.pofs[ref.n];
  assert_memory_equal(inc.pc, ref.pc, sizeof(int32_t) * (size_t)m);
  assert_memory_equal(inc.plist, ref.plist, sizeof(int64_t) * (size_t)m);
  assert_memory_equal(inc.pwt, ref.pwt, sizeof(double) * (size_t)m); /* bitwise, not to a tolerance */
  assert_memory_equal(inc.lists, ref.lists, sizeof(int64_t) * (size_t)(m + ref.n));
  assert_int_equal(inc.ncells, ref.ncells);
  assert_memory_equal(inc.cells, ref.cells, sizeof(int32_t) * (size_t)(2 * ref.ncells));
  /* split siblings: the same sorted lists */
  assert_int_equal(inc.ncl, ref.ncl);
  assert_memory_equal(inc.cadj_ofs, ref.cadj_ofs, sizeof(int32_t) * (size_t)(ref.ncl + 1));
  assert_memory_equal(inc.cadj, ref.cadj, sizeof(int32_t) * (size_t)ref.cadj_ofs[ref.ncl]);
  /* pieces: the union-find labels against cl_sm_pieces (components of the bonds) */
  assert_int_equal(cl_sm_pieces(s, st), CL_OK);
  assert_int_equal(s->npieces, inc.npieces);
  assert_same_partition(s, inc.cpiece, s->cpiece);
  assert_memory_equal(s->cpiece, inc.cpiece, sizeof(int32_t) * (size_t)s->ncl); /* one numbering */
  assert_int_equal(cl_sm_pieces_from_lists(s, st->n), CL_OK);
  assert_memory_equal(s->cpiece, inc.cpiece, sizeof(int32_t) * (size_t)s->ncl);
  /* labels 0..npieces-1 in order of the pieces' lowest slots */
  int32_t next = 0;
  for (int32_t c = 0; c < s->ncl; ++c)
    if (s->cpiece[c] >= 0) {
      assert_true(s->cpiece[c] <= next);
      if (s->cpiece[c] == next) ++next;
    }
  assert_int_equal(next, s->npieces);
  /* a cluster alone in its piece has no member in another cluster (the outlier pass skips it) */
  for (int32_t c = 0; c < s->ncl; ++c) {
    if (!s->alive[c]) continue;
    int32_t shared = 0;
    for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) shared += s->pnm[s->mp[k]] > 1;
    if (s->calone[c]) assert_int_equal(shared, 0);
  }
  /* every component of the bonds with a clustered particle is one piece; the rest are debris */
  int32_t *label = malloc(sizeof(int32_t) * (size_t)st->n);
  int32_t count = 0;
  assert_int_equal(cl_components(st->n, st->cells, st->ncells, 2, label, &count), CL_OK);
  int32_t debris = 0;
  for (int32_t i = 0; i < st->n; ++i) debris += s->pnm[i] == 0;
  assert_int_equal(count, s->npieces + debris);
  free(label);
  /* the outlier test's cached rest distances: max(|X_i - r_c|, width / 10) of the live memberships */
  for (int32_t c = 0; c < s->ncl; ++c) {
    if (!s->alive[c]) continue;
    const double fl = 0.1 * s->width[c];
    for (int64_t k = s->moff[c]; k < (int64_t)s->moff[c] + s->mcnt[c]; ++k) {
      const double nr = cl_vec3_norm(cl_vec3_load(s->mr, (int32_t)k));
      assert_true(s->orest[k] == fmax(nr, fl));
    }
  }
  int32_t pieces = s->npieces;
  drop(&inc);
  drop(&ref);
  return pieces;
}

static void test_breaking_bar_matches_rebuild(void **state) {
  (void)state;
  cl_world *w = world();
  cl_id b = pulled_bar(w, 0.02, 0.5, 1200);
  cl_sm *s = cl_test_body_solver(w, b);
  cl_body_state *st = cl_world_body_state(w, b);
  int32_t changes = 0, pieces = 0, n0 = st->n;
  for (int f = 0; f < 60; ++f) {
    int64_t v = st->topology_version;
    assert_int_equal(cl_world_step(w, 1), CL_OK);
    if (st->topology_version == v) continue;
    ++changes;
    pieces = check_against_scratch(s, st);
  }
  cl_sm_stats ss;
  assert_int_equal(cl_shape_matching_stats(s, &ss), CL_OK);
  print_message("breaking bar: %d fracturing steps, %lld splits, %lld particle splits, %lld deleted, %d -> %d "
                "particles, %d pieces\n",
                changes, (long long)ss.fractures, (long long)ss.particle_splits, (long long)ss.clusters_deleted, n0,
                st->n, pieces);
  assert_true(changes >= 10);
  assert_true(ss.particle_splits > 0);
  assert_true(ss.clusters_deleted > 0);
  assert_true(pieces >= 2);
  cl_world_destroy(w);
}

/* A world stepped with the incremental bookkeeping and one rebuilt from scratch after every step
 * end bitwise at the same positions. */
static void test_same_positions_as_rebuild(void **state) {
  (void)state;
  double *x[2];
  int32_t n[2];
  for (int run = 0; run < 2; ++run) {
    cl_world *w = world();
    cl_id b = pulled_bar(w, 0.02, 0.5, 900);
    cl_sm *s = cl_test_body_solver(w, b);
    cl_body_state *st = cl_world_body_state(w, b);
    for (int f = 0; f < 45; ++f) {
      assert_int_equal(cl_world_step(w, 1), CL_OK);
      if (run == 1) {
        cl_sm_link_lists(s, st->n);
        assert_int_equal(cl_sm_reverse_index(s, st->n), CL_OK);
        assert_int_equal(cl_sm_bonds(s, st), CL_OK);
        assert_int_equal(cl_sm_adjacency(s, st->n), CL_OK);
        assert_int_equal(cl_sm_pieces(s, st), CL_OK);
      }
    }
    n[run] = st->n;
    x[run] = malloc(sizeof(double) * 3 * (size_t)st->n);
    memcpy(x[run], st->x, sizeof(double) * 3 * (size_t)st->n);
    cl_world_destroy(w);
  }
  assert_int_equal(n[0], n[1]);
  assert_memory_equal(x[0], x[1], sizeof(double) * 3 * (size_t)n[0]);
  free(x[0]);
  free(x[1]);
}

/* Fracture ops called by hand: several events at once, and two ops before one topology_changed
 * (the marks of both are kept). */
static void test_hand_fractures(void **state) {
  (void)state;
  cl_world *w = world();
  cl_mesh *m = cl_test_box(0.3, 0.3, 0.3);
  cl_param p[2] = {{"particles", 1500, NULL}, {"cluster_count", 20, NULL}};
  cl_id b = cl_test_add_body(w, "shape_matching", m, p, 2, "cluster_stretch", NULL, 0);
  cl_mesh_destroy(m);
  cl_sm *s = cl_test_body_solver(w, b);
  cl_body_state *st = cl_world_body_state(w, b);
  const double normals[3][3] = {{1, 0, 0}, {0, 1, 0}, {0.6, 0, 0.8}};
  int32_t splits = 0;
  for (int round = 0; round < 6; ++round) {
    for (int op = 0; op < 1 + round % 2; ++op) {
      cl_fracture_event e[4];
      int32_t ne = 0;
      for (int32_t c = (round * 7 + op * 3) % s->ncl; ne < 4 && c < s->ncl; c += 3)
        if (s->alive[c] && s->mcnt[c] >= 8) {
          const double *nv = normals[(round + ne) % 3];
          e[ne] = cl_event_split_unit(c, nv, 1.0, 1.0);
          ++ne;
        }
      int32_t applied = 0;
      assert_int_equal(cl_shape_matching_solver_ops.fracture(s, st, e, ne, &applied), CL_OK);
      splits += applied;
    }
    assert_true(s->tdcount > 0 || splits == 0);
    assert_int_equal(cl_shape_matching_solver_ops.topology_changed(s, st), CL_OK);
    check_against_scratch(s, st);
  }
  print_message("hand fractures: %d splits, %d clusters in %d slots, %d particles, %d pieces\n", splits, s->nlive,
                s->ncl, st->n, s->npieces);
  assert_true(splits >= 6);
  cl_world_destroy(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_breaking_bar_matches_rebuild),
      cmocka_unit_test(test_same_positions_as_rebuild),
      cmocka_unit_test(test_hand_fractures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
