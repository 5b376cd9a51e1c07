/* A tet mesh handed to an FEM solver's bind: checked (tets, node indices in range, no node outside
 * every tet) and copied into the body state (x = X = the mesh points, v = 0, the cells). Shared by
 * the corotational and graph-based FEM solvers, so both refuse the same bad meshes with the same
 * words. */
#ifndef CL_FEM_MESH_STATE_H
#define CL_FEM_MESH_STATE_H

#include "cleave/status.h"
#include "contract/state.h"
#include "geom/mesh.h"

/* CL_ERR_MESH naming the solver and what to do for a mesh that is not tets, a tet that refers to a
 * node outside the mesh, or nodes in no tet (they would have no mass and no stiffness). On success
 * st holds the mesh's nodes at rest with zero velocity and its tets as cells. */
cl_status cl_fem_state_from_mesh(const cl_mesh *m, const char *solver, cl_body_state *st);

#endif
