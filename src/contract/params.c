/* Named-parameter resolution (contract/params.h), shared by the solver and criterion registries and
 * the world. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "contract/params.h"

int32_t cl_param_index(const cl_param_info *table, int32_t count, const char *name) {
  if (!name) return -1;
  for (int32_t i = 0; i < count; ++i)
    if (strcmp(table[i].name, name) == 0) return i;
  return -1;
}

cl_status cl_params_resolve(const char *owner, const cl_param_info *table, int32_t count,
                            const cl_param *given, int32_t ngiven, double *values) {
  return cl_params_resolve_text(owner, table, count, given, ngiven, values, NULL);
}

/* A text parameter's value: a string of printable ASCII, not too long. */
static cl_status check_text(const char *owner, const char *name, const char *text) {
  if (!text)
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: parameter '%s' takes a text (cl_param.text), not a number", owner,
                   name);
  size_t n = 0;
  for (; text[n]; ++n) {
    if (n >= CL_PARAM_TEXT_MAX)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: parameter '%s' is longer than %d characters", owner, name,
                     (int)CL_PARAM_TEXT_MAX);
    if (text[n] < 0x20 || text[n] > 0x7e)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: parameter '%s' has a character that is not printable ASCII "
                     "(code %d at position %d)", owner, name, (int)(unsigned char)text[n], (int)n + 1);
  }
  return CL_OK;
}

cl_status cl_params_resolve_text(const char *owner, const cl_param_info *table, int32_t count,
                                 const cl_param *given, int32_t ngiven, double *values, const char **texts) {
  if (!owner) owner = "parameter table";
  if (ngiven < 0 || (ngiven > 0 && !given))
    return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: parameter count %d with a NULL parameter array", owner, ngiven);
  for (int32_t i = 0; i < count; ++i) {
    values[i] = table[i].kind == CL_PARAM_TEXT ? 0.0 : table[i].value;
    if (texts) texts[i] = table[i].kind == CL_PARAM_TEXT ? table[i].text : NULL;
  }
  for (int32_t j = 0; j < ngiven; ++j) {
    const char *name = given[j].name;
    if (!name) return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: parameter %d has a NULL name", owner, j);
    int32_t i = cl_param_index(table, count, name);
    if (i < 0) {
      char names[1024];
      size_t used = 0;
      names[0] = '\0';
      for (int32_t k = 0; k < count && used + 1 < sizeof names; ++k) {
        int w = snprintf(names + used, sizeof names - used, "%s%s (%s)", k ? ", " : "", table[k].name,
                         table[k].unit);
        if (w < 0) break;
        used += (size_t)w;
      }
      if (count == 0) return cl_fail(CL_ERR_NOT_FOUND, "%s has no parameter '%s' (it takes no parameters)", owner, name);
      return cl_fail(CL_ERR_NOT_FOUND, "%s has no parameter '%s'; its parameters are: %s", owner, name, names);
    }
    for (int32_t k = 0; k < j; ++k)
      if (given[k].name && strcmp(given[k].name, name) == 0)
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: parameter '%s' is given twice", owner, name);
    const cl_param_info *p = &table[i];
    if (p->kind == CL_PARAM_TEXT) {
      if (!texts)
        return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: parameter '%s' is a text, which this caller cannot take", owner,
                       name);
      CL_TRY(check_text(owner, name, given[j].text));
      texts[i] = given[j].text;
      continue;
    }
    if (given[j].text)
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: parameter '%s' takes a number, not a text (\"%.40s\")", owner, name,
                     given[j].text);
    double v = given[j].value;
    if (!(v >= p->min && v <= p->max))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: parameter '%s' = %g is outside its range [%g, %g] %s (%s)",
                     owner, name, v, p->min, p->max, p->unit, p->help);
    if (p->kind != CL_PARAM_NUMBER && v != floor(v))
      return cl_fail(CL_ERR_INVALID_ARGUMENT, "%s: parameter '%s' = %g must be an integer in [%g, %g]", owner,
                     name, v, p->min, p->max);
    values[i] = v;
  }
  return CL_OK;
}
