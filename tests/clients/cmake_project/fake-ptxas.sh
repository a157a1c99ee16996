#!/bin/sh
# fake-ptxas.sh COMPILER ARGS... - a C compiler launcher standing in for
# nvcc -Xptxas -v where there is no CUDA toolkit: it prints the `//ptxas:`
# lines of the source being compiled (real ptxas output, kept in the .c
# file) on stderr, as ptxas would, then runs the compile command as given.
for arg in "$@"; do
    case $arg in
        *.c) sed -n 's|^//ptxas:||p' "$arg" >&2 ;;
    esac
done
exec "$@"
