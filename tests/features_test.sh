#!/bin/sh
# features_test.sh - every optional feature whose Debian package is installed is on in this build.
#
#   features_test.sh PACKAGES CAPABILITY=ON|OFF...
#
# For each CAPABILITY=VALUE given (the build's RINGBENCH_HAVE_* as configured), the package that
# .ci/packages lists for that capability is asked of dpkg-query: installed while the feature is OFF
# is a failure (the configure did not find what `make deps` installed). Skipped (77) without
# dpkg-query. Label: unit.
set -u
list=$1
shift
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "no dpkg-query: not a Debian/Ubuntu system, nothing to compare; skipped"
    exit 77
fi
fails=0 checked=0
for kv in "$@"; do
    cap=${kv%%=*} val=${kv#*=}
    pkg=$(awk -v c="$cap" '!/^#/ && $1 == c { print $3 }' "$list")
    if [ -z "$pkg" ]; then
        echo "FAIL: $list lists no capability '$cap'"
        fails=$((fails + 1))
        continue
    fi
    checked=$((checked + 1))
    if dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
        if [ "$val" = ON ]; then
            echo "ok: $pkg installed, $cap on"
        else
            echo "FAIL: $pkg is installed but this build has $cap OFF (see the configure's 'ringbench: features' line)"
            fails=$((fails + 1))
        fi
    else
        echo "ok: $pkg not installed, $cap $val"
    fi
done
[ "$fails" -eq 0 ] && [ "$checked" -gt 0 ] && echo "features_test: $checked features agree with what is installed" && exit 0
exit 1
