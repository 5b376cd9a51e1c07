/* The grid spec of the Galerkin multigrid (multigrid.h): "50/1000/all", the vertex counts of the
 * coarse levels from the coarsest to the finest, then "all" (Mandal et al. 2025, sec 4.1). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "linalg/multigrid.h"

/* One token of the spec without the spaces around it: [*lo, *hi). */
static void trim(const char *s, size_t len, size_t *lo, size_t *hi) {
  size_t a = 0, b = len;
  while (a < b && isspace((unsigned char)s[a])) ++a;
  while (b > a && isspace((unsigned char)s[b - 1])) --b;
  *lo = a;
  *hi = b;
}

cl_status cl_mg_grid_parse(const char *spec, cl_mg_grid *out) {
  if (!out) return cl_fail(CL_ERR_INVALID_ARGUMENT, "cl_mg_grid_parse: out is NULL");
  memset(out, 0, sizeof *out);
  static const char usage[] = "write the vertex counts of the coarse levels, coarsest first, then \"all\" "
                              "(e.g. \"50/all\" or \"50/1000/all\")";
  if (!spec || !*spec) return cl_fail(CL_ERR_INVALID_ARGUMENT, "parameter 'mg_grid' is empty: %s", usage);
  if (strlen(spec) >= CL_MG_GRID_CHARS)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "parameter 'mg_grid' = \"%.20s...\" is longer than %d characters",
                   spec, CL_MG_GRID_CHARS - 1);
  int32_t counts[CL_MG_MAX_COARSE + 1];
  int ntok = 0, saw_all = 0;
  const char *p = spec;
  for (;;) {
    const char *slash = strchr(p, '/');
    const size_t len = slash ? (size_t)(slash - p) : strlen(p);
    size_t lo, hi;
    trim(p, len, &lo, &hi);
    char tok[CL_MG_GRID_CHARS];
    memcpy(tok, p + lo, hi - lo);
    tok[hi - lo] = '\0';
    if (saw_all)
      return cl_fail(CL_ERR_INVALID_ARGUMENT,
                     "parameter 'mg_grid' = \"%s\": \"all\" (the finest level) must be the last level; %s", spec, usage);
    if (strcmp(tok, "all") == 0) {
      saw_all = 1;
    } else {
      char *end = NULL;
      errno = 0;
      const long v = tok[0] ? strtol(tok, &end, 10) : 0;
      if (!tok[0] || *end || !isdigit((unsigned char)tok[0]))
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "parameter 'mg_grid' = \"%s\": \"%s\" is not a vertex count (a whole "
                       "number >= 1) nor \"all\"; %s", spec, tok, usage);
      if (v < 1 || v > INT32_MAX / 4 || errno == ERANGE)
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "parameter 'mg_grid' = \"%s\": the vertex count %s is outside [1, %d]",
                       spec, tok, INT32_MAX / 4);
      if (ntok == CL_MG_MAX_COARSE)
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "parameter 'mg_grid' = \"%s\" has more than %d coarse levels", spec,
                       CL_MG_MAX_COARSE);
      if (ntok > 0 && v <= counts[ntok - 1])
        return cl_fail(CL_ERR_INVALID_ARGUMENT,
                       "parameter 'mg_grid' = \"%s\": levels out of order (%ld after %d); the counts must increase "
                       "strictly from the coarsest level to \"all\"", spec, v, counts[ntok - 1]);
      counts[ntok++] = (int32_t)v;
    }
    if (!slash) break;
    p = slash + 1;
  }
  if (!saw_all)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "parameter 'mg_grid' = \"%s\" does not end with \"all\" (the finest level, "
                   "every vertex); %s", spec, usage);
  if (ntok == 0)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "parameter 'mg_grid' = \"%s\" has no coarse level (zero levels); %s", spec,
                   usage);
  out->coarse_levels = ntok;
  for (int l = 0; l < ntok; ++l) out->count[l] = counts[ntok - 1 - l];
  return CL_OK;
}

cl_status cl_mg_grid_check(const cl_mg_grid *grid, const char *spec, int32_t n, int32_t connected) {
  /* count[0] is the largest */
  if (grid->count[0] > n)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "parameter 'mg_grid' = \"%s\" asks for %d vertices at level 1 but the mesh has %d (\"all\"); "
                   "every count must be in [1, %d]", spec, grid->count[0], n, connected);
  if (grid->count[0] > connected)
    return cl_fail(CL_ERR_INVALID_ARGUMENT,
                   "parameter 'mg_grid' = \"%s\" asks for %d vertices at level 1 but only %d of the mesh's %d nodes "
                   "share an element with another (the others get no handle); every count must be in [1, %d]",
                   spec, grid->count[0], connected, n, connected);
  return CL_OK;
}
