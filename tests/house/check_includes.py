#!/usr/bin/env python3
"""check_includes.py - the house's floors, enforced: which headers each
product folder may include (docs in api/ARCHITECTURE.md, "The floors").

    model/    standard C headers for pure code, and model/'s own headers
    hwdb/     + libyaml and the POSIX file calls a loader needs; model/, hwdb/
    api/      + jansson; model/, hwdb/, api/ (no microhttpd, no server/)
    server/   + microhttpd and POSIX; api/, hwdb/, model/ (no clients/)
    clients/cli/  + POSIX sockets; api/, hwdb/, model/ (offline mode)

A quoted include names a header by file name; it is resolved to the product
folder that holds it. Prints one line per crossing, "file:line: folder/ may
not include X (...)", and exits 1 when there is any; 0 and a summary line
otherwise.

Usage: check_includes.py [ROOT]   (default: the repository this file is in)
"""
import os
import re
import sys

PURE_STD = {"stdint.h", "stddef.h", "stdbool.h", "math.h", "string.h", "stdio.h",
            "stdarg.h", "limits.h", "float.h", "assert.h"}
LOADER_STD = PURE_STD | {"stdlib.h", "ctype.h", "errno.h", "locale.h", "stdatomic.h",
                         "dirent.h", "fcntl.h", "unistd.h", "sys/stat.h", "sys/types.h"}
API_STD = LOADER_STD | {"strings.h", "time.h"}
FLOORS = {
    # folder: (system headers allowed (None: any), product folders whose headers it may include)
    "model": (PURE_STD, {"model"}),
    "hwdb": (LOADER_STD | {"yaml.h"}, {"model", "hwdb"}),
    "api": (API_STD | {"jansson.h"}, {"model", "hwdb", "api"}),
    "server": (None, {"model", "hwdb", "api", "server"}),
    "clients/cli": (None, {"model", "hwdb", "api", "clients/cli"}),
}
FORBIDDEN_ANYWHERE_BUT = {"microhttpd.h": {"server"}}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def headers_by_name(root):
    owner = {}
    for folder in FLOORS:
        path = os.path.join(root, folder)
        for name in sorted(os.listdir(path)) if os.path.isdir(path) else []:
            if name.endswith(".h"):
                owner.setdefault(name, folder)
    return owner


def check(root):
    owner = headers_by_name(root)
    crossings, files = [], 0
    for folder, (system_ok, product_ok) in FLOORS.items():
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            crossings.append(f"{folder}/: missing folder")
            continue
        for name in sorted(os.listdir(path)):
            if not name.endswith((".c", ".h")):
                continue
            files += 1
            rel = f"{folder}/{name}"
            with open(os.path.join(path, name), encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    kind, header = m.groups()
                    only = FORBIDDEN_ANYWHERE_BUT.get(header)
                    if only is not None and folder not in only:
                        crossings.append(f"{rel}:{lineno}: {folder}/ may not include <{header}> "
                                         f"(only {', '.join(sorted(only))}/ may)")
                        continue
                    home = owner.get(os.path.basename(header)) if kind == '"' else None
                    if home is not None:
                        if home not in product_ok:
                            crossings.append(f"{rel}:{lineno}: {folder}/ may not include \"{header}\" "
                                             f"(a {home}/ header; {folder}/ may use "
                                             f"{', '.join(sorted(product_ok))}/)")
                    elif kind == '"':
                        crossings.append(f"{rel}:{lineno}: \"{header}\" is no product header")
                    elif system_ok is not None and header not in system_ok:
                        crossings.append(f"{rel}:{lineno}: {folder}/ may not include <{header}> "
                                         f"(allowed: {', '.join(sorted(system_ok))})")
    return crossings, files


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    crossings, files = check(root)
    for c in crossings:
        print(c)
    if crossings:
        print(f"check_includes: {len(crossings)} crossing(s) in {files} files")
        return 1
    print(f"check_includes: {files} files, every include within its floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
