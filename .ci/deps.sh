#!/bin/sh
# deps.sh - checks that what ringbench needs *works*, and installs only what does not.
#
#   sh .ci/deps.sh          called by `make bench`, `make test` (as `make deps`)
#   sh .ci/deps.sh --ci     also CI's own tools (the needs of kind ci: clang, clang-format,
#                           debootstrap, the PostgreSQL server), called by .ci/run
#
# Each need of .ci/packages is a capability, checked as it would be used: a cmake of 3.25 or newer
# on PATH from any source (a Python environment's counts), a C compiler that compiles C11, an HDF5
# that the project's own CMake configure finds (the configure runs in probe mode: the same
# find_package calls as the build, with $RINGBENCH_CMAKE_ARGS), a gnuplot that runs, and so on.
# Package names matter only when something does not work: then, on Debian/Ubuntu, as root or with
# `sudo -n`, apt-get is asked for the packages of what is missing, quietly (its output goes to
# $RINGBENCH_DEPS_LOG, default ${TMPDIR:-/tmp}/ringbench-deps.log; the path is printed when it
# fails), and everything is checked again. What is still missing afterwards is named with why: a
# required need stops (exit 2); a missing test or optional need is one warning line each and the
# build goes on. Where it could not install, one command installs every missing package (required,
# test and optional together, after `apt-get update`), prefixed "as root:" for a user without sudo.
# RINGBENCH_NO_INSTALL=1 checks and never installs.
# Says loudly when there is no nvcc (only the CPU reference backend will be built), unless
# RINGBENCH_NVCC_NOTE=0: the Makefile sets it for its sub-makes, so one make command says it once.
# Exit status: 0 everything required works, 2 something required does not.
# Tested by tests/deps_test.sh (fake commands first in PATH, a failing apt-get, a required piece absent).
set -u
with_ci=0
case ${1:-} in
--ci) with_ci=1 ;;
'') ;;
*)
    printf 'usage: sh .ci/deps.sh [--ci]\n' >&2
    exit 2
    ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
list=${RINGBENCH_DEPS_LIST:-$here/packages} # another list: tests/deps_test.sh only
log=${RINGBENCH_DEPS_LOG:-${TMPDIR:-/tmp}/ringbench-deps.log}
say() { printf 'ringbench: %s\n' "$*" >&2; }

if [ ! -r "$list" ]; then
    say "cannot read the list of needs $list"
    exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ringbench-deps.XXXXXX") || {
    say "cannot make a temporary directory"
    exit 2
}
trap 'rm -rf "$work"' EXIT

# RINGBENCH_CUDA_BIN: where nvcc is looked for besides PATH (tests/deps_test.sh points it elsewhere).
have_nvcc() { command -v nvcc >/dev/null 2>&1 || [ -x "${RINGBENCH_CUDA_BIN:-/usr/local/cuda/bin}/nvcc" ]; }

