/* Internal layout of the shape-matching solver, shared by the files of this folder:
 *
 *   sm_solver.c    the ops table: create, destroy, bind, unit count, topology_changed, stats
 *   sm_params.c    the parameter table and its reading into cl_sm_params
 *   sm_particles.c particles from a closed surface (Poisson disk or grid), a point set or a tet mesh
 *   sm_cluster.c   overlapping clusters by fuzzy c-means (Jones et al., MIG 2015)
 *   sm_props.c     cluster rest properties (mass, rest centre, A_rr^+, width), reverse index, bonds
 *   sm_step.c      one step: eqs 1-8 with damping, strain limiting, reactions, collisions
 *   sm_plastic.c   plasticity, eqs 9-14
 *   sm_measure.c   per-cluster F, stress, plastic deformation, energy, volume
 *   sm_fracture.c  cluster splitting (sec 3.3, eq 15), outliers, deletion of small clusters
 *   sm_collide.c   cluster proxies: spheres cut by the fracture half-spaces (Jones et al. 2015)
 *
 * Data layout. Per-particle state (x, v, X, m) lives in the world's cl_body_state. Clusters are
 * slots 0..ncl-1 that are only appended (a split adds one) and never renumbered, so a cluster index
 * is a stable unit index for criteria; a deleted cluster keeps its slot with alive = 0. Memberships
 * (cluster c contains particle i with raw weight w_ic) live in one pool, each cluster's members
 * contiguous at [moff[c], moff[c] + mcnt[c]); a split shrinks the old list in place and appends the
 * new cluster's list at the end of the pool. The reverse index (the memberships of each particle) is
 * a CSR array rebuilt after topology changes; the hot loops read it to gather per-particle sums in
 * a fixed order, so results do not depend on the number of threads.
 *
 * Deleted particles: a particle left in no cluster ("removed from the system" in the paper) keeps its
 * index and its mass and becomes debris: it moves ballistically under gravity and the world's
 * colliders and is its own piece. Mass is therefore conserved through fracture. */
#ifndef CL_SOLVERS_SHAPE_MATCHING_SM_INTERNAL_H
#define CL_SOLVERS_SHAPE_MATCHING_SM_INTERNAL_H

#include <stdint.h>

#include "base/mat3.h"
#include "base/vec3.h"
#include "solvers/shape_matching/shape_matching.h"
#include "solvers/solver.h"

/* Indices into the parameter table (sm_params.c) */
enum {
  SM_P_SAMPLING = 0,
  SM_P_SPACING,
  SM_P_PARTICLES,
  SM_P_CLUSTER_COUNT,
  SM_P_CLUSTER_RADIUS,
  SM_P_FUZZINESS,
  SM_P_CLUSTER_ITERATIONS,
  SM_P_ALPHA,
  SM_P_DAMPING,
  SM_P_DAMP_SPIN,
  SM_P_TORQUE_FREE,
  SM_P_GAMMA,
  SM_P_ITERATIONS,
  SM_P_OMEGA,
  SM_P_PINV_THRESHOLD,
  SM_P_HARDENING_TIME,
  SM_P_OUTLIER,
  SM_P_MIN_CLUSTER_MASS,
  SM_P_SELF_COLLISIONS,
  SM_P_RESTITUTION,
  SM_P_BOUNDARY_PLANES,
  SM_P_PROXY_ORIGINS,
  SM_P_PROXY_WHOLE,
  SM_P_PROXY_VELOCITY,
  SM_P_COUNT
};

extern const cl_param_info cl_sm_param_table[SM_P_COUNT];

