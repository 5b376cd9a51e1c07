#!/usr/bin/env bash
# Install the build into a scratch prefix and use it the way a user would: the executable, a bench
# suite lookup, and `require "cleave"` from plain luajit with the installed module tree.
set -euo pipefail
build=$1
prefix=$2
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
"$prefix/bin/cleave" --version | grep -q '^cleave [0-9]'
[ -x "$prefix/libexec/cleave/cleave-bench-core" ]
[ -f "$prefix/share/cleave/plots/style.gp" ]
[ -f "$prefix/share/cleave/plots/bench_trace.lua" ]
[ -f "$prefix/include/cleave/cleave.h" ]
# every module of the build's tree is installed (init.lua is a facade over one file per subject)
for f in "$build"/lua/cleave/*.lua; do
  [ -f "$prefix/share/lua/5.1/cleave/$(basename "$f")" ] || { echo "not installed: $(basename "$f")" >&2; exit 1; }
done
[ -f "$prefix/share/cleave/experiments/scenes/init.lua" ]
# the shape-matching benchmark builds its scenes from the installed scene definitions and Lua tree
# (CLEAVE_SCENES unset: the copy beside the program comes before the source tree's)
out=$(env -u CLEAVE_SCENES -u CLEAVE_LUA_DIR "$prefix/libexec/cleave/cleave-bench-shape_matching" \
  --scene hollow_ball --frames 1 --threads 1)
grep -q '^hollow_ball  *1 ' <<<"$out" || { echo "installed bench: no hollow_ball row in: $out" >&2; exit 1; }
cd "$(mktemp -d)"
LUA_PATH="$prefix/share/lua/5.1/?.lua;$prefix/share/lua/5.1/?/init.lua;;" luajit -e '
  local cl = require "cleave"
  local m = cl.shape.box { size = { 1, 2, 3 } }
  assert(math.abs(m:info().measure - 6) < 1e-12, "box volume")
  assert(cl.version:match("^%d+%.%d+%.%d+$"), "version")
  local w = cl.world { gravity = { 0, 0, 0 } }
  w:step(2)
  assert(w:stats().steps == 2, "world steps")'
echo "install ok: $prefix"
