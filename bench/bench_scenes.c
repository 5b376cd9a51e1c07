/* Benchmark scenes from the Lua scene definitions (see bench_scenes.h). */
#define _POSIX_C_SOURCE 200809L
#include "bench_scenes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "embed.h"

/* The Lua side: the family's benchmark scenes (those whose info has a `bench` table), and build /
 * release of one scene. The built scene stays referenced here, so its world is not collected while
 * C steps it; build hands the world's pointer and the body's id to C through the FFI. */
static const char k_helper[] =
    "local family, dir = ...\n"
    "local ffi = require 'ffi'\n"
    "require 'cleave'\n"
    "ffi.cdef 'void cl_bench_take_scene(cl_world *world, cl_id body);'\n"
    "local scenes = dofile(dir .. '/init.lua')\n"
    "local M = {}\n"
    "function M.list()\n"
    "  local out = {}\n"
    "  for _, sc in ipairs(scenes.family(family)) do\n"
    "    local b = sc.info.bench\n"
    "    if b then\n"
    "      out[#out + 1] = { name = sc.name, big = b.big and 1 or 0,\n"
    "                        iterations = sc:params_of().iterations or 0 }\n"
    "    end\n"
    "  end\n"
    "  return out\n"
    "end\n"
    "function M.build(name, threads)\n"
    "  M.built = scenes.get(family .. '/' .. name):build { threads = threads }\n"
    "  collectgarbage() -- free the meshes the build made now, as the C copy did: the same heap for the timing\n"
    "  ffi.C.cl_bench_take_scene(M.built.world.ptr, M.built.body.id)\n"
    "end\n"
    "function M.release()\n"
    "  M.built.world:destroy()\n"
    "  M.built = nil\n"
    "  collectgarbage()\n"
    "end\n"
    "return M\n";

static cl_world *g_world;
static cl_id g_body;

void cl_bench_take_scene(cl_world *world, cl_id body) {
  g_world = world;
  g_body = body;
}

static void fail(const cl_bench_scenes *s, const char *what) {
  fprintf(stderr, "%s: %s\n", s->prog, what);
  exit(1);
}

/* The catalogue: $CLEAVE_SCENES, the installed copy relative to the program, the source tree. */
static int find_scenes_dir(char *out, size_t cap) {
  char probe[CL_EMBED_PATH_CAP], dir[CL_EMBED_PATH_CAP];
  const char *env = getenv("CLEAVE_SCENES");
  if (env && *env) return (size_t)snprintf(out, cap, "%s", env) >= cap ? -1 : 0;
  if (cl_embed_exe_dir(dir, sizeof dir) == 0 && cl_embed_join(out, cap, dir, CLEAVE_INSTALL_SCENES_REL) == 0 &&
      cl_embed_join(probe, sizeof probe, out, "init.lua") == 0 && cl_embed_is_file(probe))
    return 0;
  return (size_t)snprintf(out, cap, "%s/experiments/scenes", CLEAVE_SOURCE_DIR) >= cap ? -1 : 0;
}

/* Two copies of the library in one process (libcleave.so loaded by the Lua module beside the
 * static one the program links) would step a world with the other copy's registries: refuse. */
static int libcleave_mapped(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return 0;
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, "/libcleave.so") != NULL;
  fclose(f);
  return found;
}

/* Call M[fn](args on the stack): nargs arguments, nres results; exits on error. */
static void call_helper(cl_bench_scenes *s, const char *fn, int nargs, int nres) {
  lua_State *L = s->L;
  lua_getfield(L, LUA_REGISTRYINDEX, "cleave.bench_scenes");
  lua_getfield(L, -1, fn);
  lua_remove(L, -2);
  lua_insert(L, -nargs - 1);
  if (cl_embed_pcall(L, nargs, nres, s->prog) != 0) exit(1);
}

static double number_field(lua_State *L, const char *key) {
  lua_getfield(L, -1, key);
  double v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

cl_bench_scenes *cl_bench_scenes_open(const char *prog, const char *family) {
  cl_bench_scenes *s = calloc(1, sizeof *s);
  if (!s) {
    fprintf(stderr, "%s: out of memory\n", prog);
    exit(1);
  }
  s->prog = prog;
  char dir[CL_EMBED_PATH_CAP];
  if (find_scenes_dir(dir, sizeof dir) != 0) fail(s, "the path of the scene catalogue is too long");
  if (setenv("CLEAVE_LIB", "process", 1) != 0) fail(s, "cannot set CLEAVE_LIB");
  lua_State *L = cl_embed_new_state(prog);
  if (!L) exit(1);
  s->L = L;
  if (luaL_loadbuffer(L, k_helper, sizeof k_helper - 1, "=cleave bench scenes") != 0) fail(s, lua_tostring(L, -1));
  lua_pushstring(L, family);
  lua_pushstring(L, dir);
  if (cl_embed_pcall(L, 2, 1, prog) != 0) exit(1);
  lua_setfield(L, LUA_REGISTRYINDEX, "cleave.bench_scenes");
  if (libcleave_mapped()) fail(s, "libcleave.so was loaded beside the linked library (CLEAVE_LIB=process ignored?)");

  call_helper(s, "list", 0, 1);
  int n = (int)lua_objlen(L, -1);
  s->list = calloc((size_t)(n > 0 ? n : 1), sizeof *s->list);
  if (!s->list) fail(s, "out of memory");
  for (int i = 0; i < n; ++i) {
    lua_rawgeti(L, -1, i + 1);
    cl_bench_scene *sc = &s->list[i];
    lua_getfield(L, -1, "name");
    snprintf(sc->name, sizeof sc->name, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    sc->big = (int)number_field(L, "big");
    sc->iterations = (int)number_field(L, "iterations");
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  s->count = n;
  return s;
}

void cl_bench_scene_build(cl_bench_scenes *s, const char *name, int threads, cl_world **world, cl_id *body) {
  g_world = NULL;
  lua_pushstring(s->L, name);
  lua_pushinteger(s->L, threads);
  call_helper(s, "build", 2, 0);
  if (!g_world) fail(s, "the scene's build did not hand over its world");
  *world = g_world;
  *body = g_body;
}

void cl_bench_scene_release(cl_bench_scenes *s) { call_helper(s, "release", 0, 0); }

void cl_bench_scenes_close(cl_bench_scenes *s) {
  if (!s) return;
  lua_close(s->L);
  free(s->list);
  free(s);
}