typedef struct cl_sm_params {
  int sampling;            /* CL_SAMPLE_GRID or CL_SAMPLE_POISSON */
  double spacing;          /* m, 0 = automatic */
  int32_t particles;       /* target count for the automatic spacing */
  int32_t cluster_count;   /* 0 = automatic */
  double cluster_radius;   /* m, 0 = automatic */
  double fuzziness;        /* fuzzy c-means exponent m > 1 */
  int32_t cluster_iterations;
  double alpha;            /* goal stiffness, fraction of the way to the goal per step */
  double damping;          /* 1/s, relaxation rate of velocities toward the cluster's motion */
  int torque_free;         /* remove each cluster's net torque from its corrections */
  int damp_spin;           /* 1: toward the mean velocity (damps spin, the authors'); 0: the rigid motion */
  double gamma;            /* strain limit: largest goal distance / cluster width */
  int32_t iterations;      /* strain-limiting iterations */
  double omega;            /* strain-limiting relaxation */
  double pinv_threshold;   /* relative singular-value threshold of A_rr^+ */
  double hardening_time;   /* s, time unit of the hardening variable (eq 14 scaled by dt) */
  double outlier;          /* outlier distance factor */
  double min_cluster_mass; /* fraction of the mean initial cluster mass below which a cluster goes */
  int self_collisions;     /* cluster-proxy collisions between clusters that share no particle */
  double restitution;      /* fraction of the proxy projection applied */
  double boundary_planes;  /* boundary planes of the proxies, fraction of the radius (0 = none) */
  int proxy_origins;       /* clusters holding copies of one original particle do not collide */
  int proxy_whole;         /* proxies act within a piece too (not only between pieces) */
  int proxy_velocity;      /* a proxy push changes the velocity by displacement / dt */
} cl_sm_params;

/* Whether the per-cluster loops of a step, the measure and the proxies run on the body's threads:
 * only with enough work to pay for their fork/joins (sm_step.c, cl_sm_step, says what was measured;
 * -DSM_PAR_MEMBERSHIPS=N overrides it for experiments). */
#ifndef SM_PAR_MEMBERSHIPS
#define SM_PAR_MEMBERSHIPS 12000
#endif

/* Pool entries per block of the self-collision's member boxes (sm_collide.c) */
#define SM_BLOCK 16
/* Blocks per superblock (sm_collide.c): an armadillo direction tested ~100 blocks of a large
 * cluster to cull 95 % of them. */
#define SM_SUPER 8

/* Doubles per cluster in gpack (sm_step.c): the gathers' blocks (24 or 28) and, at 28, the F^e of
 * the goal pass (strain limiting's reference) */
#define SM_GPACK 40

/* Doubles per cluster in msum: xref 3, sx 3, A 9, C 9, then the decomposition of F^e: U 9, sigma 3,
 * V 9 (svd) or R 9, sigma_min bound 1 (polar), and 1 for which of the two (cl_sm_keep_decomp) */
#define SM_MSUM 46

/* Read the resolved parameter values (one per table entry) into p. */
void cl_sm_params_read(const double *values, cl_sm_params *p);

/* Flags per particle */
enum { SM_DEBRIS = 1, SM_HELD = 2 };

