/* cleave: the command line. Embeds LuaJIT and runs experiment scripts against libcleave.
 *
 *   cleave run SCRIPT [--set key=value ...] [-- script args]
 *   cleave sweep SCRIPT [--jobs N] [--point I] [--emit slurm|parallel] [--results FILE] ...
 *                               runs a sweep script (cl.sweep, lua/cleave/sweep.lua)
 *   cleave solvers [NAME]       registered solvers and criteria with their parameter tables
 *   cleave bench SUITE [args]   runs the benchmark program cleave-bench-SUITE
 *   cleave --help | --version
 *
 * Exit codes: 0 success, 1 the script failed (Lua error, C error turned into a Lua error), 2 usage.
 * The script sees `arg` as the standalone interpreter sets it (arg[0] the script, arg[1..] the
 * arguments after `--`, arg[-1] this executable) plus arg.set: the --set values, with numbers and
 * true/false converted. `require "cleave"` finds the module tree beside the executable (build tree)
 * or under share/lua/5.1 (installed), located from /proc/self/exe.
 *
 * OpenMP waiting: unless the user set OMP_WAIT_POLICY, `cleave` runs with OMP_WAIT_POLICY=passive,
 * and unless set, with OPENBLAS_NUM_THREADS=1 (see passive_openmp_wait below); `cleave bench`
 * leaves the environment to the benchmark program. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "cleave/cleave.h"
#include "embed.h"

enum { EXIT_USAGE = 2, PATH_CAP = CL_EMBED_PATH_CAP };

static void usage(FILE *out) {
  fprintf(out,
          "usage: cleave run SCRIPT [--set key=value ...] [-- script args]\n"
          "       cleave sweep SCRIPT [--jobs N] [--point I] [--emit slurm|parallel] [--results FILE]\n"
          "                    [--timeout S] [--retry] [--fresh] [--threads T] [--chunk C] [--quick]\n"
          "                    [--set key=value ...]\n"
          "       cleave solvers [NAME]\n"
          "       cleave bench SUITE [args]\n"
          "       cleave --help | --version\n"
          "\n"
          "  run      run a Lua experiment script; `require \"cleave\"` gives the module.\n"
          "           --set key=value (repeatable) reaches the script as arg.set and cl.args;\n"
          "           numbers and true/false are converted, everything else stays a string.\n"
          "           Arguments after -- (or after SCRIPT) are arg[1], arg[2], ... as in lua.\n"
          "  sweep    run a sweep script (cl.sweep{...}): every point not yet in its results file, in\n"
          "           --jobs worker processes (default: as many as cores); --point I runs one point\n"
          "           (as a cluster task does); --emit slurm|parallel writes a job file instead;\n"
          "           --timeout S limits each point; --retry runs again the points that failed;\n"
          "           --fresh runs again the points another build of cleave computed;\n"
          "           --quick (= --set quick=true) runs the sweep's smoke test.\n"
          "  solvers  list the registered solvers and fracture criteria with their parameters\n"
          "           (name, default, unit, range, help), or those of NAME.\n"
          "  bench    run the benchmark program cleave-bench-SUITE installed with cleave.\n"
          "\n"
          "A script error prints `cleave: FILE:LINE: message` and a traceback, and exits 1 (a bad\n"
          "argument that cleave checks: the message at your script's line alone).\n"
          "Environment: CLEAVE_LIB overrides the path of libcleave; CLEAVE_LUA_DIR the module tree;\n"
          "CLEAVE_TRACEBACK=1 prints the traceback with every error.\n");
}

/* Is v a decimal number as a user writes one: [+-] digits [. digits] [e [+-] digits]? strtod also
 * takes hex (0x10 became 16), "inf", "nan" and leading blanks, which a --set value never means. */
static int decimal_number(const char *v) {
  const char *p = v;
  if (*p == '+' || *p == '-') ++p;
  int digits = 0;
  while (*p >= '0' && *p <= '9') ++p, ++digits;
  if (*p == '.') {
    ++p;
    while (*p >= '0' && *p <= '9') ++p, ++digits;
  }
  if (!digits) return 0;
  if (*p == 'e' || *p == 'E') {
    ++p;
    if (*p == '+' || *p == '-') ++p;
    if (!(*p >= '0' && *p <= '9')) return 0;
    while (*p >= '0' && *p <= '9') ++p;
  }
  return *p == '\0';
}

