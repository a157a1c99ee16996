#!/bin/sh
# simt-ptxas-capture.sh DIR COMPILER ARGS... - a CUDA compiler launcher for
# SimtOccupancy.cmake: runs the compile command exactly as given, passes its
# output through unchanged, and keeps a copy in DIR/<object>.ptxas so that
# `simt ptxas` can read the resource lines (-Xptxas -v) after the build.
# The compiler's exit status is returned as is.
dir=$1
shift
obj=
prev=
for arg in "$@"; do
    [ "$prev" = "-o" ] && obj=$arg
    prev=$arg
done
mkdir -p "$dir" || exit 1
name=$(printf '%s' "${obj:-unnamed}" | tr '/\\: ' '____')
log="$dir/$name.ptxas"
"$@" >"$log.out" 2>"$log.err"
rc=$?
cat "$log.out"
cat "$log.err" >&2
cat "$log.out" "$log.err" >"$log"
rm -f "$log.out" "$log.err"
exit $rc