typedef struct cl_sm {
  cl_sm_params p;
  double density, mu, lambda;  /* material */
  int plastic;                 /* plasticity on (yield >= 0 and flow > 0) */
  double yield, flow, hardening, plastic_max; /* flow: the rate k, 1/s (eq 13's nu = k dt) */
  int threads;
  uint64_t seed;               /* the world's seed: sampling and clustering */
  char label[96];              /* body label for messages */

  /* particles: solver-side arrays sized pcap >= state n */
  int32_t n, pcap;
  double *W;          /* sum of raw weights of the particle's memberships */
  uint8_t *flags;
  int32_t *held;      /* constraint slot + 1 during a step, 0 otherwise */
  uint8_t *moved;     /* strain limiting moved the particle in the last iteration */
  uint8_t *vdirty;    /* the step's velocity pass must redo the particle (strain limiting moved it,
                       * or it ended step 2 inside the colliders' box); zero between steps */
  int64_t vredone;    /* particles that pass redid, in total (tests) */
  uint8_t *mark;      /* scratch flag (strain-limiting particle lists) */
  int32_t *sl_list;   /* 2 pcap: the particles of the clamping clusters, this and the last iteration */
  double *xold;       /* 3n positions at the start of the step */
  double *pdisp;      /* n: squared distance of the particle from its step-start position (strain limiting) */
  double *vold;       /* 3n velocities at the start of the step (reactions) */
  double *acc;        /* 3n per-particle gather results (scratch) */
  double *gacc;       /* 3n the goal pass's scatter (sm_step.c): zero outside steps 1-2 (step 2
                       * zeroes what it reads), so no pass clears it */
  double *dsum;       /* 3n strain-limiting corrections of held particles over the step (reactions) */
  double *dvsh;       /* 3n shape-matching velocity change of held particles (reactions) */
  double *xmeas;      /* 3n positions at the last measure (only in builds with assertions, which
                       * check msum_ok against them; NULL otherwise) */
  int32_t xmeas_n;    /* particle count at the last measure */
  int msum_ok;        /* the last measure's sums are of the current positions (no step since) */

  /* clusters: slots 0..ncl-1, capacity ccap */
  int32_t ncl, ccap, nlive;
  int64_t stretch_clock;  /* steps since bind, for the over-stretch check (sm_solver.c) */
  int stretch_warned;     /* the over-stretch warning was given (once per body) */
  uint8_t *alive;
  int32_t *moff, *mcnt;
  double *mass;       /* sum of w~ m over members, kg */
  double *rcom;       /* 3 per cluster, rest centre of mass */
  double *width;      /* largest rest distance of a member from rcom, m */
  double *Arr_inv;    /* 9 per cluster, pseudo-inverse of A_rr */
  uint8_t *clamped;   /* A_rr^+ clamped a singular value: F^p = I */
  double *Fp, *Fp_inv;/* 9 each: plastic deformation and its inverse */
  double *hard;       /* accumulated hardening variable alpha (eq 14) */
  double *pcen;       /* 3: collision sphere centre (rest), m */
  double *radius;     /* collision sphere radius (rest), m */
  int32_t *ploff, *plcnt; /* collision half-spaces: [ploff, ploff + plcnt) in the plane pool */
  /* per-step scratch per cluster */
  double *com;        /* 3: world centre of mass at the start of the step */
  double *Rt;         /* 9: R F^p of strain limiting's current evaluation (the goal pass keeps its own in sl_T) */
  double *scom;       /* 3: centre of mass in the current strain-limiting iteration */
  double *Iinv;       /* 9: pseudo-inverse of the inertia about com (rigid-mode projection) */
  double *ga, *gw;    /* 3 each: removed mean and angular parts of the corrections */
  double *gpack;      /* SM_GPACK per cluster: what the goal gather reads, together (T, r_c, x_c, ga, gw);
                       * during strain limiting what its gather reads (sm_step.c) */
  double *sig, *Vp;   /* 3 and 9: singular values and right singular vectors of F^e (plasticity) */
  double *F;          /* 9: the current F of each proxy (sm_collide.c, refreshed per call) */
  double *Finv;       /* 9: its inverse (proxies), or zero when singular */
  double *msum;       /* SM_MSUM: member sums (xref, sx, A, C) and the SVD of F^e (U, sigma, V) at the
                       * positions of the last measure */
  uint8_t *mdead;     /* the measure wrote this deleted slot's constant values into mdead_out */
  const double *mdead_out; /* the F array of the unit fields those writes went to */
  uint8_t *mok;       /* msum of the cluster is current: measured last time and its members, weights and
                       * rest properties unchanged since (a fracture clears only the clusters it touched) */
  uint8_t *active;    /* strain limiting: the cluster clamped something this iteration */
  /* strain limiting, per cluster: the member sums at the current positions, kept up to date from
   * the members that moved (15: xref, sx, A); and the reference of the last full sweep of the
   * cluster's members: its transform (9) and centre (3), the largest goal distance of a member then,
   * and a bound on how far any member moved since. A cluster whose goals cannot have come within
   * reach of the limit skips the sweep (see sm_step.c). */
  double *sl_sum, *sl_T, *sl_y, *sl_g, *sl_d;
  /* and for a bound without the sums: the smallest singular value of F^e at the reference (0: none),
   * sum_i w~m |p_i| ||A_rr^+|| ||F^p^-1|| (how far F^e can move per unit of member displacement),
   * ||F^p||, and whether sl_sum is current */
  double *sl_s, *sl_k, *sl_f;
  uint8_t *sl_ok;
  /* a member of the cluster moved in the last strain-limiting iteration: sl_touch[c] == sl_mark,
   * marked from the moved particles' memberships (sl_mark grows by one per iteration) */
  uint32_t *sl_touch;
  uint32_t sl_mark;
  double *pabs;       /* sum over members of w~ m |X_i - r_c| (rest property) */
  uint8_t *clampc;    /* the cluster has held and free members (10x toughness, as the authors') */

  /* memberships */
  int64_t mtop, mcap; /* used pool length and capacity */
  int64_t memberships;/* live memberships (set when the reverse index is rebuilt) */
  int32_t *mp;        /* particle */
  int32_t *mc;        /* cluster */
  double *mw;         /* raw weight w_ic */
  double *mwt;        /* w_ic / W_i */
  double *mwm;        /* w_ic / W_i * m_i */
  double *mr;         /* 3: rest offset X_i - rcom_c (member sums and the goal pass stream it) */

  /* reverse index, particle-major: the memberships of particle i are a = pofs[i] .. pofs[i+1]-1,
   * pool entry plist[a], cluster pc[a], weight pwt[a] = w~; the per-particle gathers stream through
   * pc and pwt and recompute each membership's correction from per-cluster data */
  int32_t *pofs;
  int64_t *plist;
  int32_t *pc;
  double *pwt;
  int64_t plist_cap;

  /* incremental bookkeeping for fracture: the live memberships of particle i form a linked list
   * phead[i] -> mnext[k] -> ... (-1 ends it); pnm[i] counts them */
  int64_t *phead, *mnext;
  int32_t *pnm;
  /* split siblings for the proxies (the halves of a split do not collide):
   * cadj[cadj_ofs[c] .. cadj_ofs[c+1]) sorted */
  int32_t *cadj_ofs, *cadj;
  int64_t cadj_cap;
  int32_t *sib;       /* pairs (2 each) of clusters split from each other */
  int64_t nsib, sibcap;
  /* scratch for fracture and collisions, per cluster */
  int32_t *stamp;     /* event stamp of cached world centres */
  double *wcom;       /* 3: current world centre of mass */
  double *wrad;       /* current largest distance of a member from wcom */
  uint8_t *touched;   /* cluster needs its rest properties recomputed */
  int32_t *cpiece;    /* connected piece of each live cluster (proxies act between pieces only) */
  int32_t npieces;    /* pieces that hold clusters */
  int32_t *plabel;    /* per particle component label (scratch of the piece computation) */
  int32_t plabel_cap;
  void *spans;        /* sweep-and-prune list of the proxies (sm_collide.c), 16 bytes per cluster */

  /* collision planes: 4 doubles each (n, d) meaning the solid side n . X + d <= 0 in rest coords */
  double *planes;
  int64_t pltop, plcap;

  /* tests only: bit 1 turns off the reuse of the measure's sums, bit 2 the strain-limiting bounds
   * (every cluster is then summed and swept as in the plain algorithm), bit 4 the self-collision's
   * culling and root sets (sm_collide.c), bit 8 strain limiting's marks of the moved particles' clusters (the
   * member pass finds them instead), bit 16 the end velocities of step 2 (every particle's velocity
   * is then recomputed from its positions after strain limiting), bit 32 the goal pass's and strain
   * limiting's scatters (the per-particle gathers then run, as with threads) */
  int no_shortcuts;
  int64_t sl_marked;  /* strain-limiting iterations that used those marks, in total (tests) */
  int64_t sl_sweeps, sl_skips; /* strain limiting: member sweeps done and avoided by a bound, in total */
  int64_t sl_box_skips;        /* of the skips, those only the displacement box allowed (tests) */
  int64_t reused;     /* clusters whose goal pass took the measure's sums and SVD, in total */
  /* the goal pass's scatter (sm_step.c, one thread): each member's (e, q) of the pass's first
   * loop, 6 doubles per member of the largest cluster (gsc_cap members), and the steps that took it
   * (tests) */
  double *gsc;
  int64_t gsc_cap;
  int64_t scattered, sl_scattered; /* and the clamping clusters strain limiting's scatter summed */

  double mean_cluster_mass0;
  double time;
  cl_sm_stats stats;

  /* contact between bodies (sm_collide.c): the largest proxy world radius at the last refresh of
   * the proxies (0 = never refreshed), and whether the proxies predate the current positions
   * (set by the bounds op, cleared by the refresh in the pair op) */
  double contact_rmax;
  int contact_stale;

  /* sm_collide.c: pushes of particles out of the proxies of other pieces, in total (tests); with
   * bit 4 of no_shortcuts the pairs are handled one by one, as the plain algorithm */
  int64_t proxy_pushes;

  /* self-collision culling (sm_collide.c): per cluster the box of its members (6: min, max), the
   * rounding margin of its world planes (1e-11 (a + b M), see sm_collide.c), its proxy planes carried
   * into the world (4 per plane, indexed as planes: m . (x - wcom) + k), the proxies packed in sweep
   * order (x, y, z, r: 4 each) and that order kept from the last call (insertion sort); capacities
   * in clusters and planes (ctol: one margin per cluster); cpos is per-cluster scratch (during and after the pushes: a member of the
   * cluster was pushed), cull_track whether push_out keeps it and moved. Only shortcuts: a cull never changes a
   * result. proxy_culled counts the pair directions skipped (tests). */
  double *cbox, *ctol, *cwpl, *csw;
  /* and the boxes of each proxy's members in blocks of SM_BLOCK consecutive pool entries (the
   * particles are Morton-sorted and a cluster's members sorted by index, so a block is a small
   * patch of the body), and of SM_SUPER consecutive blocks (a superblock, its box before its
   * blocks'): 6 doubles per box, cluster c's from bfirst[c]; capacity bcap boxes. A direction
   * whose box is not culled tests a superblock's blocks only when the superblock's box is not
   * culled, and a block's members only when the block's box is not culled either (the same test on
   * smaller boxes: no result changes). btested: per block of the proxy being pushed, whether the
   * current direction tested its members (btcap blocks). */
  double *bbox;
  int64_t *bfirst;
  int64_t bcap, btcap;
  uint8_t *btested;
  /* per cluster during the pushes, the pool entries (from moff) of its members pushed so far in the
   * call, as lists: cpos[c] = 1 + the newest entry, pk_next[e] = 1 + the one before (0 ends),
   * pk_k[e] the entry; filled at a particle's first push from the reverse index, so a cluster's
   * turn starts from its list instead of a pass over its members (the armadillo's ~150 marked
   * clusters of ~1800 members per frame). pk_n used, pk_cap capacity; pk_k NULL: no room. */
  int32_t *pk_k, *pk_next;
  int64_t pk_n, pk_cap;
  int32_t *cord, *cpos;
  int32_t cull_cap, nord;
  int cull_track;
  double cull_mag;
  uint32_t *cstamp, cull_call; /* world planes of the cluster computed in call cull_call */
  /* proxy_origins: per original particle (st->origin followed to its root), the last pair test
   * that marked it (ostamp_now); capacity ocap */
  uint32_t *ostamp, ostamp_now;
  int32_t ocap;
  /* and per cluster the set of its members' roots as a bitset over the words [rlo, rlo + rnw) of
   * the original particles (rbits[c], capacity rcap[c] words), current when rok[c] (a fracture
   * that changes the cluster's members clears it: cl_sm_pairs_forget); rcl_cap clusters. Whether
   * two clusters share a root is then an AND over the words their ranges share. */
  uint64_t **rbits;
  int32_t *rlo, *rnw, *rcap;
  uint8_t *rok;
  int32_t rcl_cap;
  int64_t roots_built; /* root sets built, in total (tests; bit 4 of no_shortcuts takes the stamps) */
  /* proxies_act's answers (sm_collide.c), by pair: open addressing on the key (lo + 1) << 32 | (hi
   * + 1) (0 = empty slot), pa_cap slots (a power of two), pa_count used. The answer depends on
   * the two clusters' members (and, without proxy_whole, on the pieces) only: topology_changed
   * drops the answers it may change (cl_sm_pairs_forget). */
  uint64_t *pa_key;
  uint8_t *pa_val;
  int64_t pa_cap, pa_count;
  int64_t cwpl_cap;
  int64_t proxy_culled;
  int64_t proxy_bculled; /* blocks of members skipped in directions not culled as a whole (tests) */
  int64_t proxy_rculled; /* of those, the blocks the rest-sphere test skipped (tests) */
  int64_t proxy_sculled; /* superblocks skipped as a whole (tests) */
  /* the pairs of proxies of a self-collision call (cpr: 2 sweep positions each) and every proxy's
   * partners in CSR by sweep position (cpofs: m + 1, cpart: the partner's sweep position); capacity
   * in pairs */
  int32_t *cpr, *cpofs, *cpart;
  int64_t cpr_cap;
  /* the proxies of the last self-collision call kept their member sums in msum (with the moments,
   * cl_sm_cluster_F_keep), and cpos says which clusters had a member pushed after: the measure takes
   * the sums of the others (their members have not moved since). Cleared at every step's start and
   * by the contact op between bodies, which moves particles. */
  int psum_ok;
  int64_t psum_reused; /* measures that took the proxies' sums, in total (tests) */
  /* topology bookkeeping (sm_props.c, sm_fracture.c, sm_solver.c): topology_changed updates the
   * membership lists, the reverse index, the bonds and the pieces only where the fracture op changed
   * something, and the sibling lists by the pairs added (rebuilds from scratch: bind, compaction).
   * A particle is marked (tdirty, listed in tdlist[0..tdcount)) when a membership of it is linked,
   * unlinked or moved in the pool (its weights w~ change only then, see sm_fracture.c), and so is
   * the cluster of that membership (cdirty, cdlist[0..cdcount)). Every other particle keeps its
   * reverse-index entries and every other cluster its bonds bit for bit; only their offsets shift.
   * rn is the particle count the reverse index was built for; bofs[c] is the first bond of cluster c
   * and bncl the cluster count the bonds were built for (bofs[bncl] = their count).
   * uf is a union-find parent per cluster slot (pieces: clusters sharing a particle are one piece),
   * pmap a map from old to new piece labels, pncl the cluster count the pieces were computed for;
   * calone[c]: cluster c was the only cluster of its piece then, so none of its members belonged to
   * another cluster, and none can since (clusters and existing particles never gain memberships):
   * the fracture op's outlier test, which looks at shared members only, skips it.
   * The sibling lists (cadj) were built for ancl clusters and asib pairs; agrow is a per-slot
   * scratch of their update, zero between calls.
   * orest, per pool entry: the outlier test's rest distance max(|X_i - r_c|, width_c / 10), set by
   * cluster_props with the offsets it depends on, so the outlier pass after every fracturing step
   * reads one double per membership instead of recomputing a norm from mr. */
  uint8_t *tdirty, *cdirty, *calone;
  int32_t *tdlist, *cdlist;
  int32_t tdcount, cdcount;
  int32_t rn, bncl, pncl, ancl;
  int64_t asib;
  int32_t *bofs;
  int32_t *uf, *pmap, *agrow;
  double *orest;
} cl_sm;