/* A --set value that cannot be passed as written (NULL if fine): a number beyond a double. */
static const char *set_value_problem(const char *v) {
  if (decimal_number(v) && isinf(strtod(v, NULL))) return "is a number beyond the range of a double (about 1.8e308)";
  return NULL;
}

/* Push a --set value: true/false as booleans, a decimal number as a number, "text" in double quotes
 * as the text (a string that looks like a number: --set 'id="007"'), anything else as the string. */
static void push_set_value(lua_State *L, const char *v) {
  size_t n = strlen(v);
  if (strcmp(v, "true") == 0) {
    lua_pushboolean(L, 1);
  } else if (strcmp(v, "false") == 0) {
    lua_pushboolean(L, 0);
  } else if (decimal_number(v)) {
    lua_pushnumber(L, strtod(v, NULL));
  } else if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
    lua_pushlstring(L, v + 1, n - 2);
  } else {
    lua_pushstring(L, v);
  }
}

/* A --set key: an identifier, dots allowed for nested names ("material.young"). */
static int valid_key(const char *k, size_t n) {
  if (n == 0) return 0;
  for (size_t i = 0; i < n; ++i) {
    char c = k[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' ||
             (i > 0 && c >= '0' && c <= '9');
    if (!ok) return 0;
  }
  return 1;
}

/* ---- commands ------------------------------------------------------------------------------- */

/* The flags of `cleave sweep`, handed to cl.sweep (lua/cleave/sweep.lua) as --set values of the same
 * meaning (arg.set.jobs, ...): checked here so a typo is a usage error before any Lua runs. */
enum flag_kind { FLAG_COUNT, FLAG_INDEX, FLAG_SECONDS, FLAG_TEXT, FLAG_EMIT, FLAG_SWITCH };
static const struct sweep_flag {
  const char *flag, *key;
  enum flag_kind kind;
} sweep_flags[] = {
    {"--jobs", "jobs", FLAG_COUNT},         {"--point", "point", FLAG_INDEX},
    {"--emit", "emit", FLAG_EMIT},          {"--results", "results", FLAG_TEXT},
    {"--timeout", "timeout", FLAG_SECONDS}, {"--retry", "retry", FLAG_SWITCH},
    {"--threads", "threads", FLAG_INDEX},   {"--chunk", "chunk", FLAG_COUNT},
    {"--plan", "plan", FLAG_TEXT},          {"--job-file", "job_file", FLAG_TEXT},
    {"--quick", "quick", FLAG_SWITCH},      {"--fresh", "fresh", FLAG_SWITCH},
};
enum { SWEEP_FLAG_COUNT = (int)(sizeof sweep_flags / sizeof sweep_flags[0]) };

static const struct sweep_flag *find_sweep_flag(const char *a) {
  for (int k = 0; k < SWEEP_FLAG_COUNT; ++k)
    if (strcmp(a, sweep_flags[k].flag) == 0) return &sweep_flags[k];
  return NULL;
}

/* Is `v` a valid value for the flag? Writes why not into `why`. */
static int sweep_flag_value_ok(const struct sweep_flag *f, const char *v, char *why, size_t cap) {
  char *end = NULL;
  errno = 0;
  switch (f->kind) {
    case FLAG_COUNT:
    case FLAG_INDEX: {
      long x = strtol(v, &end, 10);
      long lo = f->kind == FLAG_COUNT ? 1 : 0;
      if (!*v || *end || errno || x < lo || x > INT_MAX) {
        snprintf(why, cap, "%s needs an integer >= %ld (got '%s')", f->flag, lo, v);
        return 0;
      }
      return 1;
    }
    case FLAG_SECONDS: {
      double x = strtod(v, &end);
      if (!*v || *end || errno || !(x >= 0.0)) {
        snprintf(why, cap, "%s needs seconds >= 0 (got '%s'; 0 = no limit)", f->flag, v);
        return 0;
      }
      return 1;
    }
    case FLAG_EMIT:
      if (strcmp(v, "slurm") != 0 && strcmp(v, "parallel") != 0) {
        snprintf(why, cap, "--emit takes slurm or parallel (got '%s')", v);
        return 0;
      }
      return 1;
    case FLAG_TEXT:
      if (!*v) {
        snprintf(why, cap, "%s needs a value", f->flag);
        return 0;
      }
      return 1;
    case FLAG_SWITCH:
      return 1;
  }
  return 0;
}

/* cleave run SCRIPT ... and cleave sweep SCRIPT ...: the same script runner; `sweep` adds the flags
 * above and requires the script to define a sweep (cl.sweep{...}). */
static int run_script(int argc, char **argv, int sweep) {
  const char *cmd = sweep ? "sweep" : "run";
  const char *script = NULL;
  int first_script_arg = argc; /* index in argv of the first script argument */
  /* First pass: validate options and find the script. */
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      first_script_arg = i + 1;
      break;
    }
    if (strcmp(a, "--set") == 0 || strncmp(a, "--set=", 6) == 0) {
      const char *kv = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
      const char *eq = kv ? strchr(kv, '=') : NULL;
      if (!kv || !eq || !valid_key(kv, (size_t)(eq - kv))) {
        fprintf(stderr, "cleave: --set needs key=value with an identifier key (got '%s')\n", kv ? kv : "");
        return EXIT_USAGE;
      }
      const char *problem = set_value_problem(eq + 1);
      if (problem) {
        fprintf(stderr, "cleave: --set %s: the value %s\n", kv, problem);
        return EXIT_USAGE;
      }
      /* a repeated key kept the last value without a word */
      for (int j = 0; j < i; ++j) {
        const char *o = strncmp(argv[j], "--set=", 6) == 0 ? argv[j] + 6
                        : (strcmp(argv[j], "--set") == 0 && j + 1 < i) ? argv[j + 1] : NULL;
        if (o == kv) continue;
        if (o && strncmp(o, kv, (size_t)(eq - kv) + 1) == 0) {
          fprintf(stderr, "cleave: --set %.*s is given twice ('%s' and '%s'); give each key once\n", (int)(eq - kv),
                  kv, o, kv);
          return EXIT_USAGE;
        }
      }
      continue;
    }
    const struct sweep_flag *f = sweep ? find_sweep_flag(a) : NULL;
    if (f) {
      if (f->kind == FLAG_SWITCH) continue;
      char why[256];
      if (i + 1 >= argc) {
        fprintf(stderr, "cleave: %s needs a value\n", a);
        return EXIT_USAGE;
      }
      if (!sweep_flag_value_ok(f, argv[++i], why, sizeof why)) {
        fprintf(stderr, "cleave: %s\n", why);
        return EXIT_USAGE;
      }
      continue;
    }
    if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "cleave: unknown option '%s' for %s\n", a, cmd);
      usage(stderr);
      return EXIT_USAGE;
    }
    if (!script) {
      script = a;
    } else {
      first_script_arg = i; /* extra words after the script are its arguments */
      break;
    }
  }
  if (!script) {
    fprintf(stderr, "cleave: %s needs a script: cleave %s SCRIPT [%s--set key=value ...]\n", cmd, cmd,
            sweep ? "--jobs N | --point I | --emit slurm|parallel ... " : "");
    return EXIT_USAGE;
  }
  FILE *probe = fopen(script, "r");
  if (!probe) {
    fprintf(stderr, "cleave: cannot open script '%s': %s\n", script, strerror(errno));
    return 1;
  }
  fclose(probe);

  lua_State *L = cl_embed_new_state("cleave");
  if (!L) return 1;

  /* arg: [-1] executable, [0] script, [1..] script arguments, .set the --set values (and the sweep
   * flags), .command "run" or "sweep". */
  lua_newtable(L);
  char self[PATH_CAP];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  self[n > 0 ? n : 0] = '\0';
  lua_pushstring(L, n > 0 ? self : "cleave");
  lua_rawseti(L, -2, -1);
  lua_pushstring(L, script);
  lua_rawseti(L, -2, 0);
  int nargs = 0;
  for (int i = first_script_arg; i < argc; ++i) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, ++nargs);
  }
  lua_newtable(L);
  for (int i = 0; i < first_script_arg && i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) break;
    const struct sweep_flag *f = sweep ? find_sweep_flag(a) : NULL;
    if (f) {
      lua_pushstring(L, f->key);
      if (f->kind == FLAG_SWITCH) lua_pushboolean(L, 1);
      else if (f->kind == FLAG_TEXT || f->kind == FLAG_EMIT) lua_pushstring(L, argv[++i]);
      else push_set_value(L, argv[++i]);
      lua_rawset(L, -3);
      continue;
    }
    const char *kv = NULL;
    if (strcmp(a, "--set") == 0) kv = argv[++i];
    else if (strncmp(a, "--set=", 6) == 0) kv = a + 6;
    if (!kv) continue;
    const char *eq = strchr(kv, '=');
    lua_pushlstring(L, kv, (size_t)(eq - kv));
    push_set_value(L, eq + 1);
    lua_rawset(L, -3); /* keys are distinct: the first pass refused a repeated one */
  }
  lua_setfield(L, -2, "set");
  lua_pushstring(L, cmd);
  lua_setfield(L, -2, "command");
  lua_setglobal(L, "arg");

  /* The script's own folder is searched after the cleave tree, so an experiment can
   * `require "lib.scenes"` from beside itself whatever the working directory. */
  {
    char dir[PATH_CAP];
    const char *slash = strrchr(script, '/');
    size_t len = slash ? (size_t)(slash - script) : 0;
    if (slash && len == 0) len = 1; /* "/script.lua" */
    if (len + 1 <= sizeof dir) {
      if (slash) memcpy(dir, script, len);
      else dir[len++] = '.';
      dir[len] = '\0';
      lua_getglobal(L, "package");
      lua_getfield(L, -1, "path");
      const char *old = lua_tostring(L, -1);
      const char *cleave_end = old ? strstr(old, "/?/init.lua;") : NULL; /* after the cleave tree */
      if (cleave_end) {
        cleave_end += strlen("/?/init.lua;");
        lua_pushlstring(L, old, (size_t)(cleave_end - old));
        lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s", dir, dir, cleave_end);
        lua_concat(L, 2);
        lua_setfield(L, -3, "path");
      }
      lua_pop(L, 2);
    }
  }

  /* Load with the script path as chunk name so messages read "path:line:" (whole: embed.h). */
  cl_embed_remember(L, script);
  if (luaL_loadfile(L, script) != 0) {
    cl_embed_expand(L);
    fprintf(stderr, "cleave: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return 1;
  }
  for (int i = first_script_arg; i < argc; ++i) lua_pushstring(L, argv[i]);
  int rc = cl_embed_pcall(L, nargs, 0, "cleave");
  if (rc == 0 && sweep) {
    /* cl.sweep{...} marks package.loaded["cleave.sweep"].ran; a script that never called it ran
     * nothing the flags could apply to. */
    static const char ran[] = "local m = package.loaded['cleave.sweep'] return type(m) == 'table' and m.ran == true";
    int defined = luaL_loadbuffer(L, ran, sizeof ran - 1, "=cleave sweep") == 0 && lua_pcall(L, 0, 1, 0) == 0 &&
                  lua_toboolean(L, -1);
    if (!defined) {
      fprintf(stderr, "cleave: %s defines no sweep: cl.sweep{...} was never called (docs/LUA_API.md, \"Sweeps\")\n",
              script);
      rc = 1;
    }
  }
  fflush(stdout);
  lua_close(L); /* runs the __gc of every handle still alive */
  return rc;
}

