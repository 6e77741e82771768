#!/bin/sh
# deps_test.sh - the dependency step (.ci/deps.sh) judges needs by what works, not by package names.
#
#   deps_test.sh DEPS_SH WORKDIR
#
# The real cmake, C compiler and HDF5 of this machine are used (make test has already needed them);
# fakes first in PATH stand in for dpkg-query (says nothing is installed: deps.sh must not ask it),
# apt-get (logs, then succeeds or fails), sudo, id, and for the test and optional commands (gnuplot,
# h5dump, sqlite3, python3), each of which can be made to fail. nvcc is hidden from every case (PATH
# without it, RINGBENCH_CUDA_BIN elsewhere) except those that put a fake one in, so no case depends on
# whether this machine has the CUDA toolkit. What deps.sh printed under the fakes is shown, when a
# case fails, behind "fake| ", so a fake apt-get's messages never read as a real install. Cases:
#   works        nothing installed by dpkg's account, apt-get failing: exit 0, apt never asked, the
#                no-nvcc banner once and nothing else on stderr
#   nvcc         a (fake) nvcc and C++ compiler on PATH: no banner; RINGBENCH_NVCC_NOTE=0 without
#                nvcc: no banner; a fake nvcc without a C++ compiler: exit 2, c++ named (nvcc needs one)
#   apt_fails    gnuplot and pandas not working, apt-get failing: asked for only their packages, one
#                warning line each, exit 0, apt's output in the log, not on the terminal, no other line
#   ci           --ci: the ci needs (clang, clang-format, debootstrap) checked too; without it never
#   root         gnuplot not working: apt-get asked for gnuplot-nox alone, as root
#   offline      apt-get failing (no network): install asked once, not once per package
#   sudo         the same as a user with password-less sudo: through sudo -n
#   no_cmake     a PATH without cmake (really absent): exit 2, cmake named, the one command
#   old_cmake    a cmake 3.20 first in PATH: exit 2, named as too old
#   no_hdf5      CMake told not to find HDF5 (really absent for the build): exit 2, libhdf5-dev named
#   nosudo       a user without sudo and HDF5 absent: one command, as root, with apt-get update, that
#                installs every missing package (required, test and optional), never "sudo"
#   nosudo_tests the same with only test needs missing: exit 0 and the same one command
#   no_install   RINGBENCH_NO_INSTALL=1: nothing run
#   not_debian   an os-release of another distribution: apt never asked
# Label: unit.
set -u
deps=$1 work=$2
rm -rf "$work" && mkdir -p "$work/bin" "$work/sys" || exit 1
fails=0
bad() { fails=$((fails + 1)); echo "FAIL: $case: $*"; }
# shown FILE: what deps.sh wrote under the fakes, each line behind "fake| ".
shown() { printf '\n'; sed 's/^/    fake| /' "$work/$1"; }

# dpkg-query says nothing is installed; apt-get logs its arguments and exits $FAKE_APT (0 or 100);
# sudo -n works only when $FAKE_SUDO = ok; id -u answers $FAKE_UID; each test/optional command works
# unless its name is in $FAKE_BROKEN. Every command of .ci/packages's tests and optional needs has a fake
# here, so no case depends on what this machine has (the H100 machine has no clang-format).
cat >"$work/bin/dpkg-query" <<'STUB'
#!/bin/sh
echo "dpkg-query: no packages found matching $*" >&2
exit 1
STUB
cat >"$work/bin/apt-get" <<'STUB'
#!/bin/sh
echo "apt-get $*" >>"$FAKE_WORK/log"
echo "FAKE apt-get of tests/deps_test.sh: nothing installed (this line must stay in deps.sh's log)"
[ "${FAKE_APT:-0}" = 0 ] || echo "FAKE apt-get of tests/deps_test.sh: failing as asked" >&2
exit "${FAKE_APT:-0}"
STUB
mkdir -p "$work/sudo" "$work/cm"
cat >"$work/sudo/sudo" <<'STUB'
#!/bin/sh
[ "$FAKE_SUDO" = ok ] || { echo "sudo: a password is required" >&2; exit 1; }
[ "$1" = -n ] && shift
echo "sudo $*" >>"$FAKE_WORK/log"
exec "$@"
STUB
cat >"$work/bin/id" <<'STUB'
#!/bin/sh
echo "$FAKE_UID"
STUB
for c in gnuplot h5dump sqlite3 clang clang-format debootstrap; do
    printf '#!/bin/sh\ncase " $FAKE_BROKEN " in *" %s "*) exit 127 ;; esac\nexit 0\n' "$c" >"$work/bin/$c"