/* ---- sm_particles.c ----------------------------------------------------------------------- */
/* Fill state (n, X, x, m, v = 0) from the bind input; reports spacing and particle volume. */
cl_status cl_sm_make_particles(cl_sm *s, const cl_bind_input *in, cl_body_state *state, double *body_volume);

/* ---- sm_cluster.c ------------------------------------------------------------------------- */
/* Fuzzy c-means clustering of the rest positions; fills the membership pool and clusters. */
cl_status cl_sm_cluster(cl_sm *s, const cl_body_state *state, double body_volume, uint64_t seed);

/* ---- sm_props.c --------------------------------------------------------------------------- */
cl_status cl_sm_grow_particles(cl_sm *s, int32_t n);
cl_status cl_sm_grow_clusters(cl_sm *s, int32_t ncl);
cl_status cl_sm_grow_pool(cl_sm *s, int64_t need);
cl_status cl_sm_grow_planes(cl_sm *s, int64_t need);
/* W_i and membership counts from the pool (live clusters). */
void cl_sm_particle_weights(cl_sm *s, const cl_body_state *st);
/* Recompute w~ and w~ m of the memberships of cluster c, then its mass, rest centre, offsets,
 * width and A_rr^+ (F^p = I when the pseudo-inverse clamps). */
void cl_sm_cluster_props(cl_sm *s, const cl_body_state *st, int32_t c);
/* Rebuild the per-particle reverse index (CSR) from the pool. */
cl_status cl_sm_reverse_index(cl_sm *s, int32_t n);
/* Bonds for the world (cell_size 2): a star per live cluster, so particles sharing a cluster are
 * one piece. Bumps nothing (the world bumps topology_version after fracture). */