static int cmd_solvers(int argc, char **argv) {
  if (argc > 1) {
    fprintf(stderr, "cleave: solvers takes at most one name\n");
    return EXIT_USAGE;
  }
  lua_State *L = cl_embed_new_state("cleave");
  if (!L) return 1;
  static const char chunk[] =
      "local name = ...\n"
      "local cl = require 'cleave'\n"
      "cl.help(name)\n";
  if (luaL_loadbuffer(L, chunk, sizeof chunk - 1, "=cleave solvers") != 0) {
    fprintf(stderr, "cleave: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return 1;
  }
  int nargs = 0;
  if (argc == 1) {
    lua_pushstring(L, argv[0]);
    nargs = 1;
  }
  int rc = cl_embed_pcall(L, nargs, 0, "cleave");
  lua_close(L);
  return rc;
}

/* ---- bench ---------------------------------------------------------------------------------- */

enum { MAX_BENCH_DIRS = 4 };

/* Folders that may hold cleave-bench-* programs: beside the executable (build tree), then the
 * libexec folder relative to it (installed), then the configured libexec folder. */
static int bench_dirs(char dirs[MAX_BENCH_DIRS][PATH_CAP]) {
  int n = 0;
  char dir[PATH_CAP];
  if (cl_embed_exe_dir(dir, sizeof dir) == 0) {
    memcpy(dirs[n++], dir, sizeof dir);
    if (cl_embed_join(dirs[n], PATH_CAP, dir, CLEAVE_INSTALL_LIBEXEC_REL) == 0) ++n;
  }
  if ((size_t)snprintf(dirs[n], PATH_CAP, "%s", CLEAVE_INSTALL_LIBEXEC_DIR) < PATH_CAP) ++n;
  return n;
}

static int valid_suite(const char *s) {
  if (!*s) return 0;
  for (const char *c = s; *c; ++c)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
          *c == '_' || *c == '-'))
      return 0;
  return 1;
}

