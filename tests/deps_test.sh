#!/bin/sh
# deps_test.sh - the dependency step (.ci/deps.sh) against fake dpkg-query, apt-get, sudo and id
# placed first in PATH, so nothing is really queried or installed.
#
#   deps_test.sh DEPS_SH WORKDIR
#
# Cases: root with missing packages (they are named, with why, and installed with apt-get); a user
# with password-less sudo (installed through sudo -n); a user without root or sudo (the one-line
# command and exit 2); RINGBENCH_NO_INSTALL=1; only optional packages missing (a warning, exit 0);
# nothing missing (silent, exit 0). Label: unit.
set -u
deps=$1 work=$2
rm -rf "$work" && mkdir -p "$work/bin" || exit 1
fails=0
bad() { fails=$((fails + 1)); echo "FAIL: $*"; }

# The fakes. dpkg-query says "installed" for the packages listed in $work/installed; apt-get and
# sudo log their arguments; id -u answers $FAKE_UID; sudo -n succeeds only when $FAKE_SUDO = ok.
cat >"$work/bin/dpkg-query" <<'STUB'
#!/bin/sh
pkg=$(eval echo \${$#})
grep -qx "$pkg" "$FAKE_WORK/installed" && echo "install ok installed" && exit 0
echo "dpkg-query: no packages found matching $pkg" >&2
exit 1
STUB
cat >"$work/bin/apt-get" <<'STUB'
#!/bin/sh
echo "apt-get $* (frontend=${DEBIAN_FRONTEND:-})" >>"$FAKE_WORK/log"
exit 0
STUB
cat >"$work/bin/sudo" <<'STUB'
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
chmod +x "$work/bin/"*
export FAKE_WORK="$work"
unset RINGBENCH_NO_INSTALL

# run UID SUDO INSTALLED...: runs deps.sh with those fakes; status in $st, stderr in $work/err.
run() {
    FAKE_UID=$1 FAKE_SUDO=$2
    shift 2
    printf '%s\n' "$@" >"$work/installed"
    : >"$work/log"
    FAKE_UID=$FAKE_UID FAKE_SUDO=$FAKE_SUDO PATH="$work/bin:$PATH" sh "$deps" 2>"$work/err" >"$work/out"
    st=$?
}
has() { grep -q -- "$2" "$work/$1" || bad "$case: $1 lacks '$2': $(cat "$work/$1")"; }
hasnt() { ! grep -q -- "$2" "$work/$1" || bad "$case: $1 has '$2': $(cat "$work/$1")"; }

all_required="cmake make gcc g++ libhdf5-dev"
all_tests="gnuplot-nox hdf5-tools python3-h5py"
all_optional="libsqlite3-dev libjansson-dev"

case=root
# shellcheck disable=SC2086
run 0 no cmake make gcc g++ $all_tests
[ $st -eq 0 ] || bad "$case: exit $st: $(cat "$work/err")"
has err "missing libhdf5-dev (required): HDF5"
has err "missing libsqlite3-dev (optional)"
has err "installing: libhdf5-dev libsqlite3-dev libjansson-dev"
has log "apt-get update"
has log "apt-get install -y -qq --no-install-recommends libhdf5-dev (frontend=noninteractive)"
has log "apt-get install -y -qq --no-install-recommends libsqlite3-dev libjansson-dev"
hasnt log "sudo"
hasnt err "missing cmake"

case=sudo
# shellcheck disable=SC2086
run 1000 ok $all_required $all_optional
[ $st -eq 0 ] || bad "$case: exit $st: $(cat "$work/err")"
has err "missing gnuplot-nox (tests)"
has log "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gnuplot-nox hdf5-tools python3-h5py"

case=nosudo
# shellcheck disable=SC2086
run 1000 no cmake make gcc g++ $all_tests $all_optional
[ $st -eq 2 ] || bad "$case: exit $st, wanted 2"
[ "$(tail -n 1 "$work/err")" = "sudo apt-get update && sudo apt-get install -y libhdf5-dev" ] ||
    bad "$case: last line is not the one command: $(tail -n 1 "$work/err")"
[ -s "$work/log" ] && bad "$case: something was run: $(cat "$work/log")"

case=no_install
export RINGBENCH_NO_INSTALL=1
# shellcheck disable=SC2086
run 0 ok cmake make gcc $all_tests $all_optional
unset RINGBENCH_NO_INSTALL
[ $st -eq 2 ] || bad "$case: exit $st, wanted 2"
has err "RINGBENCH_NO_INSTALL=1"
has err "sudo apt-get install -y g++ libhdf5-dev"
[ -s "$work/log" ] && bad "$case: something was run: $(cat "$work/log")"

case=optional_only
# shellcheck disable=SC2086
run 1000 no $all_required $all_tests
[ $st -eq 0 ] || bad "$case: exit $st: $(cat "$work/err")"
has err "going on without: libsqlite3-dev libjansson-dev"

case=nothing_missing
# shellcheck disable=SC2086
run 1000 no $all_required $all_tests $all_optional
[ $st -eq 0 ] || bad "$case: exit $st: $(cat "$work/err")"
hasnt err "missing"
[ -s "$work/log" ] && bad "$case: something was run: $(cat "$work/log")"

[ $fails -eq 0 ] && echo "deps_test: all cases passed" && exit 0
exit 1