cl_status cl_sm_bonds(cl_sm *s, cl_body_state *st);
/* Per-particle membership lists (phead, mnext, pnm) from the pool. */
void cl_sm_link_lists(cl_sm *s, int32_t n);
/* Record that clusters a and b were split from each other (they do not collide). */
cl_status cl_sm_add_sibling(cl_sm *s, int32_t a, int32_t b);
/* Sibling lists (cadj) for the proxies. */
cl_status cl_sm_adjacency(cl_sm *s, int32_t n);
/* Piece label of every live cluster from the bonds (after cl_sm_bonds). */
cl_status cl_sm_pieces(cl_sm *s, const cl_body_state *st);
/* The same partition from the pool (union-find over cluster slots, clusters sharing a particle are
 * one piece): cpiece numbered 0..npieces-1 in order of each piece's lowest slot. */
cl_status cl_sm_pieces_from_lists(cl_sm *s, int32_t n);
/* The pieces after a fracture: only pieces holding a marked cluster can have split (pieces never
 * merge), so only their clusters are joined again; the same labels as cl_sm_pieces_from_lists. */
cl_status cl_sm_pieces_update(cl_sm *s, int32_t n);
/* Put the membership list of every marked particle (tdirty) back in pool order (the order
 * cl_sm_link_lists gives), as the fracture op's edits prepend. */
