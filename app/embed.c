/* The Lua state of the `cleave` executable and of the benchmark programs (see embed.h). */
#define _POSIX_C_SOURCE 200809L

#include "embed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

/* ---- paths ---------------------------------------------------------------------------------- */

int cl_embed_exe_dir(char *out, size_t cap) {
  char buf[CL_EMBED_PATH_CAP];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return -1;
  buf[n] = '\0';
  char *slash = strrchr(buf, '/');
  if (!slash) return -1;
  *slash = '\0';
  size_t len = (size_t)(slash - buf);
  if (len + 1 > cap) return -1;
  memcpy(out, buf, len + 1);
  return 0;
}

int cl_embed_is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int cl_embed_join(char *out, size_t cap, const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  if (na + 1 + nb + 1 > cap) return -1;
  memcpy(out, a, na);
  out[na] = '/';
  memcpy(out + na + 1, b, nb + 1);
  return 0;
}

/* Does `dir` hold cleave/init.lua? */
static int is_lua_tree(const char *dir) {
  char p[CL_EMBED_PATH_CAP];
  if (cl_embed_join(p, sizeof p, dir, "cleave/init.lua") != 0) return 0;
  return cl_embed_is_file(p);
}

/* The Lua module tree: $CLEAVE_LUA_DIR, then <exe dir>/lua (build tree), then the install tree
 * relative to the executable, then the configured install and build paths. */
static int find_lua_dir(char *out, size_t cap) {
  const char *env = getenv("CLEAVE_LUA_DIR");
  if (env && *env) return (size_t)snprintf(out, cap, "%s", env) >= cap ? -1 : 0;
  char dir[CL_EMBED_PATH_CAP];
  if (cl_embed_exe_dir(dir, sizeof dir) == 0) {
    if (cl_embed_join(out, cap, dir, "lua") == 0 && is_lua_tree(out)) return 0;
    if (cl_embed_join(out, cap, dir, CLEAVE_INSTALL_LUA_REL) == 0 && is_lua_tree(out)) return 0;
  }
  if (is_lua_tree(CLEAVE_INSTALL_LUA_DIR)) return (size_t)snprintf(out, cap, "%s", CLEAVE_INSTALL_LUA_DIR) >= cap ? -1 : 0;
  if (is_lua_tree(CLEAVE_BUILD_LUA_DIR)) return (size_t)snprintf(out, cap, "%s", CLEAVE_BUILD_LUA_DIR) >= cap ? -1 : 0;
  return -1;
}

/* ---- whole chunk names ---------------------------------------------------------------------- */

/* Registry field: a table from each cut name LuaJIT prints to the whole file name (false when two
 * remembered files share the cut form: then it is left as LuaJIT wrote it). */
static const char k_names[] = "cleave.chunk_names";

void cl_embed_remember(lua_State *L, const char *path) {
  size_t len = strlen(path);
  /* lj_debug_shortname: a "@name" chunk of LUA_IDSIZE characters or more is printed as "..." and
   * its last LUA_IDSIZE - 4 characters */
  if (len < LUA_IDSIZE) return;
  char cut[LUA_IDSIZE];
  snprintf(cut, sizeof cut, "...%s", path + len - (LUA_IDSIZE - 4));
  lua_getfield(L, LUA_REGISTRYINDEX, k_names);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  lua_getfield(L, -1, cut);
  if (lua_isnil(L, -1)) {
    lua_pushstring(L, path);
    lua_setfield(L, -3, cut);
  } else if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), path) != 0) {
    lua_pushboolean(L, 0);
    lua_setfield(L, -3, cut);
  }
  lua_pop(L, 2);
}

