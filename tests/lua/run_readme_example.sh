#!/usr/bin/env bash
# The first ```lua block of README.md is what newcomers copy: run it (3 frames) in a scratch folder,
# once with every solver its `solver = ...` line names (the example promises that swapping the solver
# is that one word), each run checked for its probes, run record and plot.
set -euo pipefail
readme=$1
cleave=$2
dir=$3
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
awk '/^```lua/{f=1;next}/^```/{if(f)exit}f' "$readme" > example.lua
[ -s example.lua ] || { echo "no lua block in $readme"; exit 1; }
line=$(grep -m1 -E '^[[:space:]]*solver[[:space:]]*=' example.lua) || { echo "the example has no solver = line"; exit 1; }
solvers=$(printf '%s\n' "$line" | grep -oE '"[a-z_]+"' | tr -d '"')
[ "$(printf '%s\n' "$solvers" | wc -l)" -ge 2 ] || { echo "the solver line names fewer than two solvers: $line"; exit 1; }
for s in $solvers; do
  rm -rf out plots
  sed -E "0,/^([[:space:]]*solver[[:space:]]*=[[:space:]]*)\"[a-z_]+\"/s//\1\"$s\"/" example.lua > "example_$s.lua"
  grep -q "solver = \"$s\"" "example_$s.lua" || { echo "could not set solver $s"; exit 1; }
  "$cleave" run "example_$s.lua" --set frames=3
  [ -f out/twisted_bar/probes.csv ] && [ -f out/twisted_bar/run.json ] && [ -s plots/out/volume.png ] ||
    { echo "README example with solver $s did not write its outputs"; exit 1; }
  echo "README example ran with solver $s"
done
