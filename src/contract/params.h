/* Named parameters of solvers and criteria, resolved against their cl_param_info tables. Part of the
 * simulation contract (src/contract/): solvers, criteria and the world share it. */
#ifndef CL_CONTRACT_PARAMS_H
#define CL_CONTRACT_PARAMS_H

#include <stdint.h>

#include "cleave/world.h"

/* Resolve named parameters against a table: values[i] starts at table[i].value and is overwritten
 * by the given parameter of the same name. Errors: an unknown name (CL_ERR_NOT_FOUND, the message
 * lists the valid names), a NULL name, a name given twice, NaN, a value outside [min, max] or not an
 * integer where one is required (CL_ERR_INVALID_ARGUMENT, the message gives range and unit).
 * `owner` names the table in messages, e.g. "solver 'corotational'". */
cl_status cl_params_resolve(const char *owner, const cl_param_info *table, int32_t count,
                            const cl_param *given, int32_t ngiven, double *values);
/* The same with text parameters: texts[i] (count entries) starts at table[i].text and points at the
 * given string of a text parameter (the caller copies what it keeps; values[i] is 0 for them). A
 * text parameter needs a string of at most CL_PARAM_TEXT_MAX printable ASCII characters, every
 * other kind a number and no text. cl_params_resolve refuses tables with text parameters given a
 * value (texts = NULL). */
cl_status cl_params_resolve_text(const char *owner, const cl_param_info *table, int32_t count,
                                 const cl_param *given, int32_t ngiven, double *values, const char **texts);
/* Index of `name` in the table, or -1. */
int32_t cl_param_index(const cl_param_info *table, int32_t count, const char *name);

#endif