void cl_embed_expand(lua_State *L) {
  if (lua_type(L, -1) != LUA_TSTRING) return;
  lua_getfield(L, LUA_REGISTRYINDEX, k_names);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  lua_pushnil(L);
  while (lua_next(L, -2)) { /* message, names, cut, whole */
    if (lua_type(L, -1) == LUA_TSTRING) {
      luaL_gsub(L, lua_tostring(L, -4), lua_tostring(L, -2), lua_tostring(L, -1));
      lua_replace(L, -5);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* Every file on the stack, so a runtime error in a chunk loaded some other way (loadstring with an
 * "@" name, a C module) is named whole too. */
static void remember_stack(lua_State *L) {
  lua_Debug ar;
  for (int level = 0; lua_getstack(L, level, &ar); ++level)
    if (lua_getinfo(L, "S", &ar) && ar.source && ar.source[0] == '@') cl_embed_remember(L, ar.source + 1);
}

/* loadfile(filename [, mode [, env]]): LuaJIT's own, with the file remembered and a load error's
 * message expanded. Upvalue 1: the original loadfile. */
static int whole_loadfile(lua_State *L) {
  if (lua_type(L, 1) == LUA_TSTRING) cl_embed_remember(L, lua_tostring(L, 1));
  int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  if (lua_isnil(L, 1) && lua_gettop(L) >= 2) {
    lua_pushvalue(L, 2);
    cl_embed_expand(L);
    lua_replace(L, 2);
  }
  return lua_gettop(L);
}

/* dofile([filename]): Lua 5.1's (load, raise the load error as it is, call with every result),
 * with the file remembered and a load error expanded. */
static int whole_dofile(lua_State *L) {
  const char *fname = luaL_optstring(L, 1, NULL);
  lua_settop(L, 1);
  if (fname) cl_embed_remember(L, fname);
  if (luaL_loadfile(L, fname) != 0) {
    cl_embed_expand(L);
    return lua_error(L);
  }
  lua_call(L, 0, LUA_MULTRET);
  return lua_gettop(L) - 1;
}

/* require's searcher of Lua files (package.loaders[2]): the file found on package.path is
 * remembered before it is loaded. Upvalue 1: the package table. Returns the loader, or the
 * "\n\tno file ..." text when there is no such file, as LuaJIT's own searcher does. */
static int whole_searcher(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  lua_getfield(L, lua_upvalueindex(1), "searchpath");
  lua_pushstring(L, name);
  lua_getfield(L, lua_upvalueindex(1), "path");
  if (!lua_isstring(L, -1)) return luaL_error(L, "'package.path' must be a string");
  lua_call(L, 2, 2);
  if (lua_isnil(L, -2)) return 1; /* the list of files tried */
  lua_pop(L, 1);
  const char *file = lua_tostring(L, -1);
  cl_embed_remember(L, file);
  if (luaL_loadfile(L, file) != 0) {
    cl_embed_expand(L);
    return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file, lua_tostring(L, -1));
  }
  return 1;
}

static void install_loaders(lua_State *L) {
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, k_names);

  lua_getglobal(L, "loadfile");
  lua_pushcclosure(L, whole_loadfile, 1);
  lua_setglobal(L, "loadfile");
  lua_pushcfunction(L, whole_dofile);
  lua_setglobal(L, "dofile");

  lua_getglobal(L, "package");
  lua_getfield(L, -1, "loaders");
  lua_getfield(L, -2, "searchpath");
  if (lua_istable(L, -2) && lua_isfunction(L, -1)) { /* LuaJIT 2.0 and 2.1 have both */
    lua_pushvalue(L, -3);
    lua_pushcclosure(L, whole_searcher, 1);
    lua_rawseti(L, -3, 2);
  }
  lua_pop(L, 3);
}

/* ---- the state and protected calls ---------------------------------------------------------- */

/* package.path = "<lua>/?.lua;<lua>/?/init.lua;" .. package.path, and the same for cpath. */
static void set_package_paths(lua_State *L, const char *lua_dir) {
  lua_getglobal(L, "package");
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  lua_getfield(L, -1, "path");
  lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s", lua_dir, lua_dir, lua_tostring(L, -1) ? lua_tostring(L, -1) : "");
  lua_setfield(L, -3, "path");
  lua_pop(L, 1);
  lua_getfield(L, -1, "cpath");
  lua_pushfstring(L, "%s/?.so;%s", lua_dir, lua_tostring(L, -1) ? lua_tostring(L, -1) : "");
  lua_setfield(L, -3, "cpath");
  lua_pop(L, 2);
}

lua_State *cl_embed_new_state(const char *who) {
  lua_State *L = luaL_newstate();
  if (!L) {
    fprintf(stderr, "%s: cannot create a Lua state (out of memory)\n", who);
    return NULL;
  }
  luaL_openlibs(L);
  char lua_dir[CL_EMBED_PATH_CAP];
  if (find_lua_dir(lua_dir, sizeof lua_dir) != 0) {
    fprintf(stderr,
            "%s: cannot find the Lua module tree (cleave/init.lua) beside the executable,\n"
            "in %s or in %s; set CLEAVE_LUA_DIR to the folder holding cleave/init.lua\n",
            who, CLEAVE_INSTALL_LUA_DIR, CLEAVE_BUILD_LUA_DIR);
    lua_close(L);
    return NULL;
  }
  set_package_paths(L, lua_dir);
  install_loaders(L);
  return L;
}

/* Is msg the error that cleave's own checks raised at the script's line (cleave.schema.raise keeps
 * it as last_raised)? Such a message already names the user's file and line and what was wrong;
 * its traceback would list only cleave's own frames. */
static int raised_by_cleave(lua_State *L, const char *msg) {
  const int top = lua_gettop(L);
  int yes = 0;
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "cleave.schema");
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "last_raised");
      yes = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), msg) == 0;
    }
  }
  lua_settop(L, top);
  return yes;
}

/* Message handler: "message" plus the Lua traceback, file names whole; an error of cleave's checks
 * at the script's line without it (CLEAVE_TRACEBACK set: always with it). Non-string errors are
 * described. */
static int traceback_handler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) {
      msg = lua_tostring(L, -1);
    } else {
      msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
  }
  remember_stack(L);
  if (raised_by_cleave(L, msg) && !getenv("CLEAVE_TRACEBACK"))
    lua_pushstring(L, msg);
  else
    luaL_traceback(L, L, msg, 1);
  cl_embed_expand(L);
  return 1;
}

int cl_embed_pcall(lua_State *L, int nargs, int nresults, const char *who) {
  int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, traceback_handler);
  lua_insert(L, base);
  int rc = lua_pcall(L, nargs, nresults, base);
  lua_remove(L, base);
  if (rc != 0) {
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "%s: %s\n", who, msg ? msg : "(error without a message)");
    lua_pop(L, 1);
    return 1;
  }
  return 0;
}
