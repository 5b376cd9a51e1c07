/* Worlds the C tests share. Failures are cmocka failures (the test stops). */
#ifndef CL_TEST_WORLDS_H
#define CL_TEST_WORLDS_H

#include <stdint.h>

#include "cleave/world.h"

/* A world with time step dt (s), gravity (0, gy, 0) m/s^2 and `threads` OpenMP threads (0 = all
 * cores); everything else as cl_world_def_default leaves it. */
cl_world *cl_test_world(double dt, double gy, int32_t threads);

#endif
