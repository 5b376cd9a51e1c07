/* Writes the .vtu files that check_vtu.py reads back with VTK, and expected.json listing what each
 * file must contain (points, cells, fields), so the Python side compares against the mesh cleave
 * held rather than against a copy of the numbers. Public API only.
 * Usage: vtk_write_samples OUTPUT_DIR */
#include <stdio.h>
#include <stdlib.h>

#include "cleave/mesh.h"

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cl_status s_ = (call);                                                                 \
    if (s_ != CL_OK) {                                                                     \
      fprintf(stderr, "%s failed: %s: %s\n", #call, cl_status_name(s_), cl_last_error()); \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

typedef struct field {
  const char *name;
  cl_field_location where;
  int32_t ncomp;
  double values[64];
} field;

static void json_numbers(FILE *f, const double *v, int64_t n) {
  fputc('[', f);
  for (int64_t i = 0; i < n; ++i) fprintf(f, "%s%.17g", i ? ", " : "", v[i]);
  fputc(']', f);
}

/* Attach the fields, write DIR/NAME.vtu and its entry in the JSON. */
static void sample(FILE *json, const char *dir, const char *name, cl_mesh *m, int vtk_type, field *fields,
                   int nfields, int last) {
  cl_mesh_info info;
  CHECK(cl_mesh_get_info(m, &info));
  for (int i = 0; i < nfields; ++i) {
    int64_t count = fields[i].where == CL_FIELD_POINT ? info.points : info.cells;
    CHECK(cl_mesh_set_field(m, fields[i].name, fields[i].where, fields[i].ncomp, fields[i].values, count));
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.vtu", dir, name);
  CHECK(cl_mesh_write(m, path));

  int cs = info.kind == CL_MESH_TETS ? 4 : info.kind == CL_MESH_TRIANGLES ? 3 : 0;
  double *x = malloc(sizeof(double) * 3 * (size_t)info.points);
  int32_t *c = malloc(sizeof(int32_t) * (size_t)(cs * info.cells + 1));
  if (!x || !c) exit(1);
  CHECK(cl_mesh_copy_points(m, x, 3 * (int64_t)info.points));
  CHECK(cl_mesh_copy_cells(m, c, (int64_t)cs * info.cells));
  fprintf(json, "  \"%s\": {\n    \"file\": \"%s.vtu\",\n    \"cell_type\": %d,\n    \"cell_size\": %d,\n", name,
          name, vtk_type, cs ? cs : 1);
  fprintf(json, "    \"points\": ");
  json_numbers(json, x, 3 * (int64_t)info.points);
  fprintf(json, ",\n    \"cells\": [");
  if (cs)
    for (int64_t i = 0; i < (int64_t)cs * info.cells; ++i) fprintf(json, "%s%d", i ? ", " : "", c[i]);
  else /* a point set is written with one vertex cell per point */
    for (int64_t i = 0; i < info.points; ++i) fprintf(json, "%s%lld", i ? ", " : "", (long long)i);
  fprintf(json, "],\n    \"fields\": [\n");
  for (int i = 0; i < nfields; ++i) {
    int64_t count = fields[i].where == CL_FIELD_POINT ? info.points : info.cells;
    fprintf(json, "      {\"name\": \"%s\", \"where\": \"%s\", \"ncomp\": %d, \"values\": ", fields[i].name,
            fields[i].where == CL_FIELD_POINT ? "point" : "cell", fields[i].ncomp);
    json_numbers(json, fields[i].values, count * fields[i].ncomp);
    fprintf(json, "}%s\n", i + 1 < nfields ? "," : "");
  }
  fprintf(json, "    ]\n  }%s\n", last ? "" : ",");
  free(x);
  free(c);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  const char *dir = argv[1];
  /* the unit cube as TetGen 1.5 splits it (tetgen -pQ cube.off), stretched and moved so that the
   * coordinates are not round numbers */
  static const double cube[24] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
  static const int32_t tets[24] = {0, 3, 7, 2, 0, 7, 4, 6, 5, 0, 4, 6, 0, 7, 6, 2, 5, 0, 6, 1, 6, 0, 2, 1};
  static const int32_t tris[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                   1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
  const double A[9] = {0.3, 0.0, 0.0, 0.0, 1.0 / 7.0, 0.0, 0.0, 0.0, 2.5};
  const double t[3] = {-1.0 / 3.0, 1e-3, 12.25};

  char path[4096];
  snprintf(path, sizeof path, "%s/expected.json", dir);
  FILE *json = fopen(path, "w");
  if (!json) {
    perror(path);
    return 1;
  }
  fprintf(json, "{\n");

  cl_mesh *m;
  CHECK(cl_mesh_from_arrays(CL_MESH_TETS, cube, 8, tets, 6, &m));
  CHECK(cl_mesh_transform(m, A, t));
  field tf[4] = {{"temperature", CL_FIELD_POINT, 1, {0}}, {"velocity", CL_FIELD_POINT, 3, {0}},
                 {"stress", CL_FIELD_CELL, 9, {0}}, {"damage", CL_FIELD_CELL, 1, {0}}};
  for (int i = 0; i < 8; ++i) {
    tf[0].values[i] = 293.15 + 0.1 * i;
    tf[1].values[3 * i] = i;
    tf[1].values[3 * i + 1] = -i / 3.0;
    tf[1].values[3 * i + 2] = 1e-3 * i;
  }
  for (int c = 0; c < 6; ++c) {
    for (int k = 0; k < 9; ++k) tf[2].values[9 * c + k] = 10.0 * c + k + 0.25;
    tf[3].values[c] = c / 6.0;
  }
  sample(json, dir, "tets", m, 10, tf, 4, 0);
  cl_mesh_destroy(m);

  CHECK(cl_mesh_from_arrays(CL_MESH_TRIANGLES, cube, 8, tris, 12, &m));
  CHECK(cl_mesh_transform(m, A, t));
  field sf[2] = {{"height", CL_FIELD_POINT, 1, {0}}, {"face_id", CL_FIELD_CELL, 1, {0}}};
  for (int i = 0; i < 8; ++i) sf[0].values[i] = cube[3 * i + 2] * 2.5 + 12.25;
  for (int c = 0; c < 12; ++c) sf[1].values[c] = c;
  sample(json, dir, "triangles", m, 5, sf, 2, 0);
  cl_mesh_destroy(m);

  const double pts[15] = {0.1, 0.2, 0.3, -1e-300, 4e300, 5.0 / 3.0, 1, 1, 1, -0.0, 2, 3, 7, 8, 9};
  CHECK(cl_mesh_from_arrays(CL_MESH_POINTS, pts, 5, NULL, 0, &m));
  field pf[1] = {{"mass", CL_FIELD_POINT, 1, {1e-6, 2e-6, 3e-6, 4e-6, 5e-6}}};
  sample(json, dir, "points", m, 1, pf, 1, 1);
  cl_mesh_destroy(m);

  fprintf(json, "}\n");
  if (fclose(json) != 0) {
    perror(path);
    return 1;
  }
  printf("wrote tets.vtu, triangles.vtu, points.vtu and expected.json in %s\n", dir);
  return 0;
}
