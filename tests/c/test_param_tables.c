/* The parameter tables of every registered solver and criterion are well formed: names are
 * identifiers and unique, defaults lie in their ranges, an integer kind has integer bounds, a boolean is
 * 0 or 1, and a choice's names parse ("a|b|c", identifiers, no repeats) and are exactly as many as
 * its integer range [0, n-1] holds. The Lua layer relies on all of it to turn true/false and names
 * into the numbers C reads (lua/cleave/registry.lua), and `cl.help` prints the names. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cleave/world.h"
#include "contract/params.h"

enum { MAX_CHOICES = 16, NAME_CAP = 64 };

static int is_identifier(const char *s, size_t n) {
  if (n == 0 || n >= NAME_CAP) return 0;
  if (!((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_')) return 0;
  for (size_t i = 1; i < n; ++i)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_')) return 0;
  return 1;
}

/* Split "a|b|c" into names; the count, or -1 when a name is not an identifier or repeats. */
static int parse_choices(const char *choices, char names[MAX_CHOICES][NAME_CAP]) {
  int n = 0;
  const char *p = choices;
  for (;;) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    if (n == MAX_CHOICES || !is_identifier(p, len)) return -1;
    memcpy(names[n], p, len);
    names[n][len] = '\0';
    for (int k = 0; k < n; ++k)
      if (strcmp(names[k], names[n]) == 0) return -1;
    ++n;
    if (!bar) return n;
    p = bar + 1;
  }
}

/* NULL when the entry is well formed, else what is wrong with it. */
static const char *entry_problem(const cl_param_info *p) {
  char names[MAX_CHOICES][NAME_CAP];
  if (!p->name || !is_identifier(p->name, strlen(p->name))) return "the name is not an identifier";
  if (!p->unit || !p->help || !p->help[0]) return "unit or help missing";
  if (!(p->min <= p->value && p->value <= p->max)) return "the default lies outside [min, max]";
  if (p->kind < CL_PARAM_NUMBER || p->kind > CL_PARAM_TEXT) return "unknown kind";
  if (p->kind == CL_PARAM_TEXT && (!p->text || strlen(p->text) > CL_PARAM_TEXT_MAX)) return "a text without a default";
  if (p->kind != CL_PARAM_TEXT && p->text) return "a default text on a parameter that is not a text";
  if (p->kind != CL_PARAM_NUMBER && (p->value != floor(p->value) || p->min != floor(p->min) || p->max != floor(p->max)))
    return "an integer kind with a fractional default or bound";
  if (p->kind != CL_PARAM_CHOICE && p->choices) return "choices on a parameter that is not a choice";
  if (p->kind == CL_PARAM_BOOLEAN && !(p->min == 0.0 && p->max == 1.0)) return "a boolean's range is not [0, 1]";
  if (p->kind == CL_PARAM_CHOICE) {
    if (!p->choices) return "a choice without names";
    int n = parse_choices(p->choices, names);
    if (n < 0) return "the choices do not parse as distinct identifiers separated by '|'";
    if (n < 2) return "a choice of fewer than two names";
    if (!(p->min == 0.0 && p->max == (double)(n - 1))) return "the choice count does not match the range [0, n-1]";
  }
  return NULL;
}

static void check_table(const char *owner, const cl_param_info *t, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    const char *problem = entry_problem(&t[i]);
    if (problem) fail_msg("%s: parameter %d ('%s'): %s", owner, i, t[i].name ? t[i].name : "(null)", problem);
    for (int32_t k = 0; k < i; ++k)
      if (strcmp(t[k].name, t[i].name) == 0) fail_msg("%s: parameter '%s' appears twice", owner, t[i].name);
  }
}

static void test_every_registered_table(void **state) {
  (void)state;
  const cl_registry kinds[2] = {CL_REGISTRY_SOLVER, CL_REGISTRY_CRITERION};
  int tables = 0, choices = 0, booleans = 0;
  for (int r = 0; r < 2; ++r)
    for (int32_t i = 0; i < cl_registry_count(kinds[r]); ++i) {
      const char *name = cl_registry_name(kinds[r], i);
      const cl_param_info *t;
      int32_t count;
      assert_int_equal(cl_param_table(kinds[r], name, &t, &count), CL_OK);
      check_table(name, t, count);
      for (int32_t k = 0; k < count; ++k) {
        choices += t[k].kind == CL_PARAM_CHOICE;
        booleans += t[k].kind == CL_PARAM_BOOLEAN;
      }
      ++tables;
    }
  print_message("%d tables: %d choices, %d booleans\n", tables, choices, booleans);
  assert_true(tables >= 5);
  assert_true(choices >= 6 && booleans >= 8);
}

/* The names other code depends on: the other corotational work names linear solvers "pcg",
 * "cholmod" and "galerkin_mg" (indices 0, 1 and 2: linalg's table); the Lua tests and scripts use these
 * spellings. */