/* Print the suites found (comma separated) to `out`; returns how many. */
static int list_suites(FILE *out) {
  char dirs[MAX_BENCH_DIRS][PATH_CAP];
  int ndirs = bench_dirs(dirs);
  static const char prefix[] = "cleave-bench-";
  char seen[64][128];
  int count = 0;
  for (int d = 0; d < ndirs; ++d) {
    DIR *dp = opendir(dirs[d]);
    if (!dp) continue;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
      if (strncmp(e->d_name, prefix, sizeof prefix - 1) != 0) continue;
      const char *suite = e->d_name + sizeof prefix - 1;
      if (!valid_suite(suite)) continue;
      char path[PATH_CAP];
      if (cl_embed_join(path, sizeof path, dirs[d], e->d_name) != 0) continue;
      if (access(path, X_OK) != 0 || !cl_embed_is_file(path)) continue;
      int dup = 0;
      for (int i = 0; i < count; ++i) dup |= strcmp(seen[i], suite) == 0;
      if (dup || count == 64) continue;
      snprintf(seen[count], sizeof seen[count], "%s", suite);
      fprintf(out, "%s%s", count ? ", " : "", suite);
      ++count;
    }
    closedir(dp);
  }
  return count;
}

static int cmd_bench(int argc, char **argv) {
  if (argc < 1 || !valid_suite(argv[0])) {
    if (argc >= 1) fprintf(stderr, "cleave: '%s' is not a benchmark suite name\n", argv[0]);
    else fprintf(stderr, "cleave: bench needs a suite: cleave bench SUITE [args]\n");
    fprintf(stderr, "cleave: available suites: ");
    if (list_suites(stderr) == 0) fprintf(stderr, "(none built)");
    fprintf(stderr, "\n");
    return EXIT_USAGE;
  }
  char dirs[MAX_BENCH_DIRS][PATH_CAP];
  int ndirs = bench_dirs(dirs);
  for (int d = 0; d < ndirs; ++d) {
    char path[PATH_CAP], name[256];
    if ((size_t)snprintf(name, sizeof name, "cleave-bench-%s", argv[0]) >= sizeof name) continue;
    if (cl_embed_join(path, sizeof path, dirs[d], name) != 0) continue;
    if (!cl_embed_is_file(path) || access(path, X_OK) != 0) continue;
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) {
      fprintf(stderr, "cleave: out of memory\n");
      return 1;
    }
    args[0] = path;
    for (int i = 1; i < argc; ++i) args[i] = argv[i];
    fflush(stdout);
    execv(path, args);
    fprintf(stderr, "cleave: cannot run %s: %s\n", path, strerror(errno));
    free(args);
    return 1;
  }
  fprintf(stderr, "cleave: unknown bench suite '%s'; available: ", argv[0]);
  if (list_suites(stderr) == 0) fprintf(stderr, "(none built: no cleave-bench-* program beside the executable or in %s)", CLEAVE_INSTALL_LIBEXEC_DIR);
  fprintf(stderr, "\n");
  return EXIT_USAGE;
}

