#!/bin/sh
# deps.sh - installs what ringbench needs, from the one package list in .ci/packages.
#
#   sh .ci/deps.sh          called by `make bench`, `make test` and .ci/run before they build
#
# Asks dpkg-query which packages of the list are missing, says which and why, and installs them with
# apt-get: directly when running as root, with `sudo -n` when that works without a password. When
# neither works, or RINGBENCH_NO_INSTALL=1, it prints the one command to run and exits 2 if a
# required package is missing (a missing optional or test package is only a warning). Says loudly
# when there is no nvcc: only the CPU reference backend will be built. On a system without dpkg it
# checks nothing and lets CMake say what it cannot find.
# Exit status: 0 everything required is there, 2 something required is missing and was not installed.
# Tested by tests/deps_test.sh with fake dpkg-query, apt-get, sudo and id first in PATH.
set -u
here=$(cd "$(dirname "$0")" && pwd)
list=$here/packages
say() { printf 'ringbench: %s\n' "$*" >&2; }

# --- nvcc -------------------------------------------------------------------------------------------
nvcc_note() {
    if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then return 0; fi
    say "********************************************************************************"
    say "NO CUDA COMPILER (nvcc not in PATH nor in /usr/local/cuda/bin):"
    say "building the CPU REFERENCE BACKEND ONLY -- its numbers are not GPU measurements."
    say "For the GPU backend install the CUDA toolkit: https://developer.nvidia.com/cuda-downloads"
    say "(Debian/Ubuntu: NVIDIA's apt repository, then 'apt-get install cuda-toolkit'; on WSL2 the"
    say "'cuda-toolkit' for WSL, not a Linux driver), then 'make clean' and run this again."
    say "********************************************************************************"
}

if ! command -v dpkg-query >/dev/null 2>&1; then
    say "not a Debian/Ubuntu system (no dpkg-query): not checking packages; see README 'Set-up'"
    nvcc_note
    exit 0
fi
if [ ! -r "$list" ]; then
    say "cannot read the package list $list"
    exit 2
fi

# --- what is missing --------------------------------------------------------------------------------
missing="" missing_required="" missing_optional=""
while read -r pkg kind why; do
    case $pkg in '' | '#'*) continue ;; esac
    if dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then continue; fi
    missing="$missing $pkg"
    [ "$kind" = required ] && missing_required="$missing_required $pkg"
    [ "$kind" = optional ] && missing_optional="$missing_optional $pkg"
    say "missing $pkg ($kind): $why"
done <"$list"

if [ -z "$missing" ]; then
    nvcc_note
    exit 0
fi

# --- install, or say the one command ----------------------------------------------------------------
as=""
if [ "${RINGBENCH_NO_INSTALL:-0}" = 1 ]; then
    as="no"
    say "RINGBENCH_NO_INSTALL=1: not installing anything"
elif [ "$(id -u)" = 0 ]; then
    as=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
    as="sudo -n"
else
    as="no"
    say "not root, and sudo needs a password (or there is no sudo): cannot install by myself"
fi

if [ "$as" = no ]; then
    if [ -n "$missing_required" ]; then
        say "run this, then the same make command again:"
        echo "sudo apt-get update && sudo apt-get install -y$missing" >&2
        exit 2
    fi
    say "going on without:$missing (to install them: sudo apt-get update && sudo apt-get install -y$missing)"
    nvcc_note
    exit 0
fi

say "installing:$missing (with ${as:-root} apt-get; RINGBENCH_NO_INSTALL=1 to stop this)"
# Optional packages go in a second apt-get call, so that one a distribution lacks cannot stop the rest.
core="" extra=""
for p in $missing; do
    case " $missing_optional " in *" $p "*) extra="$extra $p" ;; *) core="$core $p" ;; esac
done
# $as, $core and $extra are word lists on purpose: unquoted below.
# shellcheck disable=SC2086
apt() { $as env DEBIAN_FRONTEND=noninteractive apt-get "$@" >&2; }
ok=1
apt update -qq || ok=0
# shellcheck disable=SC2086
if [ $ok = 1 ] && [ -n "$core" ]; then apt install -y -qq --no-install-recommends $core || ok=0; fi
if [ $ok = 0 ]; then
    if [ -n "$missing_required" ]; then
        say "apt-get failed; run this, then the same make command again:"
        echo "sudo apt-get update && sudo apt-get install -y$missing" >&2
        exit 2
    fi
    say "apt-get failed; going on without:$core"
fi
if [ $ok = 1 ] && [ -n "$extra" ]; then
    # shellcheck disable=SC2086
    apt install -y -qq --no-install-recommends $extra || say "could not install the optional$extra; going on without"
fi
nvcc_note
exit 0
