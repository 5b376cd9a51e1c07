#!/usr/bin/env bash
# The graph_fem benchmark's command line: a short run on the coarse Charpy bar and sphere prints a
# row per configuration and thread count with finite figures, the Charpy rows with broken edges
# (the fracture and the coarse rebuild after breaks are measured), a V-cycle factor below 1 and the
# time per level; bad options are refused with status 2 and a message naming the option.
set -uo pipefail
bench=$1
. "$(dirname "$0")/cli_lib.sh" # fail, refuse

out=$("$bench" --quick --only charpy --threads 1) || fail "a quick Charpy run exited with $?"
for cfg in mg mg-w conv; do
  grep -qE "^  charpy +$cfg +1 " <<<"$out" || fail "no Charpy row '$cfg': $out"
done
# field 18 = V-cycle factor, 21 = edges broken (fields counted with the "|" separators)
awk '$1 == "charpy" && $2 == "mg" { found = 1; if (!($21 > 0)) bad = "no edge broke"; if (!($18 > 0 && $18 < 1)) bad = "factor " $18 }
     END { if (!found) bad = "no mg row"; if (bad != "") { print bad; exit 1 } }' <<<"$out" || fail "Charpy mg row: $out"
grep -q "L1 (50 handles)" <<<"$out" || fail "no per-level times: $out"
if grep -qiE "nan|inf" <<<"$(grep -E '^  charpy +mg ' <<<"$out" | cut -c1-60)"; then fail "non-finite figures: $out"; fi

out=$("$bench" --quick --only sphere --threads 1) || fail "a quick sphere run exited with $?"
grep -qE "^  sphere +mg +1 " <<<"$out" || fail "no sphere row: $out"

refuse '--steps 0: outside the allowed range' --steps 0
refuse '--threads x: not an integer' --threads x
refuse '--strength' --strength -1
refuse '--only cube: not one of charpy|sphere|armadillo' --only cube
refuse '--config mgw: not one of mg|mg-w|conv' --config mgw
refuse 'usage: cleave bench graph_fem \[--quick\] \[--steps N\].*\[--config mg|mg-w|conv\]' --config
refuse 'usage: cleave bench graph_fem' --bogus
echo "bench graph_fem command line ok"
