#!/usr/bin/env python3
"""ncu_rows.py - turns an Nsight Compute CSV of simt-heldout's kernels into
one row per held-out case: the median of each metric over the case's
launches, the case named from simt-heldout's --list.

simt-heldout launches each cold case 11 times (2 untimed, 9 timed), one
case after another in --list order. Run under ncu with a kernel filter
(-k regex:...), the CSV holds those launches in that order; the cases of
one kernel are its launches cut into runs of 11, matched in order with the
--list names that kernel runs (PREFIXES).

    ncu --clock-control none -k 'regex:e_softmax|e_layernorm' --metrics ... --csv \\
        simt-heldout --only everyday --sizes confirm2 --out /tmp/k.json > ncu.csv
    simt-heldout --only everyday --sizes confirm2 --list > list.txt
    python3 tests/gpu/ncu_rows.py ncu.csv list.txt --meta meta.json --out rows.json

--meta: a JSON object (card, driver, date, method) copied into the output."""

import argparse
import csv
import io
import json
import statistics

LAUNCHES_PER_CASE = 11

# kernel (its name up to "(" or "<", less "void ") -> the --list names it runs
PREFIXES = {
    "e_reduce": ("reduce_",),
    "e_scan": ("scan_",),
    "e_softmax": ("softmax_",),
    "e_layernorm": ("layernorm_",),
    "e_stencil": ("stencil",),
    "m_coalesce": ("coalesce_",),
    "e_copy": ("copy",),
    "e_silu": ("silu_",),
    "e_saxpy": ("saxpy_",),
    "e_hist": ("histogram_global",),
    "e_gather": ("gather_",),
    "e_scatter": ("scatter_",),
    "e_shist": ("histogram_shared",),
    "m_dfma": ("fp64_fma",),
    "m_fma": ("fp32_fma",),
    "e_hash": ("hash_loop",),
}


def kernel_key(name):
    """'void m_coalesce<unsigned int>(...)' -> 'm_coalesce'"""
    name = name.replace("void ", "", 1)
    for stop in ("(", "<"):
        name = name.split(stop)[0]
    return name.strip()


def read_launches(path):
    """[(kernel, {metric: value})] in launch order"""
    with open(path) as f:
        lines = [line for line in f if line.startswith('"')]
    launches = {}
    for r in csv.DictReader(io.StringIO("".join(lines))):
        entry = launches.setdefault(r["ID"], (kernel_key(r["Kernel Name"]), {}))
        entry[1][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return [launches[k] for k in sorted(launches, key=int)]


def rows_of(launches, names):
    out = []
    for kernel, prefixes in PREFIXES.items():
        mine = [m for k, m in launches if k == kernel]
        if not mine:
            continue
        wanted = [n for n in names if n.startswith(prefixes)]
        if len(mine) != LAUNCHES_PER_CASE * len(wanted):
            raise SystemExit("%s: %d launches for %d cases (expected %d a case)"
                             % (kernel, len(mine), len(wanted), LAUNCHES_PER_CASE))
        for i, name in enumerate(wanted):
            case = mine[i * LAUNCHES_PER_CASE:(i + 1) * LAUNCHES_PER_CASE]
            metrics = {k: statistics.median(m[k] for m in case) for k in case[0]}
            out.append({"name": name, "kernel": kernel, "launches": len(case), "metrics": metrics})
    order = {n: i for i, n in enumerate(names)}
    return sorted(out, key=lambda r: order[r["name"]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("names")
    ap.add_argument("--meta", help="a JSON file of card, driver, date and method")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with open(args.names) as f:
        names = [line.strip() for line in f if line.strip() and " " not in line.strip()]
    meta = {}
    if args.meta:
        with open(args.meta) as f:
            meta = json.load(f)
    rows = rows_of(read_launches(args.csv), names)
    with open(args.out, "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    print("wrote %d rows to %s" % (len(rows), args.out))


if __name__ == "__main__":
    main()