# --- the checks: check_CAPABILITY returns 0 when it works ------------------------------------------
check_cmake() {
    v=$(cmake --version 2>/dev/null | sed -n '1s/^cmake version \([0-9][0-9.]*\).*/\1/p')
    [ -n "$v" ] || return 1
    major=${v%%.*} rest=${v#*.}
    minor=${rest%%.*}
    [ "$major" -gt 3 ] || { [ "$major" -eq 3 ] && [ "$minor" -ge 25 ]; }
}
check_make() { make --version >/dev/null 2>&1; }
check_cc() {
    printf '#include <stdio.h>\n_Static_assert(__STDC_VERSION__ >= 201112L, "C11");\nint main(void) { return 0; }\n' \
        >"$work/c11.c"
    ${CC:-cc} -std=c11 -o "$work/c11" "$work/c11.c" >/dev/null 2>&1
}
check_cxx() { ${CXX:-c++} --version >/dev/null 2>&1 || g++ --version >/dev/null 2>&1; }
check_gnuplot() { gnuplot --version >/dev/null 2>&1; }
check_h5dump() { h5dump --version >/dev/null 2>&1; }
check_sqlite3() { sqlite3 --version >/dev/null 2>&1; }
check_clang() { clang --version >/dev/null 2>&1; }
check_clang_format() { clang-format --version >/dev/null 2>&1; }
check_debootstrap() { debootstrap --version >/dev/null 2>&1; }
# PostgreSQL's server programs: on PATH, or where Debian keeps them (/usr/lib/postgresql/VERSION/bin,
# not on PATH); tests/pg_cluster.sh looks in the same places.
check_pg_server() {
    for d in "" /usr/lib/postgresql/*/bin/; do
        if [ -z "$d" ] || [ -x "${d}initdb" ]; then
            "${d}initdb" --version >/dev/null 2>&1 && "${d}pg_ctl" --version >/dev/null 2>&1 && return 0
        fi
    done
    return 1
}
# The tests use the first python3 that has the module: PATH's, else the distribution's (a pyenv or venv
# python3 on PATH often lacks what apt installed for /usr/bin/python3).
py_has() {
    for py in ${RINGBENCH_PYTHONS:-python3 /usr/bin/python3}; do
        "$py" -c "import $1" >/dev/null 2>&1 && return 0
    done
    return 1
}
check_h5py() { py_has h5py; }
check_pandas() { py_has pandas; }

# The libraries: what the project's own configure finds, asked once per round (probe_libs).
probe=""
probe_libs() {
    probe=unknown
    check_cmake && check_cc || return 0
    rm -rf "$work/probe"
    # RINGBENCH_CMAKE_ARGS is a word list on purpose (the Makefile passes its CMAKE_ARGS).
    # shellcheck disable=SC2086
    if cmake -S "$src" -B "$work/probe" -DRINGBENCH_DEPS_PROBE="$work/found" ${RINGBENCH_CMAKE_ARGS:-} \
        >"$work/probe.log" 2>&1 && [ -r "$work/found" ]; then
        probe=ok
    else
        cp "$work/probe.log" "$log.cmake" 2>/dev/null
        say "the CMake probe of the libraries failed (its log: $log.cmake)"
    fi
}
check_lib() { # check_lib NAME: the probe found it
    [ "$probe" = ok ] || return 1
    line=$(grep "^$1 " "$work/found")
    case $line in *" yes"* | *" ON") return 0 ;; esac
    return 1
}

check() { # check CAPABILITY
    case $1 in
    cmake) check_cmake ;;
    make) check_make ;;
    cc) check_cc ;;
    c++) check_cxx ;;
    hdf5 | sqlite | libpq | jansson) check_lib "$1" ;;
    gnuplot) check_gnuplot ;;
    h5dump) check_h5dump ;;
    sqlite3) check_sqlite3 ;;
    clang) check_clang ;;
    clang-format) check_clang_format ;;
    debootstrap) check_debootstrap ;;
    pg_server) check_pg_server ;;
    h5py) check_h5py ;;
    pandas) check_pandas ;;
    *)
        say "$list names an unknown capability '$1'"
        return 1
        ;;
    esac
}

# wanted KIND: whether needs of this kind are checked in this call (cuda ones only with nvcc, ci ones
# only with --ci).
wanted() {
    case $1 in
    cuda) have_nvcc ;;
    ci) [ $with_ci = 1 ] ;;
    *) return 0 ;;
    esac
}

# check_all: fills $missing_pkgs (every package of a need that does not work) and $missing_required.
check_all() {
    missing_pkgs="" missing_required=""
    probe_libs
    while read -r cap kind pkg why; do
        case $cap in '' | '#'*) continue ;; esac
        wanted "$kind" || continue
        check "$cap" && continue
        missing_pkgs="$missing_pkgs $pkg"
        case $kind in required | cuda) missing_required="$missing_required $pkg" ;; esac
    done <"$list"
}

# report: one line per need that still does not work.
report() {
    while read -r cap kind pkg why; do
        case $cap in '' | '#'*) continue ;; esac
        case " $missing_pkgs " in *" $pkg "*) ;; *) continue ;; esac
        case $kind in
        required | cuda)
            if [ "$cap" = cmake ] && [ -n "$(cmake --version 2>/dev/null)" ]; then why="$why; found $(cmake --version | head -n 1)"; fi
            case $cap in hdf5 | sqlite | libpq | jansson) [ "$probe" = ok ] || why="$why (not checked: CMake and a C compiler must work first)" ;; esac
            say "MISSING $cap (required; Debian package $pkg): $why"
            ;;
        *) say "warning: no $cap ($kind; Debian package $pkg): $why" ;;
        esac
    done <"$list"
}

nvcc_note() {
    have_nvcc && return 0
    [ "${RINGBENCH_NVCC_NOTE:-1}" = 0 ] && return 0
    say "********************************************************************************"
    say "NO CUDA COMPILER (nvcc not in PATH nor in ${RINGBENCH_CUDA_BIN:-/usr/local/cuda/bin}):"
    say "building the CPU REFERENCE BACKEND ONLY -- its numbers are not GPU measurements."
    say "For the GPU backend install the CUDA toolkit: https://developer.nvidia.com/cuda-downloads"
    say "(Debian/Ubuntu: NVIDIA's apt repository, then 'apt-get install cuda-toolkit'; on WSL2 the"
    say "'cuda-toolkit' for WSL, not a Linux driver), then 'make clean' and run this again."
    say "********************************************************************************"
}

is_debian() {
    command -v apt-get >/dev/null 2>&1 || return 1
    osr=${RINGBENCH_OS_RELEASE:-/etc/os-release}
    [ -r "$osr" ] || return 1
    grep -Eq '^(ID|ID_LIKE)=.*(debian|ubuntu)' "$osr"
}

# --- check; install what does not work; check again -------------------------------------------------
check_all
if [ -z "$missing_pkgs" ]; then
    nvcc_note
    exit 0
fi

as=no why_not=""
if ! is_debian; then
    why_not="not Debian/Ubuntu (no apt-get or no debian/ubuntu in /etc/os-release)"
elif [ "${RINGBENCH_NO_INSTALL:-0}" = 1 ]; then
    why_not="RINGBENCH_NO_INSTALL=1"
elif [ "$(id -u)" = 0 ]; then
    as=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
    as="sudo -n"
else
    why_not="not root, and sudo needs a password (or there is no sudo)"
fi

if [ "$as" != no ]; then
    say "installing$missing_pkgs with ${as:-root} apt-get (log: $log; RINGBENCH_NO_INSTALL=1 to stop this)"
    # $as and the package lists are word lists on purpose: unquoted below.
    # shellcheck disable=SC2086
    apt() { ${tmo:-} $as env DEBIAN_FRONTEND=noninteractive apt-get "$@" >>"$log" 2>&1; }
    tmo=""
    command -v timeout >/dev/null 2>&1 && tmo="timeout 180"
    : >"$log" 2>/dev/null || log=/dev/null
    # Everything in one call first. A failed update (one source unreachable, no network) still leaves
    # the lists apt has, so that call is made anyway. When it fails after a good update, each package
    # is tried alone, so one a distribution lacks does not stop the rest; without a good update a
    # second round would only fail again, slowly on a machine without network.
    ok=1 updated=1
    apt update -qq || updated=0
    # shellcheck disable=SC2086
    if ! apt install -y -qq --no-install-recommends $missing_pkgs; then
        ok=0
        if [ $updated = 1 ]; then
            for p in $missing_pkgs; do apt install -y -qq --no-install-recommends "$p"; done
        fi
    fi
    [ $ok = 1 ] || say "apt-get failed for some packages (its log: $log); checking what works anyway"
    check_all
    why_not="apt-get could not install it"
fi

# install_cmd: the one command that installs every package still missing (required, test and
# optional at once), as this user can run it.
install_cmd() {
    apt="apt-get install -y --no-install-recommends$missing_pkgs"
    if [ "$(id -u)" = 0 ]; then
        echo "apt-get update && $apt"
    elif command -v sudo >/dev/null 2>&1; then
        echo "sudo apt-get update && sudo $apt"
    else
        echo "as root: apt-get update && $apt"
    fi
}

report
if [ -n "$missing_required" ]; then
    if is_debian; then
        say "cannot build: a required need does not work ($why_not). Install what is missing, then the same make command again:"
        install_cmd >&2
    else
        say "cannot build: a required need does not work ($why_not). Install the capabilities named MISSING above"
        say "(CMake >= 3.25 on PATH; HDF5 in a prefix: make CMAKE_ARGS=-DHDF5_ROOT=<prefix>), then the same make command again."
    fi
    exit 2
fi
if [ -n "$why_not" ] && [ "$as" = no ] && is_debian; then
    say "not installed ($why_not); this installs what is missing:"
    install_cmd >&2
fi
nvcc_note
exit 0
