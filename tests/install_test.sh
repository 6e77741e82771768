#!/bin/sh
# install_test.sh - `make install` puts a working ringbench into PREFIX/bin.
#
#   install_test.sh CMAKE BUILD_DIR PREFIX VERSION
#
# Runs `CMAKE --install BUILD_DIR --prefix PREFIX` (what `make install` runs) into a scratch PREFIX,
# then PREFIX/bin/ringbench --version from an unrelated folder, which must name VERSION. Label: unit.
set -u
cmake=$1 build=$2 prefix=$3 version=$4
rm -rf "$prefix" || exit 1
if ! "$cmake" --install "$build" --prefix "$prefix" >"$prefix.log" 2>&1; then
    echo "FAIL: $cmake --install $build --prefix $prefix failed:"
    cat "$prefix.log"
    exit 1
fi
bin=$prefix/bin/ringbench
[ -x "$bin" ] || {
    echo "FAIL: no executable $bin after the install; it installed:"
    cat "$prefix.log"
    exit 1
}
out=$(cd / && "$bin" --version 2>&1) || {
    echo "FAIL: $bin --version exited $?: $out"
    exit 1
}
case $out in
*"$version"*) echo "install_test: $bin --version: $out" ;;
*)
    echo "FAIL: $bin --version says '$out', not version $version"
    exit 1
    ;;
esac
