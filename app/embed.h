/* Embedding LuaJIT for cleave: the Lua state the `cleave` executable runs scripts in, shared with the
 * benchmark programs that build their scenes from the Lua scene definitions (bench/bench_scenes.c).
 *
 * Whole file names in messages. LuaJIT writes a file's chunk name into "file:line:" positions,
 * tracebacks and short_src cut to its last LUA_IDSIZE - 4 (56) characters behind "...", so a
 * script at a long path was reported as ".../tests/lua-tmp/cli/syntax_error.lua:2". The state
 * keeps the real chunk names (debug.getinfo(1, "S").source stays the script's path, which scripts
 * use to find the files beside them) and remembers, for every file it loads (the script, and
 * loadfile, dofile and require's Lua searcher, which it wraps), the cut form and the whole name.
 * cl_embed_expand puts the whole names back into a message; cl_embed_pcall's error handler does
 * so for every error it prints, and the wrapped loaders for the load errors they return. */
#ifndef CL_EMBED_H
#define CL_EMBED_H

#include <stddef.h>

#include <lua.h>

enum { CL_EMBED_PATH_CAP = 4096 };

/* Directory of the running executable (no trailing slash); a regular file exists; out = a "/" b.
 * Each returns 0 / 1 as its name says, or -1 when the result does not fit in cap. */
int cl_embed_exe_dir(char *out, size_t cap);
int cl_embed_is_file(const char *path);
int cl_embed_join(char *out, size_t cap, const char *a, const char *b);

/* A Lua state with the standard libraries, the cleave module tree first on package.path
 * ($CLEAVE_LUA_DIR, beside the executable, or the install tree) and the loaders above; `who`
 * prefixes the message when the module tree cannot be found. NULL on failure (message printed). */
lua_State *cl_embed_new_state(const char *who);

/* Remember the file `path` (a chunk name "@path") so its cut form can be expanded. */
void cl_embed_remember(lua_State *L, const char *path);

/* Replace the string on top of the stack by the same text with every cut file name whole. */
void cl_embed_expand(lua_State *L);

/* Call the function below `nargs` arguments with a traceback handler, keeping `nresults` results.
 * On error prints "<who>: <message>" and the traceback to stderr (file names whole) and returns 1;
 * 0 on success. */
int cl_embed_pcall(lua_State *L, int nargs, int nresults, const char *who);

#endif