void cl_sm_relink_marked(cl_sm *s);
/* The reverse index after a fracture: marked particles and those added since the last build are
 * rewritten from their (pool-ordered) lists, the others' entries moved. The same arrays as
 * cl_sm_reverse_index from scratch. */
cl_status cl_sm_reverse_index_update(cl_sm *s, int32_t n);
/* The bonds after a fracture: marked clusters rewritten, the others moved; the same cells as
 * cl_sm_bonds from scratch (which also records bofs for this update). */
cl_status cl_sm_bonds_update(cl_sm *s, cl_body_state *st);
/* The sibling lists after a fracture: the pairs added since the last build inserted; the same
 * lists as cl_sm_adjacency from scratch. */
cl_status cl_sm_adjacency_update(cl_sm *s);
/* Drop the particle and cluster marks (topology_changed, after the updates or a rebuild). */
void cl_sm_clear_marks(cl_sm *s);
/* Initial collision half-spaces where a cluster's sphere sticks out of the body. */
cl_status cl_sm_boundary_planes(cl_sm *s, const cl_body_state *st);

/* ---- sm_step.c ---------------------------------------------------------------------------- */
static inline int cl_sm_parallel(const cl_sm *s) { return s->ncl >= 32 && s->memberships >= SM_PAR_MEMBERSHIPS; }
/* The chunk of the dynamic schedule of the loops over cluster slots: about 16 chunks per thread
 * (a chunk of 4 slots put two threads' writes of small per-cluster values, sl_g or clampc, in one
 * cache line, and a shattered body has over a thousand slots: 350 chunk hand-outs per loop); one
 * chunk without threads. */
