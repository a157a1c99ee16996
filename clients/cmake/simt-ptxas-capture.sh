#!/bin/sh
# simt-ptxas-capture.sh DIR TARGET QUIET COMPILER ARGS... - a compiler
# launcher for SimtOccupancy.cmake: runs the compile command exactly as
# given and keeps a copy of its output in DIR/<object>.ptxas, where <object>
# is the object's path below <TARGET>.dir/ with / made _ (the check step
# derives the same name from $<TARGET_OBJECTS>, so only the reports of the
# target's current objects are read). The output is passed through, but with
# QUIET=1 the -Xptxas -v lines (`ptxas info`, `N bytes stack frame`) are
# left out of the terminal.
# The compiler's exit status is returned as is.
dir=$1
target=$2
quiet=$3
shift 3
obj=
prev=
for arg in "$@"; do
    [ "$prev" = "-o" ] && obj=$arg
    prev=$arg
done
mkdir -p "$dir" || exit 1
rel=${obj##*/"$target".dir/}
name=$(printf '%s' "${rel:-unnamed}" | tr '/\\: ' '____')
log="$dir/$name.ptxas"
tmp="$log.$$"
"$@" >"$tmp.out" 2>"$tmp.err"
rc=$?
if [ "$quiet" = 1 ]; then
    grep -v -e '^ptxas info' -e '^ *[0-9]* bytes stack frame' "$tmp.out"
    grep -v -e '^ptxas info' -e '^ *[0-9]* bytes stack frame' "$tmp.err" >&2
else
    cat "$tmp.out"
    cat "$tmp.err" >&2
fi
cat "$tmp.out" "$tmp.err" >"$tmp"
rm -f "$tmp.out" "$tmp.err"
mv -f "$tmp" "$log"
exit $rc
