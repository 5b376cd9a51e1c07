#!/usr/bin/env bash
# Install the Debian packages cleave needs, only those missing. As root it runs apt-get; otherwise it
# prints the exact apt-get line and stops. `--test` adds what the test suite and fuzzers need.
set -euo pipefail
pkgs=(cmake make gcc g++ pkg-config luajit libluajit-5.1-dev libsuitesparse-dev libtet1.5-dev
      libcmocka-dev gnuplot-nox
      libopenblas0-pthread)  # CHOLMOD's supernodal factorization runs on BLAS: OpenBLAS, not the reference one
optional=()
if [ "${1:-}" = "--test" ]; then
  pkgs+=(clang libclang-rt-14-dev)
  # CI runs the Lua reliability reproducers under valgrind (the sanitizers do not reach through LuaJIT)
  pkgs+=(valgrind)
  # VTK reads our .vtu back in a test; it is large, so it is only pulled in for the tests.
  pkgs+=(python3-vtk9)
  # GNU parallel runs a sweep's job list for real (tests/lua/test_sweep_cluster.lua). The same test
  # starts a single-node Slurm of its own (munged, slurmctld, slurmd in a scratch folder); without
  # these packages it says so and checks the job script without Slurm.
  pkgs+=(parallel)
  optional=(munge slurmctld slurmd slurm-client)
fi
installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]; }
missing=()
for p in "${pkgs[@]}"; do installed "$p" || missing+=("$p"); done
optional_missing=()
for p in ${optional[@]+"${optional[@]}"}; do installed "$p" || optional_missing+=("$p"); done
# Optional packages (as root only): a test that needs one says why it fell back without it. Their
# services are not started here (policy-rc.d in containers; the test starts its own daemons).
install_optional() {
  [ ${#optional_missing[@]} -eq 0 ] && return 0
  if apt-get install -y -q --no-install-recommends "${optional_missing[@]}" >>/tmp/cleave-apt.log 2>&1; then
    echo "cleave: installed ${optional_missing[*]}"
  else
    echo "cleave: ${optional_missing[*]} could not be installed; the Slurm test will check the job script without Slurm"
  fi
}
if [ ${#missing[@]} -eq 0 ]; then
  [ ${#optional_missing[@]} -eq 0 ] || [ "$(id -u)" -ne 0 ] && exit 0
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  install_optional
  exit 0
fi
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
  install_optional
else
  echo "cleave: missing Debian packages. Install them with:"
  echo "  sudo apt-get install ${missing[*]}"
  exit 1
fi
