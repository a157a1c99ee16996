#!/bin/sh
# setup.sh - installs this folder's npm packages (package-lock.json, `npm ci`)
# into node_modules when they are missing or older than the lock file.
# Exits 77 (ctest: skipped) when npm is missing or the install fails, so that
# a machine without the registry still runs every other test.
here=$(cd "$(dirname "$0")" && pwd)
stamp="$here/node_modules/.package-lock.json"
if [ -f "$stamp" ] && [ ! "$here/package-lock.json" -nt "$stamp" ]; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "SKIPPED: npm is not installed (.ci/deps installs it)"
    exit 77
fi
cd "$here" || exit 1
if ! npm ci --no-audit --no-fund --loglevel=error; then
    echo "SKIPPED: npm ci failed (is the npm registry reachable?)"
    exit 77
fi
