/* VTK XML UnstructuredGrid (.vtu) writer, ascii data arrays, for ParaView and VTK ("VTK File
 * Formats", VTK User's Guide, section "XML File Formats"). Points are Float64; cells are given by
 * connectivity, offsets (end of each cell in connectivity) and types: VTK_TETRA = 10,
 * VTK_TRIANGLE = 5, VTK_VERTEX = 1 (a point set gets one vertex cell per point so that ParaView
 * draws it). Mesh fields become PointData / CellData arrays of Float64 with their component count.
 * Numbers are printed with 17 significant digits, so a reader recovers every double exactly. */
#include <stdio.h>
#include <string.h>

#include "geom/mesh_io.h"

/* A field name as an XML attribute value. */
static void write_name(cl_out *o, const char *s) {
  for (; *s; ++s) {
    switch (*s) {
      case '&': cl_out_printf(o, "&amp;"); break;
      case '<': cl_out_printf(o, "&lt;"); break;
      case '>': cl_out_printf(o, "&gt;"); break;
      case '"': cl_out_printf(o, "&quot;"); break;
      case '\'': cl_out_printf(o, "&apos;"); break;
      default: cl_out_printf(o, "%c", (unsigned char)*s < 32 ? '_' : *s);
    }
  }
}

static void write_fields(cl_out *o, const cl_mesh *m, cl_field_location where, int64_t tuples) {
  for (int32_t i = 0; i < m->nfields; ++i) {
    const cl_field *f = &m->fields[i];
    if (f->where != where) continue;
    cl_out_printf(o, "        <DataArray type=\"Float64\" Name=\"");
    write_name(o, f->name);
    cl_out_printf(o, "\" NumberOfComponents=\"%d\" format=\"ascii\">\n", f->ncomp);
    for (int64_t t = 0; t < tuples; ++t) {
      cl_out_printf(o, "         ");
      for (int32_t k = 0; k < f->ncomp; ++k) cl_out_printf(o, " %.17g", f->values[t * f->ncomp + k]);
      cl_out_printf(o, "\n");
    }
    cl_out_printf(o, "        </DataArray>\n");
  }
}

cl_status cl_write_vtu(const cl_mesh *m, const char *path) {
  int cs = cl_mesh_cell_size(m->kind);
  /* a point set is written as one VTK_VERTEX cell per point */
  int64_t ncells = cs ? m->ncells : m->npoints;
  int per = cs ? cs : 1;
  int type = m->kind == CL_MESH_TETS ? 10 : m->kind == CL_MESH_TRIANGLES ? 5 : 1;
  cl_out o;
  CL_TRY(cl_out_open(&o, path));
  cl_out_printf(&o, "<?xml version=\"1.0\"?>\n"
                    "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
                    "header_type=\"UInt64\">\n"
                    "  <UnstructuredGrid>\n"
                    "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%lld\">\n",
                m->npoints, (long long)ncells);
  cl_out_printf(&o, "      <PointData>\n");
  write_fields(&o, m, CL_FIELD_POINT, m->npoints);
  cl_out_printf(&o, "      </PointData>\n      <CellData>\n");
  if (cs) write_fields(&o, m, CL_FIELD_CELL, m->ncells);
  cl_out_printf(&o, "      </CellData>\n"
                    "      <Points>\n"
                    "        <DataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\" format=\"ascii\">\n");
  for (int32_t i = 0; i < m->npoints; ++i)
    cl_out_printf(&o, "          %.17g %.17g %.17g\n", m->x[3 * i], m->x[3 * i + 1], m->x[3 * i + 2]);
  cl_out_printf(&o, "        </DataArray>\n"
                    "      </Points>\n"
                    "      <Cells>\n"
                    "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
  for (int64_t c = 0; c < ncells; ++c) {
    cl_out_printf(&o, "         ");
    if (cs)
      for (int k = 0; k < cs; ++k) cl_out_printf(&o, " %d", m->cells[(size_t)cs * (size_t)c + (size_t)k]);
    else
      cl_out_printf(&o, " %lld", (long long)c);
    cl_out_printf(&o, "\n");
  }
  cl_out_printf(&o, "        </DataArray>\n"
                    "        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
  for (int64_t c = 0; c < ncells; ++c) cl_out_printf(&o, "%s%lld", c % 16 ? " " : "\n          ", (long long)(per * (c + 1)));
  cl_out_printf(&o, "\n        </DataArray>\n"
                    "        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
  for (int64_t c = 0; c < ncells; ++c) cl_out_printf(&o, "%s%d", c % 32 ? " " : "\n          ", type);
  cl_out_printf(&o, "\n        </DataArray>\n"
                    "      </Cells>\n"
                    "    </Piece>\n"
                    "  </UnstructuredGrid>\n"
                    "</VTKFile>\n");
  return cl_out_close(&o);
}
