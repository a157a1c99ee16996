#!/usr/bin/env python3
"""tests/gpu/heldout/merge_runs.py - one confirmation set from several runs
of gemm_heldout.py over the same seed: each row's measured_s becomes the
median of its runs' medians (run1_measured_s, run2_measured_s, ... kept),
every row gets "split": SPLIT, and the meta says how, when and why. The
rule is fixed before any row is compared with the model.

    python3 tests/gpu/heldout/merge_runs.py --split confirm3 --purpose TEXT \\
        --out tests/gpu/results/h200/confirm/gemm3.json run1.json run2.json run3.json
"""
import argparse
import json
import statistics


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", required=True, help="the rows' split label, e.g. confirm3")
    ap.add_argument("--purpose", required=True, help="why the set was drawn (meta.purpose)")
    ap.add_argument("--out", required=True)
    ap.add_argument("runs", nargs="+", help="gemm_heldout.py outputs, in the order they ran")
    args = ap.parse_args()
    loaded = []
    for path in args.runs:
        with open(path) as f:
            loaded.append(json.load(f))
    first = loaded[0]
    by_name = [{r["name"]: r for r in d["runs"]} for d in loaded]
    rows, spreads = [], []
    for r in first["runs"]:
        times = [b[r["name"]]["measured_s"] for b in by_name if r["name"] in b]
        if len(times) != len(loaded):
            continue  # a row every run did not time is left out, not guessed
        row = dict(r)
        row["measured_s"] = statistics.median(times)
        row["tflops"] = 2.0 * r["m"] * r["n"] * r["k"] * r.get("batch", 1) / row["measured_s"] / 1e12
        for i, t in enumerate(times):
            row["run%d_measured_s" % (i + 1)] = t
        row["split"] = args.split
        rows.append(row)
        spreads.append(max(times) / min(times) - 1.0)
    meta = dict(first["meta"])
    meta["method"] = meta.get("method", "") + (
        " %d runs of the whole set, one after another; a row's measured_s is the median of its runs' medians "
        "(run1_measured_s, ...), a rule set before any row was compared with the model." % len(loaded))
    meta["purpose"] = args.purpose
    meta["runs"] = "max/min of the runs' medians - 1 per row: median %.1f%%, %d of %d over 10%%." % (
        100.0 * statistics.median(spreads), sum(s > 0.10 for s in spreads), len(spreads))
    out = {"gpu": first.get("gpu"), "meta": meta, "runs": rows,
           "skipped": [s for d in loaded for s in d.get("skipped", [])]}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("wrote %d rows to %s (%s)" % (len(rows), args.out, meta["runs"]))


if __name__ == "__main__":
    main()
