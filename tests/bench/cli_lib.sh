# Shared by the check_*_cli.sh scripts (sourced; they set `bench` to the program under test first).
# fail MESSAGE: print it and end the check with status 1.
fail() { echo "FAIL: $*" >&2; exit 1; }

# refuse EXPECTED-PATTERN ARGS...: running the benchmark with ARGS exits with status 2 (a usage
# error) and says something matching the pattern on stderr.
refuse() {
  local pattern=$1
  shift
  local err
  err=$("$bench" "$@" 2>&1 >/dev/null)
  local rc=$?
  [ $rc = 2 ] || fail "'$*' exited with $rc, not 2"
  grep -q -- "$pattern" <<<"$err" || fail "'$*' said: $err (expected: $pattern)"
}
