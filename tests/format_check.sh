#!/bin/sh
# format_check.sh - every C, header and CUDA file is formatted as .clang-format says (issue 20).
# `make format` applies it. The sources were formatted once (issue 20); CI (.ci/run) runs this check.
#
#   tests/format_check.sh [SOURCE_DIR] [FILE...]   (default: every *.c *.h *.cu outside build directories)
#
# Exit status: 0 formatted; 1 a file is not (clang-format names each line); 77 no clang-format here.
set -u
src=${1:-.}
[ $# -gt 0 ] && shift
cd "$src" || exit 2
command -v clang-format >/dev/null 2>&1 || { echo "format_check: no clang-format (apt-get install clang-format): SKIPPED" >&2; exit 77; }
[ -f .clang-format ] || { echo "format_check: $src has no .clang-format" >&2; exit 2; }
if [ $# -eq 0 ]; then
    set -- $(find . \( -name 'build*' -o -name '.git' \) -prune -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) \
             -print | sed 's#^\./##' | sort)
fi
if clang-format --style=file --dry-run --Werror "$@"; then
    echo "format_check: $# files formatted as .clang-format says"
else
    echo "format_check: files above differ from .clang-format (make format applies it)" >&2
    exit 1
fi