static inline int cl_sm_chunk(const cl_sm *s) {
  if (!cl_sm_parallel(s)) return s->ncl > 0 ? s->ncl : 1;
  const int per = s->ncl / (16 * (s->threads > 0 ? s->threads : 1));
  return per > 4 ? per : 4;
}
cl_status cl_sm_step(cl_sm *s, cl_body_state *st, const cl_step_input *in, cl_step_report *rep);
/* World centre of mass and F = A_xr A_rr^+ of cluster c at the current positions (eqs 3, 7). */
void cl_sm_cluster_F(const cl_sm *s, const cl_body_state *st, int32_t c, double *com, cl_mat3 *F);
/* The same, also keeping the cluster's member sums (with the second moments) in msum so that the
 * next step's goal pass can reuse them when the positions have not changed since (one sweep over
 * the memberships less per step; bitwise the same result). */
void cl_sm_cluster_F_keep(cl_sm *s, const cl_body_state *st, int32_t c, double *com, cl_mat3 *F);
/* The rotation R of F^e (eq 5: the polar factor, U V^T of the SVD) and what else a step needs of
 * it. Bodies with plasticity take the SVD (eqs 10-14 need Sigma and V). Without plasticity a nearly
 * orthogonal F^e (||F^e^T F^e - I||_F <= 0.2: most clusters, which move almost rigidly) takes the
 * Newton-Schulz polar factor (cl_polar3_near: the same R to rounding, at a fraction of the SVD's
 * cost), with sigma_min >= sqrt(1 - delta) for strain limiting's bounds; the others the SVD. */
