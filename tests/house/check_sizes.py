#!/usr/bin/env python3
"""check_sizes.py - the house's room sizes: no product C file (model, hwdb,
api, server, clients/cli) over 1,000 lines and no function over 120.

A function is counted from its opening brace at column 0 to the closing
brace at column 0 (the checked-in .clang-format puts both there), its name
taken from the line before the brace. Prints the longest functions and every
excess, "file:line: name: N lines (limit 120)"; exits 1 when there is any.

Usage: check_sizes.py [ROOT]"""
import os
import re
import sys

FOLDERS = ["model", "hwdb", "api", "server", "clients/cli"]
MAX_FILE_LINES = 1000
MAX_FUNCTION_LINES = 120
NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def functions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    found, start, name = [], None, None
    for i, line in enumerate(lines):
        if line == "{" and start is None:
            head = ""
            for j in range(i - 1, max(-1, i - 8), -1):
                head = lines[j] + " " + head
                if NAME.search(lines[j]) and not lines[j].startswith(" "):
                    break
            m = NAME.search(head)
            if m:
                start, name = i, m.group(1)
        elif line.startswith("}") and start is not None:
            found.append((name, start + 1, i - start + 1))
            start = None
    return len(lines) - (lines[-1] == ""), found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    excess, every, files = [], [], 0
    for folder in FOLDERS:
        for name in sorted(os.listdir(os.path.join(root, folder))):
            if not name.endswith((".c", ".h")):
                continue
            files += 1
            rel = f"{folder}/{name}"
            count, funcs = functions(os.path.join(root, folder, name))
            if count > MAX_FILE_LINES:
                excess.append(f"{rel}: {count} lines (limit {MAX_FILE_LINES})")
            for fname, line, length in funcs:
                every.append((length, f"{rel}:{line}: {fname}"))
                if length > MAX_FUNCTION_LINES:
                    excess.append(f"{rel}:{line}: {fname}: {length} lines (limit {MAX_FUNCTION_LINES})")
    every.sort(reverse=True)
    print(f"check_sizes: {files} files, {len(every)} functions; the longest:")
    for length, where in every[:5]:
        print(f"  {length:4d}  {where}")
    for e in excess:
        print(e)
    return 1 if excess else 0


if __name__ == "__main__":
    sys.exit(main())
