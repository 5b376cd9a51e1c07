#include "support/test_meshes.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

const char *cl_test_path(const char *prefix, const char *name) {
  static char buf[4][1024];
  static int k = 0;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s%s", prefix, name);
  return buf[k];
}

cl_mesh *cl_test_box(double sx, double sy, double sz) {
  cl_shape_def sd;
  cl_shape_def_default(&sd, CL_SHAPE_BOX);
  sd.size[0] = sx;
  sd.size[1] = sy;
  sd.size[2] = sz;
  cl_mesh *m = NULL;
  cl_status s = cl_shape_build(&sd, &m);
  if (s != CL_OK) fail_msg("box %g x %g x %g: %s", sx, sy, sz, cl_last_error());
  return m;
}