/* With OMP_WAIT_POLICY unset, libgomp's threads spin at every barrier and at the end of every
 * parallel region (GOMP_SPINCOUNT 300000) before they sleep. On a machine whose cores are busy with
 * other work, a spinning thread holds the core the thread still working needs: on the 2-core build
 * machine at load 5.5 a 2-thread shape-matching step took 40-80 ms against 1.3-2.8 ms passive
 * (docs/LUA_API.md, "The `cleave` executable"). Passive threads sleep at once; the cost is a futex
 * wake-up per region, which a quiet machine barely notices.
 *
 * OpenBLAS (under CHOLMOD's supernodal factorisation) starts a thread per core whose idle loop
 * calls sched_yield: on the same machine at load 6-12 the quick Hertz check of
 * validation/corotational.lua (a CHOLMOD factorisation per step) spent 8.3 s of CPU, 5.4 s of it in
 * the kernel (800k sched_yield and 250k futex calls), against 2.8 s with OPENBLAS_NUM_THREADS=1, and
 * the factorisation is no faster with two threads on a quiet one (docs/solvers/corotational.md,
 * "Speed"). So unless the user set it, `cleave` runs with OPENBLAS_NUM_THREADS=1, as
 * bench_corotational holds it. The CHOLMOD wrapper sets the BLAS threads to the world's `threads`
 * before each factorisation (linalg/blas_threads.h), so the variable sets only the pool OpenBLAS
 * starts when loaded and the BLAS calls outside CHOLMOD.
 *
 * libgomp and OpenBLAS read their environment in constructors that run when the libraries are
 * loaded: before main, since libcleave links them (`OMP_DISPLAY_ENV=verbose cleave --version` prints
 * the settings before anything else). A setenv here is too late for this process, so the program
 * re-executes itself with the variables set; the second run finds them set and goes on. If exec
 * fails (no /proc), it goes on with the libraries' defaults; the variables still reach the
 * processes it starts. */
