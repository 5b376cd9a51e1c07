/* Benchmark scenes from the Lua scene definitions (experiments/scenes/): the very scenes the
 * experiments run, built by their build functions, then timed in C on the internal structures.
 *
 * The program embeds LuaJIT (app/embed.c) and links the static cleave_internal whole, with its
 * symbols exported (CMake ENABLE_EXPORTS); the Lua module is told by CLEAVE_LIB=process to call
 * those symbols (ffi.C) instead of loading libcleave.so, so the process holds one copy of the
 * library: the worlds Lua builds are the ones C steps. Opening checks that no libcleave.so was
 * mapped.
 *
 *   cl_bench_scenes *S = cl_bench_scenes_open("cleave bench shape_matching", "shape_matching");
 *   for (int i = 0; i < S->count; ++i) S->list[i].name ...      // the family's benchmark scenes
 *   cl_world *w; cl_id body;
 *   cl_bench_scene_build(S, "plate_ductile", threads, &w, &body);   // the scene's defaults
 *   ... step and time w ...
 *   cl_bench_scene_release(S);                                  // destroys w (through Lua)
 *   cl_bench_scenes_close(S); */
#ifndef CL_BENCH_SCENES_H
#define CL_BENCH_SCENES_H

#include "cleave/cleave.h"

typedef struct cl_bench_scene {
  char name[64];
  int big;           /* info.bench.big: skipped by --quick */
  int iterations;    /* the scene's strain-limiting iterations (a column of the table) */
} cl_bench_scene;

typedef struct cl_bench_scenes {
  cl_bench_scene *list; /* the family's scenes that have info.bench, in the catalogue's order */
  int count;
  struct lua_State *L;
  const char *prog; /* prefix of error messages */
} cl_bench_scenes;

/* Load the scene catalogue ($CLEAVE_SCENES, the installed copy beside the program, or the source
 * tree's experiments/scenes) and list `family`'s benchmark scenes. Prints the error and exits 1 on
 * failure. */
cl_bench_scenes *cl_bench_scenes_open(const char *prog, const char *family);
/* Build scene `name` with its defaults and `threads` OpenMP threads: the world and its main body.
 * Exits 1 with the Lua error on failure. */
void cl_bench_scene_build(cl_bench_scenes *s, const char *name, int threads, cl_world **world, cl_id *body);
/* Destroy the scene built last (its world, through the Lua handle that owns it). */
void cl_bench_scene_release(cl_bench_scenes *s);
void cl_bench_scenes_close(cl_bench_scenes *s);

/* Called by the Lua side through the FFI (exported with the program's symbols): the world and body
 * the scene just built. */
void cl_bench_take_scene(cl_world *world, cl_id body);

#endif
