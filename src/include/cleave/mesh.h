/* Meshes: surfaces, tetrahedral meshes and point sets; readers, writers, TetGen meshing,
 * procedural shapes, particle sampling. A cl_mesh is an opaque handle owned by the caller. */
#ifndef CLEAVE_MESH_H
#define CLEAVE_MESH_H

#ifndef CL_FFI_CDEF
#include "cleave/status.h"
#ifdef __cplusplus
extern "C" {
#endif
#endif

typedef struct cl_mesh cl_mesh;

typedef enum cl_mesh_kind {
  CL_MESH_POINTS = 0,    /* point set (particles): no cells */
  CL_MESH_TRIANGLES = 1, /* triangle surface, counter-clockwise seen from outside */
  CL_MESH_TETS = 2       /* tetrahedra with positive volume det[x1-x0, x2-x0, x3-x0] / 6 > 0 */
} cl_mesh_kind;

typedef enum cl_field_location { CL_FIELD_POINT = 0, CL_FIELD_CELL = 1 } cl_field_location;

/* Counts and bounds of a mesh. */
typedef struct cl_mesh_info {
  cl_mesh_kind kind;
  int32_t points;        /* number of points (vertices, nodes, particles) */
  int32_t cells;         /* number of triangles or tetrahedra (0 for points) */
  int32_t fields;        /* number of attached data fields */
  double lo[3], hi[3];   /* axis-aligned bounding box, m */
  double measure;        /* tets: total volume m^3; triangles: enclosed volume m^3 (divergence theorem) */
} cl_mesh_info;

/* ---- reading and writing -------------------------------------------------------------------- */

/* Read a mesh; the format follows the extension: .off .obj .stl (ascii or binary) surfaces;
 * .node (with .ele beside it: tets, else points) and .ele TetGen files; .mesh (MEDIT, tets or
 * triangles). Errors name the file and line (CL_ERR_PARSE), or the file (CL_ERR_IO). Input is
 * checked: counts, NaN/Inf coordinates, indices out of range, repeated vertices in a cell,
 * zero-volume tets; inverted tets are an error too (their orientation says the file is wrong). */
cl_status cl_mesh_read(const char *path, cl_mesh **out);

/* Write a mesh; the format follows the extension: .vtu (VTK XML, with point and cell data),
 * .obj and .off (triangles), .node/.ele/.face (TetGen; give the .node path), .mesh (MEDIT). */
cl_status cl_mesh_write(const cl_mesh *mesh, const char *path);

/* Build a mesh from arrays (copied). cells holds 3 (triangles) or 4 (tets) indices per cell,
 * zero-based; it is ignored for CL_MESH_POINTS. The same checks as cl_mesh_read apply. */
cl_status cl_mesh_from_arrays(cl_mesh_kind kind, const double *xyz, int32_t npoints,
                              const int32_t *cells, int32_t ncells, cl_mesh **out);
cl_status cl_mesh_copy(const cl_mesh *mesh, cl_mesh **out);
void cl_mesh_destroy(cl_mesh *mesh);

cl_status cl_mesh_get_info(const cl_mesh *mesh, cl_mesh_info *info);
/* Copy out coordinates (3 per point, capacity in doubles) and cell indices (capacity in ints). */
cl_status cl_mesh_copy_points(const cl_mesh *mesh, double *xyz, int64_t capacity);
cl_status cl_mesh_copy_cells(const cl_mesh *mesh, int32_t *cells, int64_t capacity);

/* Attach a data field (copied) written to .vtu: ncomp values per point or per cell. Replaces a
 * field with the same name. */
cl_status cl_mesh_set_field(cl_mesh *mesh, const char *name, cl_field_location where,
                            int32_t ncomp, const double *values, int64_t count);

/* x <- A x + t for every point, with A a row-major 3x3 (9 doubles) and t 3 doubles. A with
 * negative determinant also flips cell orientation so cells stay positively oriented. */
cl_status cl_mesh_transform(cl_mesh *mesh, const double *A, const double *t);
/* Scale uniformly about the bounding-box centre, then move that centre to `center` (3 doubles),
 * so that the largest extent equals `size` m. Used to bring scanned meshes to metres. */
cl_status cl_mesh_fit(cl_mesh *mesh, double size, const double *center);

/* ---- topology ------------------------------------------------------------------------------- */

/* Boundary triangles of a tet mesh (faces used by exactly one tet), outward oriented, sharing the
 * tet mesh's point numbering (unused points kept). */
cl_status cl_mesh_boundary(const cl_mesh *tets, cl_mesh **surface_out);
/* Number of connected components (cells sharing a vertex are connected; points count alone). */
cl_status cl_mesh_components(const cl_mesh *mesh, int32_t *count);
/* Check that a surface is closed and edge-manifold (every edge in exactly two triangles with
 * opposite orientation). Returns CL_ERR_MESH with the first offending edge otherwise. */
cl_status cl_mesh_check_closed(const cl_mesh *surface);
/* 1 if p (3 doubles) is inside the closed surface, else 0 (generalised winding number). */
cl_status cl_mesh_contains(const cl_mesh *surface, const double *p, int32_t *inside);

/* ---- TetGen --------------------------------------------------------------------------------- */

/* A refinement zone of a graded mesh (cl_tetgen_def.zones). A tet that reaches into the box
 * [lo, hi] must have no edge longer than `size`; a tet at a distance d from the box (between the box
 * and the tet's bounding box) no edge longer than size + growth d, so the mesh coarsens smoothly away
 * from it (growth 0: the bound holds in the box only). With several zones the smallest bound wins;
 * max_volume still applies everywhere. A point is a box with lo = hi. */
typedef struct cl_mesh_size_zone {
  double lo[3], hi[3]; /* m, lo <= hi componentwise */
  double size;         /* m, > 0: the longest edge allowed in the box */
  double growth;       /* 1 (m of edge per m of distance), >= 0 */
} cl_mesh_size_zone;

typedef struct cl_tetgen_def {
  double max_radius_edge; /* quality bound on radius-edge ratio (TetGen -q); 0 = no quality; >= 1.0 */
  double min_dihedral;    /* minimal dihedral angle bound, degrees (TetGen -q/..); 0 = TetGen's default */
  double max_volume;      /* largest tet volume, m^3 (TetGen -a); 0 = unbounded */
  int32_t max_steiner;    /* cap on added Steiner points (TetGen -S); -1 = unbounded */
  int32_t verbose;        /* 0 silent, 1 TetGen statistics to stdout */
  const cl_mesh_size_zone *zones; /* graded refinement (NULL = none); read during the call only.
                                   * Needs the quality refinement (max_radius_edge >= 1) */
  int32_t zone_count;     /* number of zones */
} cl_tetgen_def;
void cl_tetgen_def_default(cl_tetgen_def *def);
/* Tetrahedralize a closed surface. A surface that is not closed or that self-intersects gets
 * CL_ERR_MESH naming the problem; never a crash. */
cl_status cl_mesh_tetrahedralize(const cl_mesh *surface, const cl_tetgen_def *def, cl_mesh **out);

/* ---- procedural shapes (closed triangle surfaces, metres, centred at the origin) ------------ */

typedef enum cl_shape_kind {
  CL_SHAPE_BOX = 0,          /* size[0..2] */
  CL_SHAPE_PLATE = 1,        /* thin box: size[0] x size[1] x thickness (size[2]) */
  CL_SHAPE_CYLINDER = 2,     /* radius, height along z, segments */
  CL_SHAPE_ICOSPHERE = 3,    /* radius, subdivisions */
  CL_SHAPE_HOLLOW_SPHERE = 4,/* radius, inner_radius, subdivisions (two nested shells) */
  CL_SHAPE_CHARPY = 5,       /* ISO 148-1 V-notch specimen; size scales 55 x 10 x 10 mm uniformly */
  CL_SHAPE_NOTCHED_BEAM = 6, /* size[0..2] (length x height x depth), notch_depth, notch_width */
  CL_SHAPE_HEART = 7         /* a heart of the given size[0..2] bounding box */
} cl_shape_kind;

typedef struct cl_shape_def {
  cl_shape_kind kind;
  double size[3];            /* m; box/plate/notched beam extents; heart bounding box */
  double radius;             /* m; cylinder, spheres */
  double inner_radius;       /* m; hollow sphere cavity, < radius */
  double height;             /* m; cylinder */
  double notch_depth;        /* m; notched beam (Charpy: 2 mm at scale 1) */
  double notch_width;        /* m; notched beam slot width (0 = V-notch of notch_angle) */
  double notch_angle;        /* degrees; V-notch opening (Charpy 45) */
  double notch_root_radius;  /* m; V-notch root radius (Charpy 0.25 mm) */
  double scale;              /* Charpy: 1 = the standard 55 mm specimen */
  int32_t segments;          /* cylinder, notch root arc, heart: resolution (>= 3) */
  int32_t subdivisions;      /* icosphere levels, 0..7 */
} cl_shape_def;
/* Fill with the defaults of `kind` (a unit box, the standard Charpy specimen, ...). */
void cl_shape_def_default(cl_shape_def *def, cl_shape_kind kind);
cl_status cl_shape_build(const cl_shape_def *def, cl_mesh **surface_out);

/* Remove the parts of a mesh inside spheres (Swiss cheese): tets whose centroid lies inside any
 * sphere, or points inside any sphere. centers: 3 doubles per sphere, radii: m. */
cl_status cl_mesh_carve_spheres(cl_mesh *mesh, const double *centers, const double *radii,
                                int32_t count);

/* ---- particle sampling inside a closed surface --------------------------------------------- */

typedef enum cl_sampling { CL_SAMPLE_GRID = 0, CL_SAMPLE_POISSON = 1 } cl_sampling;
typedef struct cl_sample_def {
  cl_sampling method;  /* regular grid or Bridson's Poisson disk */
  double spacing;      /* m; grid step, or Poisson minimum distance; > 0 */
  uint64_t seed;       /* Poisson disk: same seed, same samples */
  int32_t attempts;    /* Bridson's k, candidates per active sample (default 30) */
} cl_sample_def;
void cl_sample_def_default(cl_sample_def *def);
/* Sample points inside a closed surface; the result is a CL_MESH_POINTS mesh. */
cl_status cl_mesh_sample(const cl_mesh *surface, const cl_sample_def *def, cl_mesh **points_out);

#ifndef CL_FFI_CDEF
#ifdef __cplusplus
}
#endif
#endif
#endif
