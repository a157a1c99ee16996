#!/usr/bin/env python3
"""compare_calibrate.py - how far two simt-calibrate runs (their JSON output)
agree, figure by figure: percent difference relative to their mean, and
whether it is within the 3 percent issue 4 asks for.

    python3 tests/gpu/compare_calibrate.py run1.json run2.json [--markdown]
"""

import json
import sys


def flat(measured):
    out = {}
    for k, v in measured.items():
        if isinstance(v, dict):
            for kk, vv in v.items():
                out["%s.%s" % (k, kk)] = vv
        elif isinstance(v, (int, float)):
            out[k] = v
    return out


def main():
    a_path, b_path = sys.argv[1], sys.argv[2]
    md = "--markdown" in sys.argv
    with open(a_path) as f:
        a = flat(json.load(f)["measured"])
    with open(b_path) as f:
        b = flat(json.load(f)["measured"])
    worst = 0.0
    rows = []
    for k in a:
        if k not in b or not a[k] or not b[k]:
            continue
        d = 100.0 * abs(a[k] - b[k]) / (0.5 * (a[k] + b[k]))
        worst = max(worst, d)
        rows.append((k, a[k], b[k], d))
    if md:
        print("| figure | run 1 | run 2 | difference |")
        print("|---|---|---|---|")
        for k, x, y, d in rows:
            print("| %s | %.4g | %.4g | %.2f%% |" % (k, x, y, d))
    else:
        for k, x, y, d in rows:
            print("%-34s %12.5g %12.5g %7.2f%% %s" % (k, x, y, d, "" if d <= 3 else "OVER 3%"))
    print("worst difference %.2f%%: %s" % (worst, "all within 3%" if worst <= 3 else "NOT all within 3%"))


if __name__ == "__main__":
    main()
