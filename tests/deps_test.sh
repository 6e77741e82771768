#!/bin/sh
# deps_test.sh - the dependency step (.ci/deps.sh) judges needs by what works, not by package names.
#
#   deps_test.sh DEPS_SH WORKDIR
#
# The real cmake, C compiler and HDF5 of this machine are used (make test has already needed them);
# fakes first in PATH stand in for dpkg-query (says nothing is installed: deps.sh must not ask it),
# apt-get (logs, then succeeds or fails), sudo, id, and for the test and optional commands (gnuplot,
# h5dump, sqlite3, python3), each of which can be made to fail. Cases:
#   works        nothing installed by dpkg's account, apt-get failing: exit 0, apt never asked
#   apt_fails    gnuplot and pandas not working, apt-get failing: asked for only their packages, one
#                warning line each, exit 0, apt's output in the log, not on the terminal
#   root         gnuplot not working: apt-get asked for gnuplot-nox alone, as root
#   offline      apt-get failing (no network): install asked once, not once per package
#   sudo         the same as a user with password-less sudo: through sudo -n
#   no_cmake     a PATH without cmake (really absent): exit 2, cmake named, the one command
#   old_cmake    a cmake 3.20 first in PATH: exit 2, named as too old
#   no_hdf5      CMake told not to find HDF5 (really absent for the build): exit 2, libhdf5-dev named
#   nosudo       a user without sudo and HDF5 absent: told to install as root, never told "sudo"
#   no_install   RINGBENCH_NO_INSTALL=1: nothing run
#   not_debian   an os-release of another distribution: apt never asked
# Label: unit.
set -u
deps=$1 work=$2
rm -rf "$work" && mkdir -p "$work/bin" "$work/sys" || exit 1
fails=0
bad() { fails=$((fails + 1)); echo "FAIL: $case: $*"; }

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
echo "Reading package lists... (fake apt-get output that must not reach the terminal)"
[ "${FAKE_APT:-0}" = 0 ] || echo "E: Unable to locate package (fake)" >&2
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
for c in gnuplot h5dump sqlite3 clang clang-format; do
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
chmod +x "$work/bin/"* "$work/old/cmake" "$work/sudo/sudo"
ln -sf "$(command -v cmake)" "$work/cm/cmake"
printf 'ID=debian\nVERSION_ID="12"\n' >"$work/debian"
printf 'ID=fedora\nID_LIKE="rhel centos"\n' >"$work/fedora"

# A PATH with everything deps.sh and the compiler use, but no cmake: links to the real commands.
for c in sh dirname mktemp rm sed grep head cp cat awk env timeout make cc gcc as ld h5cc; do
    p=$(command -v "$c") && ln -sf "$p" "$work/sys/$c"
done
[ -e "$work/sys/cmake" ] && bad "the cmake-less PATH has a cmake"

# The real list without the optional libraries (SQLite, jansson): whether this machine has them is
# its own business (the H100 machine has neither), and the cases below must not depend on it. The
# library probe itself is exercised by the HDF5 cases.
grep -Ev '^(sqlite|jansson)[[:space:]]' "$(dirname "$deps")/packages" >"$work/packages"
grep -q '^hdf5 ' "$work/packages" && grep -q '^gnuplot ' "$work/packages" || bad "the list lost hdf5 or gnuplot"
export FAKE_WORK="$work" RINGBENCH_PYTHONS=python3 RINGBENCH_DEPS_LOG="$work/apt.log" RINGBENCH_DEPS_LIST="$work/packages"
unset RINGBENCH_NO_INSTALL RINGBENCH_CMAKE_ARGS CC

# run UID SUDO APT_STATUS BROKEN [PATH] [OS_RELEASE]: deps.sh with those fakes; status in $st. SUDO:
# ok (sudo -n works), no (sudo wants a password), absent (no sudo in PATH: give a PATH without one).
run() {
    : >"$work/log" && rm -f "$work/apt.log"
    sudo_dir="$work/sudo:"
    [ "$2" = absent ] && sudo_dir=""
    FAKE_UID=$1 FAKE_SUDO=$2 FAKE_APT=$3 FAKE_BROKEN=$4 PATH="$work/bin:$sudo_dir${5:-$PATH}" \
        RINGBENCH_OS_RELEASE=${6:-$work/debian} sh "$deps" 2>"$work/err" >"$work/out"
    st=$?
}
has() { grep -q -- "$2" "$work/$1" || bad "$1 lacks '$2': $(cat "$work/$1")"; }
hasnt() { ! grep -q -- "$2" "$work/$1" || bad "$1 has '$2': $(cat "$work/$1")"; }
status() { [ "$st" -eq "$1" ] || bad "exit $st, wanted $1: $(cat "$work/err")"; }

case=works
run 0 no 100 ""
status 0
[ -s "$work/log" ] && bad "apt-get was asked: $(cat "$work/log")"
hasnt err "MISSING"

case=apt_fails
run 0 no 100 "gnuplot pandas"
status 0
has log "apt-get update"
hasnt log "install.*libhdf5"
has err "warning: no gnuplot (tests; Debian package gnuplot-nox)"
has err "warning: no pandas (tests; Debian package python3-pandas)"
has err "log: $work/apt.log"
hasnt err "Reading package lists"
has apt.log "Reading package lists"
[ "$(wc -l <"$work/err")" -le 5 ] || bad "more than 5 lines on stderr: $(cat "$work/err")"

case=root
run 0 no 0 "gnuplot"
status 0
has log "apt-get install -y -qq --no-install-recommends gnuplot-nox"
[ "$(grep -c install "$work/log")" -eq 1 ] || bad "apt-get install asked more than once: $(cat "$work/log")"
hasnt log "sudo"

case=offline
run 0 no 100 "gnuplot h5dump pandas"
status 0
[ "$(grep -c install "$work/log")" -eq 1 ] || bad "apt-get install asked more than once after a failed update: $(cat "$work/log")"

case=sudo
run 1000 ok 0 "h5dump"
status 0
has log "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends hdf5-tools"

case=no_cmake
run 0 no 100 "" "$work/sys"
status 2
has err "MISSING cmake (required; Debian package cmake)"
has err "apt-get install -y cmake"

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
RINGBENCH_CMAKE_ARGS=-DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON run 1000 absent 0 "" "$work/sys:$work/cm"
status 2
[ -s "$work/log" ] && bad "something was run: $(cat "$work/log")"
has err "as root: apt-get update && apt-get install -y libhdf5-dev"
hasnt err "sudo apt-get"

case=no_install
RINGBENCH_NO_INSTALL=1 run 0 no 0 "gnuplot"
status 0
has err "RINGBENCH_NO_INSTALL=1"
[ -s "$work/log" ] && bad "something was run: $(cat "$work/log")"

case=not_debian
RINGBENCH_CMAKE_ARGS=-DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON run 0 no 0 "gnuplot" "$PATH" "$work/fedora"
status 2
[ -s "$work/log" ] && bad "apt-get was asked: $(cat "$work/log")"
has err "not Debian/Ubuntu"
has err "MISSING hdf5"

[ $fails -eq 0 ] && echo "deps_test: all cases passed" && exit 0
exit 1
