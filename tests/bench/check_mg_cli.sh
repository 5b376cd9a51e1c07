#!/usr/bin/env bash
# The multigrid benchmark's command line: a short run prints a row per solver with a residual at or
# below the 1e-6 it asks for, the multigrid rows their levels and convergence factors; bad options are
# refused with status 2 and a message that names the option and what it allows.
set -uo pipefail
bench=$1
. "$(dirname "$0")/cli_lib.sh" # fail, refuse

out=$("$bench" --quick --only charpy --threads 1) || fail "a quick run exited with $?"
for row in 'pcg (block Jacobi)' 'cholmod (fresh factor)' 'mg pcg 50/all ' 'mg fixed 50/1000/all' 'mg pcg 50/all GS 1'; do
  grep -qF -- "  $row" <<<"$out" || fail "no row '$row': $out"
done
awk '/ residual / { for (i = 1; i <= NF; ++i) if ($i == "residual" && $(i + 1) + 0 > 1e-6) bad = 1 }
     END { exit bad }' <<<"$out" || fail "a solver stopped above 1e-6: $out"
grep -q 'levels: 0: [0-9]* nodes' <<<"$out" || fail "no level sizes"
grep -q 'factor 0\.[0-9]*' <<<"$out" || fail "no convergence factor"

refuse '--runs 0: outside the allowed range 1..64' --runs 0
refuse '--threads x: not an integer' --threads x
refuse '--only cube: not one of charpy|sphere' --only cube
refuse 'usage: cleave bench multigrid' --runs
echo "bench multigrid command line ok"
