#!/usr/bin/env python3
"""fix_scatter_requests.py - gives the committed scatter rows' requests the
table they store into, as simt-heldout now writes it: the store access of a
row named scatter_random_<N>MiB (op "store", lane_stride_elements 256) gains
"distinct_addresses": N x 2^20 / element_bytes, the elements of the table the
grid writes (e_make_idx: index % entries), as the gather rows' random load
has always carried its table.

The files are rewritten in place, the field inserted into the row's text
and nothing else touched (the row lines are json.dumps output, one row a
line, but kernels-recheck-run4.json's meta is simt-heldout's own %.9g text,
which a json.dump of the whole file would rewrite). Each changed row is
checked: parsed, it equals the old row with the one field added. A row
that already carries the right value is left alone; a wrong one is an error.
No measured value is read or written.

    python3 tests/gpu/heldout/fix_scatter_requests.py [FILE ...]

(default: the committed held-out, recheck, confirm and calibration kernel
files under tests/gpu/results/h200; run from anywhere)
"""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "..", "results", "h200")
DEFAULT = ["heldout/kernels.json", "heldout/kernels-recheck-run4.json", "confirm/kernels.json", "kernels.json"]

NAME = re.compile(r"^scatter_random_(\d+)MiB$")
# the store access: one JSON object, no nested braces (lane_addresses is a list)
STORE = re.compile(r'\{"space": "global", "op": "store"[^{}]*\}')


def store_index(req):
    idx = [i for i, a in enumerate(req["per_thread"]["accesses"])
           if a.get("op") == "store" and a.get("lane_stride_elements") == 256]
    assert len(idx) == 1, "want one store access of lane_stride_elements 256, found %d" % len(idx)
    return idx[0]


def fix_line(line, row, mib):
    """the row's line with distinct_addresses in its store access; None when already there"""
    req = row["request"]
    i = store_index(req)
    acc = req["per_thread"]["accesses"][i]
    distinct = (mib << 20) // acc["element_bytes"]
    if "distinct_addresses" in acc:
        assert acc["distinct_addresses"] == distinct, "%s: distinct_addresses %s, want %d" % (
            row["name"], acc["distinct_addresses"], distinct)
        return None
    spans = [m for m in STORE.finditer(line) if json.loads(m.group(0)) == acc]
    assert len(spans) == 1, "%s: the store access's text found %d times" % (row["name"], len(spans))
    end = spans[0].end() - 1  # the access's closing brace
    new = line[:end] + ', "distinct_addresses": %d' % distinct + line[end:]
    want = json.loads(json.dumps(row))
    want["request"]["per_thread"]["accesses"][i]["distinct_addresses"] = distinct
    return new, want, distinct


def row_of(line):
    """the kernel row a line holds (one row a line, "  {...}" with an optional comma), else None"""
    s = line.strip()
    if not s.startswith('{"name": '):
        return None
    return json.loads(s[:-1] if s.endswith(",") else s)


def fix_file(path):
    with open(path) as f:
        text = f.read()
    doc = json.loads(text)
    rows = doc.get("kernels", []) if isinstance(doc, dict) else []
    targets = {r["name"] for r in rows if NAME.match(r.get("name", ""))}
    lines = text.split("\n")
    seen, changed = set(), []
    for n, line in enumerate(lines):
        row = row_of(line)
        if row is None or not NAME.match(row["name"]):
            continue
        seen.add(row["name"])
        out = fix_line(line, row, int(NAME.match(row["name"]).group(1)))
        if out is None:
            continue
        new, want, distinct = out
        assert json.loads(new.strip().rstrip(",")) == want, row["name"]
        lines[n] = new
        changed.append((row["name"], distinct))
    assert seen == targets, "%s: scatter rows not one a line: %s" % (path, sorted(targets - seen))
    if changed:
        new_text = "\n".join(lines)
        # the whole file: the same but for the added fields
        new_doc = json.loads(new_text)
        names = {name for name, _ in changed}
        for r in new_doc["kernels"]:
            if r["name"] in names:
                r["request"]["per_thread"]["accesses"][store_index(r["request"])].pop("distinct_addresses")
        assert new_doc == doc, path
        with open(path, "w") as f:
            f.write(new_text)
    return len(targets), changed


def main():
    paths = sys.argv[1:] or [os.path.join(RESULTS, p) for p in DEFAULT]
    for path in paths:
        if not os.path.exists(path):
            print("%s: not found, skipped" % path)
            continue
        total, changed = fix_file(path)
        print("%s: %d scatter rows, %d given distinct_addresses%s" % (
            os.path.relpath(path), total, len(changed),
            "".join("\n    %s: %d" % c for c in changed)))


if __name__ == "__main__":
    main()