static void test_known_choices(void **state) {
  (void)state;
  const cl_param_info *t;
  int32_t count;
  assert_int_equal(cl_param_table(CL_REGISTRY_SOLVER, "corotational", &t, &count), CL_OK);
  int seen = 0;
  for (int32_t k = 0; k < count; ++k) {
    if (strcmp(t[k].name, "linear_solver") == 0) {
      assert_string_equal(t[k].choices, "pcg|cholmod|galerkin_mg");
      ++seen;
    }
    if (strcmp(t[k].name, "rotation") == 0) {
      assert_string_equal(t[k].choices, "polar|gram_schmidt");
      ++seen;
    }
  }
  assert_int_equal(seen, 2);
}

/* The checker itself notices each kind of mistake (so a green run means something). */
static void test_checker_catches_mistakes(void **state) {
  (void)state;
  const cl_param_info good = {.name = "mode", .unit = "1", .help = "h", .value = 1, .min = 0, .max = 2,
                              .kind = CL_PARAM_CHOICE, .choices = "a|b_2|c"};
  assert_null(entry_problem(&good));
  cl_param_info bad = good;
  bad.max = 1;
  assert_non_null(strstr(entry_problem(&bad), "count"));
  bad = good;
  bad.choices = "a||c";
  assert_non_null(strstr(entry_problem(&bad), "parse"));
  bad.choices = "a|B|c";
  assert_non_null(strstr(entry_problem(&bad), "parse"));
  bad.choices = "a|b|a";
  assert_non_null(strstr(entry_problem(&bad), "parse"));
  bad = good;
  bad.choices = NULL;
  assert_non_null(strstr(entry_problem(&bad), "without names"));
  bad = good;
  bad.max = 2.5;
  assert_non_null(strstr(entry_problem(&bad), "fractional"));
  const cl_param_info text = {.name = "grid", .unit = "1", .help = "h", .kind = CL_PARAM_TEXT, .text = "50/all"};
  assert_null(entry_problem(&text));
  bad = text;
  bad.text = NULL;
  assert_non_null(strstr(entry_problem(&bad), "without a default"));
  bad = good;
  bad.text = "x";
  assert_non_null(strstr(entry_problem(&bad), "not a text"));
  bad = good;
  bad.kind = CL_PARAM_BOOLEAN;
  assert_non_null(strstr(entry_problem(&bad), "choices on"));
  bad.choices = NULL;
  assert_non_null(strstr(entry_problem(&bad), "[0, 1]"));
  const cl_param_info number = {.name = "x", .unit = "m", .help = "h", .value = 0.5, .min = 0, .max = 1};
  assert_null(entry_problem(&number));
}

/* Text parameters resolve to the given string or their default; a text for a number, a number for
 * a text, a non-printable character or a text too long are errors naming the parameter; a caller
 * that takes no texts refuses one. */
static void test_text_resolution(void **state) {
  (void)state;
  const cl_param_info t[2] = {{.name = "grid", .unit = "1", .help = "h", .kind = CL_PARAM_TEXT, .text = "50/all"},
                              {.name = "iterations", .unit = "1", .help = "h", .value = 2, .min = 1, .max = 9,
                               .kind = CL_PARAM_INTEGER}};
  double v[2];
  const char *tx[2];
  assert_int_equal(cl_params_resolve_text("test", t, 2, NULL, 0, v, tx), CL_OK);
  assert_string_equal(tx[0], "50/all");
  assert_null(tx[1]);
  assert_true(v[1] == 2.0);
  const cl_param given[2] = {{"grid", 0, "50/1000/all"}, {"iterations", 3, NULL}};
  assert_int_equal(cl_params_resolve_text("test", t, 2, given, 2, v, tx), CL_OK);
  assert_string_equal(tx[0], "50/1000/all");
  assert_true(v[1] == 3.0);
  const cl_param number_for_text = {"grid", 50, NULL}, text_for_number = {"iterations", 0, "3"},
                 control = {"grid", 0, "50\n/all"};
  assert_int_equal(cl_params_resolve_text("test", t, 2, &number_for_text, 1, v, tx), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "'grid' takes a text"));
  assert_int_equal(cl_params_resolve_text("test", t, 2, &text_for_number, 1, v, tx), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "'iterations' takes a number"));
  assert_int_equal(cl_params_resolve_text("test", t, 2, &control, 1, v, tx), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "printable"));
  char long_text[CL_PARAM_TEXT_MAX + 2];
  memset(long_text, 'a', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  const cl_param too_long = {"grid", 0, long_text};
  assert_int_equal(cl_params_resolve_text("test", t, 2, &too_long, 1, v, tx), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "longer than"));
  assert_int_equal(cl_params_resolve("test", t, 2, given, 1, v), CL_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(cl_last_error(), "cannot take"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_registered_table),
      cmocka_unit_test(test_known_choices),
      cmocka_unit_test(test_checker_catches_mistakes),
      cmocka_unit_test(test_text_resolution),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
