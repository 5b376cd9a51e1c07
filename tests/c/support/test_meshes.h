/* Small meshes the C tests share. Failures are cmocka failures (the test stops). */
#ifndef CL_TEST_MESHES_H
#define CL_TEST_MESHES_H

#include "cleave/mesh.h"

/* Closed box surface of the given extents (m), centred at the origin. */
cl_mesh *cl_test_box(double sx, double sy, double sz);
/* "<prefix><name>" in a ring of four static buffers (so a call can take a few paths at once): the
 * scratch files of a test, under the build tree. */
const char *cl_test_path(const char *prefix, const char *name);

#endif
