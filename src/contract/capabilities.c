/* Capabilities (contract/capabilities.h): whether a criterion can drive a solver, and why not. */
#include <stdio.h>

#include "contract/capabilities.h"

const char *cl_unit_kind_name(cl_unit_kind kind) {
  switch (kind) {
    case CL_UNITS_TETS: return "tets";
    case CL_UNITS_CLUSTERS: return "clusters";
    case CL_UNITS_PARTICLES: return "particles";
    case CL_UNIT_KIND_COUNT: break;
  }
  return "unknown units";
}

/* "a or b" list of the names of the set bits of mask, into buf. */
static void list_kinds(uint32_t mask, int units, char *buf, size_t size) {
  size_t used = 0;
  int n = 0, count = units ? CL_UNIT_KIND_COUNT : CL_EVENT_KIND_COUNT;
  buf[0] = '\0';
  for (int k = 0; k < count && used + 1 < size; ++k) {
    if (!(mask & (1u << (unsigned)k))) continue;
    const char *name = units ? cl_unit_kind_name((cl_unit_kind)k) : cl_event_kind_name((cl_event_kind)k);
    int w = snprintf(buf + used, size - used, "%s%s", n++ ? " or " : "", name);
    if (w < 0) break;
    used += (size_t)w;
  }
  if (n == 0) snprintf(buf, size, "nothing");
}

void cl_event_kinds_list(uint32_t mask, char *buf, size_t size) { list_kinds(mask, 0, buf, size); }

int cl_criterion_fits(const cl_solver_caps *solver, const cl_criterion_caps *crit, char *why, size_t why_size) {
  char a[128], b[128];
  if (!(crit->reads & CL_UNIT_BIT(solver->units))) {
    if (why && why_size) {
      list_kinds(crit->reads, 1, a, sizeof a);
      snprintf(why, why_size, "it needs %s and the solver's units are %s", a, cl_unit_kind_name(solver->units));
    }
    return 0;
  }
  const uint32_t missing = crit->emits & ~solver->applies;
  if (missing || !crit->emits) {
    if (why && why_size) {
      list_kinds(missing, 0, a, sizeof a);
      list_kinds(solver->applies, 0, b, sizeof b);
      snprintf(why, why_size, "it raises %s events and the solver applies %s", a, b);
    }
    return 0;
  }
  return 1;
}