static void passive_openmp_wait(char **argv) {
  int changed = 0;
  /* the user's choice stands, "active" or a thread count included */
  if (!getenv("OMP_WAIT_POLICY")) changed |= setenv("OMP_WAIT_POLICY", "passive", 1) == 0;
  if (!getenv("OPENBLAS_NUM_THREADS")) changed |= setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0;
  if (!changed) return;
  /* Under valgrind (its preload library is in LD_PRELOAD) the exec would leave the tool: the re-run
   * would go unchecked, and /proc/self/exe names the tool itself, which refuses to start. Go on with
   * the libraries' defaults there; the variables still reach the processes this one starts. */
  const char *preload = getenv("LD_PRELOAD");
  if (preload && strstr(preload, "vgpreload")) return;
  char self[PATH_CAP];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return;
  self[n] = '\0';
  execv(self, argv); /* returns only on failure */
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "bench") != 0) passive_openmp_wait(argv);
  if (argc < 2) {
    usage(stderr);
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-v") == 0 || strcmp(cmd, "version") == 0) {
    printf("cleave %s (git %s)\n", cl_version(), cl_git_revision());
    return 0;
  }
  if (strcmp(cmd, "run") == 0) return run_script(argc - 2, argv + 2, 0);
  if (strcmp(cmd, "sweep") == 0) return run_script(argc - 2, argv + 2, 1);
  if (strcmp(cmd, "solvers") == 0) return cmd_solvers(argc - 2, argv + 2);
  if (strcmp(cmd, "bench") == 0) return cmd_bench(argc - 2, argv + 2);
  fprintf(stderr, "cleave: unknown command '%s'\n", cmd);
  usage(stderr);
  return EXIT_USAGE;
}