typedef struct cl_sm_decomp {
  cl_mat3 R;    /* U V^T */
  cl_mat3 U, V; /* svd only */
  cl_vec3 sig;  /* svd only: the singular values, descending, the last signed */
  double smin;  /* the smallest singular value (svd), or a lower bound of it (>= 0.89) */
  int svd;      /* 1: U, sig, V are set */
} cl_sm_decomp;
/* Decompose F^e of a cluster of s; -1 when F^e is not finite (d is then the identity). */
int cl_sm_decompose(const cl_sm *s, const cl_mat3 *Fe, cl_sm_decomp *d);
/* World centre and F of cluster c from the member sums kept in msum (bitwise those of
 * cl_sm_cluster_F_keep at the positions it saw). */
void cl_sm_cluster_F_kept(const cl_sm *s, int32_t c, double *com, cl_mat3 *F);
/* Keep the decomposition the measure computed from that F, for the same reuse (msum). */
void cl_sm_keep_decomp(cl_sm *s, int32_t c, const cl_sm_decomp *d);

/* ---- sm_plastic.c ------------------------------------------------------------------------- */
/* Update F^p and the hardening variable of cluster c from the SVD of F^e (eqs 10-14). */
void cl_sm_plastic_update(cl_sm *s, int32_t c, double dt);

/* ---- sm_measure.c ------------------------------------------------------------------------- */
cl_status cl_sm_measure(cl_sm *s, const cl_body_state *st, cl_unit_fields *out);
cl_status cl_sm_energy(cl_sm *s, const cl_body_state *st, double *e);
cl_status cl_sm_volume(cl_sm *s, const cl_body_state *st, double *v);

/* ---- sm_fracture.c ------------------------------------------------------------------------ */
cl_status cl_sm_fracture(cl_sm *s, cl_body_state *st, const cl_fracture_event *ev, int32_t count, int32_t *applied);
/* Forget the kept answers of which proxy pairs act on each other: of the pairs with a cluster the
 * fracture op marked (cdirty: its members changed), or of every pair when pieces decide too
 * (proxy_whole off). Called by topology_changed before the marks are cleared. */
void cl_sm_pairs_forget(cl_sm *s);

/* ---- sm_collide.c ------------------------------------------------------------------------- */
/* Push particles out of the proxies of clusters they do not belong to (positions of free particles
 * only; velocities follow from the position change). */
void cl_sm_self_collide(cl_sm *s, cl_body_state *st, double dt);
/* Free the culling scratch of the self-collision (sm_destroy). */
void cl_sm_collide_release(cl_sm *s);
/* Contact between two shape-matching bodies (solver.h, contact_bounds and contact_pair of the
 * solver table): particles of each against the other's cluster proxies, with the reaction on the
 * proxy's cluster. It reads what the last step left: xold (step-start positions, with
 * x = xold + dt v for free particles), com and Iinv of every live cluster at those positions; the
 * momentum checks of tests/c/test_sm_bodies_contact.c fail if the step stops providing them. */
cl_status cl_sm_contact_bounds(void *solver, const cl_body_state *st, double *lo, double *hi);
cl_status cl_sm_contact_pair(void *a, cl_body_state *sa, const cl_constraint_set *ca, void *b, cl_body_state *sb,
                             const cl_constraint_set *cb, double dt, cl_contact_report *report);

#endif
