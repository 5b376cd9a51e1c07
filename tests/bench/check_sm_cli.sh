#!/usr/bin/env bash
# The shape-matching benchmark's command line, the way a user meets it: a short run writes the
# table, the checksum and a --trace file with one row per frame; a misspelt scene or option value is
# refused with status 2 and a message that names the option and what it allows.
set -uo pipefail
bench=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/cli_lib.sh" # fail, refuse

out=$("$bench" --scene plate_brittle_strong --threads 1 --frames 3 --checksum --trace "$work/t.tsv") ||
  fail "a 3-frame run exited with $?"
grep -Eq '^plate_brittle_strong +1 ' <<<"$out" || fail "no table row for the scene: $out"
grep -q 'checksum of the final positions: [0-9a-f]\{16\}' <<<"$out" || fail "no checksum line"
[ "$(grep -c '^#' "$work/t.tsv")" = 2 ] || fail "the trace should start with two comment lines"
rows=$(awk -F'\t' '!/^#/ && NF > 0' "$work/t.tsv")
[ "$(wc -l <<<"$rows")" = 3 ] || fail "the trace should have 3 rows: $(cat "$work/t.tsv")"
awk -F'\t' 'NF != 8 || $1 != NR || $2 <= 0 || $7 < 1 || $8 < 1 { bad = 1 } END { exit bad }' <<<"$rows" ||
  fail "trace rows are not: frame, five times (total > 0), pieces, nodes: $rows"

refuse '--scene plate_brittle_wek: no such scene; the scenes are:.*plate_brittle_weak' --scene plate_brittle_wek \
  --trace "$work/refused.tsv"
[ ! -e "$work/refused.tsv" ] || fail "a refused run left a trace file behind"
refuse '--frames x: not an integer (allowed: 1..100000)' --frames x
refuse '--frames 0: outside the allowed range 1..100000' --frames 0
refuse '--threads 1.5: not an integer' --threads 1.5
refuse "--trace $work/missing/t.tsv: cannot open the file for writing" --trace "$work/missing/t.tsv"
refuse 'usage: cleave bench shape_matching' --frames
echo "bench shape_matching command line ok"
