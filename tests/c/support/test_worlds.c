#include "support/test_worlds.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

cl_world *cl_test_world(double dt, double gy, int32_t threads) {
  cl_world_def def;
  cl_world_def_default(&def);
  def.dt = dt;
  def.gravity[0] = def.gravity[2] = 0.0;
  def.gravity[1] = gy;
  def.threads = threads;
  cl_world *w = NULL;
  cl_status s = cl_world_create(&def, &w);
  if (s != CL_OK) fail_msg("cl_world_create (dt %g, gy %g, %d threads): %s", dt, gy, (int)threads, cl_last_error());
  return w;
}