done
cat >"$work/bin/python3" <<'STUB'
#!/bin/sh
mod=${2#import }
case " $FAKE_BROKEN " in *" $mod "*) exit 1 ;; esac
exit 0
STUB
mkdir -p "$work/old" && cat >"$work/old/cmake" <<'STUB'
#!/bin/sh
echo "cmake version 3.20.0"
STUB
mkdir -p "$work/nvcc" "$work/cxx" && printf '#!/bin/sh\necho "fake nvcc"\n' >"$work/nvcc/nvcc"
printf '#!/bin/sh\necho "fake c++"\n' >"$work/cxx/c++"
chmod +x "$work/bin/"* "$work/old/cmake" "$work/sudo/sudo" "$work/nvcc/nvcc" "$work/cxx/c++"
ln -sf "$(command -v cmake)" "$work/cm/cmake"
printf 'ID=debian\nVERSION_ID="12"\n' >"$work/debian"
printf 'ID=fedora\nID_LIKE="rhel centos"\n' >"$work/fedora"

# This machine's PATH without the folders that hold an nvcc: the cases see no CUDA toolkit unless
# they put the fake one first.
nonvcc=""
old_ifs=$IFS
IFS=:
for d in $PATH; do
    [ -n "$d" ] && [ ! -x "$d/nvcc" ] && nonvcc="$nonvcc${nonvcc:+:}$d"
done
IFS=$old_ifs
PATH=$nonvcc
command -v nvcc >/dev/null 2>&1 && bad "nvcc is still on the PATH without it: $(command -v nvcc)"

# A PATH with everything deps.sh and the compiler use, but no cmake: links to the real commands.
for c in sh dirname mktemp rm sed grep head cp cat awk env timeout make cc gcc as ld h5cc; do
    p=$(command -v "$c") && ln -sf "$p" "$work/sys/$c"
done
[ -e "$work/sys/cmake" ] && bad "the cmake-less PATH has a cmake"

# The real list without the optional libraries (SQLite, libpq, jansson) and the PostgreSQL server:
# whether this machine has them is its own business (the H100 machine has none of them), and the cases
# below must not depend on it. The library probe itself is exercised by the HDF5 cases.
grep -Ev '^(sqlite|libpq|jansson|pg_server)[[:space:]]' "$(dirname "$deps")/packages" >"$work/packages"
grep -q '^hdf5 ' "$work/packages" && grep -q '^gnuplot ' "$work/packages" || bad "the list lost hdf5 or gnuplot"
export FAKE_WORK="$work" RINGBENCH_PYTHONS=python3 RINGBENCH_DEPS_LOG="$work/apt.log" RINGBENCH_DEPS_LIST="$work/packages"
export RINGBENCH_CUDA_BIN="$work/no-cuda/bin"
unset RINGBENCH_NO_INSTALL RINGBENCH_CMAKE_ARGS RINGBENCH_NVCC_NOTE CC

# run UID SUDO APT_STATUS BROKEN [PATH] [OS_RELEASE]: deps.sh with those fakes (and $DEPS_ARGS); status
# in $st. SUDO: ok (sudo -n works), no (sudo wants a password), absent (no sudo in PATH: give a PATH
# without one).
DEPS_ARGS=""
run() {
    : >"$work/log" && rm -f "$work/apt.log"
    sudo_dir="$work/sudo:"
    [ "$2" = absent ] && sudo_dir=""
    # shellcheck disable=SC2086 # DEPS_ARGS: a word list
    FAKE_UID=$1 FAKE_SUDO=$2 FAKE_APT=$3 FAKE_BROKEN=$4 PATH="$work/bin:$sudo_dir${5:-$PATH}" \
        RINGBENCH_OS_RELEASE=${6:-$work/debian} sh "$deps" $DEPS_ARGS 2>"$work/err" >"$work/out"
    st=$?
}
has() { grep -q -- "$2" "$work/$1" || bad "$1 lacks '$2':$(shown "$1")"; }
hasnt() { ! grep -q -- "$2" "$work/$1" || bad "$1 has '$2':$(shown "$1")"; }
status() { [ "$st" -eq "$1" ] || bad "exit $st, wanted $1:$(shown err)"; }
# only FILE PATTERN...: every line of FILE matches one of the (grep -E) patterns.
only() {
    f=$1
    shift
    others=$(for p in "$@"; do printf '%s\n' "$p"; done | grep -Ev -f /dev/stdin "$work/$f")
    [ -z "$others" ] || bad "$f has lines it should not: $others;$(shown "$f")"
}
# The no-nvcc banner's lines (deps.sh nvcc_note).
banner='^ringbench: (\*+|NO CUDA COMPILER.*|building the CPU REFERENCE.*|For the GPU backend.*|\(Debian/Ubuntu: .*|.cuda-toolkit. for WSL.*)$'
nbanner() { grep -c 'NO CUDA COMPILER' "$work/err"; }

