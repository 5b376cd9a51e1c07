#!/usr/bin/env bash
# The first ```lua block of README.md is what newcomers copy: run it (3 frames) in a scratch folder.
set -euo pipefail
readme=$1
cleave=$2
dir=$3
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
awk '/^```lua/{f=1;next}/^```/{if(f)exit}f' "$readme" > example.lua
[ -s example.lua ] || { echo "no lua block in $readme"; exit 1; }
"$cleave" run example.lua --set frames=3
[ -f out/twisted_bar/probes.csv ] && [ -f out/twisted_bar/run.json ] && [ -s plots/out/volume.png ]
echo "README example ran"
