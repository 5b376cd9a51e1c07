/* Worlds the C tests share. Failures are cmocka failures (the test stops). */
#ifndef CL_TEST_WORLDS_H
#define CL_TEST_WORLDS_H

#include <stdint.h>

#include "cleave/world.h"

struct cl_body;
typedef struct cl_body cl_body;

/* A world with time step dt (s), gravity (0, gy, 0) m/s^2 and `threads` OpenMP threads (0 = all
 * cores); everything else as cl_world_def_default leaves it. */
cl_world *cl_test_world(double dt, double gy, int32_t threads);
/* The same with the world's random seed set (sampling and clustering depend on it). */
cl_world *cl_test_world_seeded(double dt, double gy, int32_t threads, uint64_t seed);
/* The private data of a body's solver (tests that look inside one solver cast it). */
void *cl_test_body_solver(cl_world *w, cl_id body);
/* Add a body of `solver` on mesh m with the given solver parameters; criterion NULL for none, else
 * with its parameters. The error message is printed before the failure. */
cl_id cl_test_add_body(cl_world *w, const char *solver, const cl_mesh *m, const cl_param *params, int32_t nparams,
                       const char *criterion, const cl_param *cparams, int32_t ncparams);
/* Damage edge (a, b) of a body to d in [0, 1] through its solver's topology operation, as the world
 * does (a damage_edge event), and bump the body's topology version when it applied. */
void cl_test_damage_edge(cl_world *w, cl_id body, int32_t a, int32_t b, double d);
/* A copy (malloc'd, the caller frees it) of a body's current positions, 3 n doubles; *n = nodes. */
double *cl_test_positions(cl_world *w, cl_id body, int32_t *n);
/* Hold (fixed, vx = 0) or move (translate at velocity vx along x) the nodes whose x lies in
 * [lo, hi]; returns the condition. */
cl_id cl_test_x_slab(cl_world *w, cl_id body, double lo, double hi, double vx);
/* A sphere collider of `radius` starting at (0, 0, z) and moving along z at vz: dynamic with that
 * mass when mass > 0, kinematic (a projectile nothing slows) when mass = 0; returns the collider. */
cl_id cl_test_sphere_along_z(cl_world *w, double radius, double z, double vz, double mass);

/* The contact tests' block: a cube of 0.1 m (4 x 4 x 4 cells, 384 tets) of `solver` with the given
 * parameters, E 1e6 Pa, nu 0.3, density 1000, its underside `gap` above a floor plane y = 0 of
 * friction mu, in a world of dt = 1/200 s under gravity (one thread); the body in the returned world's
 * body list. */
cl_body *cl_test_block_on_floor(cl_world **w, const char *solver, double gap, double mu, const cl_param *params,
                                int32_t nparams);

/* The statics tests' block: a cube of 0.1 m (8 x 8 x 8 cells) of `solver` with a converged block-Jacobi
 * PCG (tolerance 1e-12), held on its face x = 0, in a world without gravity (dt 0.01 s, one thread);
 * its id in *body, the holding condition in *held. */
cl_world *cl_test_held_cube(const char *solver, cl_id *body, cl_id *held);

#endif