case=works
run 0 no 100 ""
status 0
[ -s "$work/log" ] && bad "apt-get was asked:$(shown log)"
hasnt err "MISSING"
[ "$(nbanner)" -eq 1 ] || bad "the no-nvcc banner $(nbanner) times, wanted once:$(shown err)"
only err "$banner"

case=nvcc
run 0 no 100 "" "$work/nvcc:$work/cxx:$PATH"
status 0
hasnt err "NO CUDA COMPILER"
RINGBENCH_NVCC_NOTE=0 run 0 no 100 ""
status 0
hasnt err "NO CUDA COMPILER"
# $work/sys has a C compiler but no C++ one (no c++, no g++).
CXX=c++ run 0 no 100 "" "$work/nvcc:$work/sys:$work/cm"
status 2
has err "MISSING c++ (required; Debian package g++)"

case=apt_fails
run 0 no 100 "gnuplot pandas"
status 0
has log "apt-get update"
hasnt log "install.*libhdf5"
has log "install -y -qq --no-install-recommends gnuplot-nox python3-pandas"
has err "warning: no gnuplot (tests; Debian package gnuplot-nox)"
has err "warning: no pandas (tests; Debian package python3-pandas)"
has err "log: $work/apt.log"
hasnt err "FAKE apt-get"
has apt.log "FAKE apt-get"
[ "$(nbanner)" -eq 1 ] || bad "the no-nvcc banner $(nbanner) times, wanted once:$(shown err)"
only err "$banner" '^ringbench: installing gnuplot-nox python3-pandas with root apt-get' \
    '^ringbench: apt-get failed for some packages' '^ringbench: warning: no (gnuplot|pandas) '

case=ci
run 0 no 0 "clang-format debootstrap"
status 0
[ -s "$work/log" ] && bad "apt-get was asked for a ci need without --ci:$(shown log)"
DEPS_ARGS=--ci run 0 no 0 "clang-format debootstrap"
status 0
has log "install -y -qq --no-install-recommends clang-format debootstrap"

case=root
run 0 no 0 "gnuplot"
status 0
has log "apt-get install -y -qq --no-install-recommends gnuplot-nox"
[ "$(grep -c install "$work/log")" -eq 1 ] || bad "apt-get install asked more than once:$(shown log)"
hasnt log "sudo"

case=offline
run 0 no 100 "gnuplot h5dump pandas"
status 0
[ "$(grep -c install "$work/log")" -eq 1 ] || bad "apt-get install asked more than once after a failed update:$(shown log)"

case=sudo
run 1000 ok 0 "h5dump"
status 0
has log "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends hdf5-tools"

case=no_cmake
run 0 no 100 "" "$work/sys"
status 2
has err "MISSING cmake (required; Debian package cmake)"
has err "apt-get install -y --no-install-recommends cmake"

case=old_cmake
run 0 no 100 "" "$work/old:$PATH"
status 2
has err "MISSING cmake"
has err "cmake version 3.20.0"

case=no_hdf5
RINGBENCH_CMAKE_ARGS=-DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON run 0 no 100 ""
status 2
has err "MISSING hdf5 (required; Debian package libhdf5-dev)"
has log "install -y -qq --no-install-recommends libhdf5-dev"

case=nosudo
RINGBENCH_CMAKE_ARGS=-DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON run 1000 absent 0 "gnuplot pandas" "$work/sys:$work/cm"
status 2
[ -s "$work/log" ] && bad "something was run:$(shown log)"
has err "^as root: apt-get update && apt-get install -y --no-install-recommends libhdf5-dev gnuplot-nox python3-pandas\$"
[ "$(grep -c 'install -y' "$work/err")" -eq 1 ] || bad "not one install command:$(shown err)"
hasnt err "sudo apt-get"

case=nosudo_tests
run 1000 absent 0 "gnuplot h5dump" "$work/sys:$work/cm"
status 0
has err "^as root: apt-get update && apt-get install -y --no-install-recommends gnuplot-nox hdf5-tools\$"
[ "$(grep -c 'install -y' "$work/err")" -eq 1 ] || bad "not one install command:$(shown err)"

case=no_install
RINGBENCH_NO_INSTALL=1 run 0 no 0 "gnuplot"
status 0
has err "RINGBENCH_NO_INSTALL=1"
[ -s "$work/log" ] && bad "something was run:$(shown log)"

case=not_debian
RINGBENCH_CMAKE_ARGS=-DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON run 0 no 0 "gnuplot" "$PATH" "$work/fedora"
status 2
[ -s "$work/log" ] && bad "apt-get was asked:$(shown log)"
has err "not Debian/Ubuntu"
has err "MISSING hdf5"

[ $fails -eq 0 ] && echo "deps_test: all cases passed" && exit 0
exit 1
