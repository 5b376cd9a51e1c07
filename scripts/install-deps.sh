#!/usr/bin/env bash
# Install the Debian packages cleave needs, only those missing. As root it runs apt-get; otherwise it
# prints the exact apt-get line and stops. `--test` adds what the test suite and fuzzers need.
set -euo pipefail
pkgs=(cmake make gcc g++ pkg-config luajit libluajit-5.1-dev libsuitesparse-dev libtet1.5-dev
      libcmocka-dev gnuplot-nox
      libopenblas0-pthread)  # CHOLMOD's supernodal factorization runs on BLAS: OpenBLAS, not the reference one
if [ "${1:-}" = "--test" ]; then
  pkgs+=(clang libclang-rt-14-dev)
  # CI runs the Lua reliability reproducers under valgrind (the sanitizers do not reach through LuaJIT)
  pkgs+=(valgrind)
  # VTK reads our .vtu back in a test; it is large, so it is only pulled in for the tests.
  pkgs+=(python3-vtk9)
fi
missing=()
for p in "${pkgs[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
  echo "cleave: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/cleave-apt.log 2>&1; then
    # python3-vtk9 is optional: the VTU read-back test skips with a message without it.
    rest=()
    for p in "${missing[@]}"; do [ "$p" = python3-vtk9 ] || rest+=("$p"); done
    apt-get install -y -q --no-install-recommends "${rest[@]}" || { cat /tmp/cleave-apt.log; exit 1; }
    echo "cleave: python3-vtk9 could not be installed; the VTK read-back test will be skipped"
  fi
else
  echo "cleave: missing Debian packages. Install them with:"
  echo "  sudo apt-get install ${missing[*]}"
  exit 1
fi
