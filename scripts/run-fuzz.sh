#!/usr/bin/env bash
# Run every mesh-reader fuzzer for a short while: usage  run-fuzz.sh BUILD_DIR SECONDS
# SECONDS is the total budget, shared equally by the fuzzers (at least 1 s each), so CI time stays
# predictable (`make fuzz` uses FUZZ_SECONDS=30). The seed corpus (fuzz/corpus/<format>) is copied
# to a temporary folder, so new inputs never land in the repository. A crash, leak, sanitizer
# report or timeout makes the script exit non-zero; the reproducer is copied to
# BUILD_DIR/fuzz-artifacts/ (replay: BUILD_DIR/fuzz/fuzz_<format> FILE).
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
build=$1
seconds=$2
here=$(cd "$(dirname "$0")/.." && pwd)
formats=(off obj stl node mesh)
per=$(( seconds / ${#formats[@]} ))
[ "$per" -ge 1 ] || per=1
work=$(mktemp -d "${TMPDIR:-/tmp}/cleave-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$build/fuzz-artifacts"
failed=()
for f in "${formats[@]}"; do
  exe="$build/fuzz/fuzz_$f"
  if [ ! -x "$exe" ]; then
    echo "run-fuzz: $exe is missing; build the fuzz_targets target (CLEAVE_FUZZ=ON, clang)" >&2
    exit 2
  fi
  mkdir -p "$work/$f/corpus" "$work/$f/artifacts"
  cp "$here/fuzz/corpus/$f/"* "$work/$f/corpus/"
  dict=()
  [ -f "$here/fuzz/dict/$f.dict" ] && dict=(-dict="$here/fuzz/dict/$f.dict")
  echo "== fuzz_$f for ${per}s"
  # -max_len: mesh headers and a few records fit; -rss_limit_mb: a trusted header count would show
  # up as a huge allocation; -timeout: a reader that loops is a failure too.
  if ! "$exe" "$work/$f/corpus" "${dict[@]}" -max_total_time="$per" -max_len=8192 -timeout=10 \
       -rss_limit_mb=1024 -malloc_limit_mb=256 -print_final_stats=1 \
       -artifact_prefix="$work/$f/artifacts/" >"$work/$f/log" 2>&1; then
    failed+=("$f")
    tail -n 60 "$work/$f/log"
    cp "$work/$f/artifacts/"* "$build/fuzz-artifacts/" 2>/dev/null || true
  fi
  grep -E "stat::number_of_executed_units|cov: .* ft: " "$work/$f/log" | tail -n 2 || true
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "run-fuzz: FAILED: ${failed[*]} (reproducers in $build/fuzz-artifacts/)" >&2
  exit 1
fi
echo "run-fuzz: no crash in ${#formats[@]} readers (${per}s each)"
