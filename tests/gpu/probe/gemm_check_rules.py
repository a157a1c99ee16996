#!/usr/bin/env python3
"""tests/gpu/probe/gemm_check_rules.py - a check, never fitted, of the GEMM
rules committed on the night of 2026-12-07 from fit probes, on fresh shapes
of their classes (none of any probe grid, held-out or confirmation set):
 - bf16 of 2 to 4 rows off 16 bytes, one block walking K (model/
   gemm_walk16.c): n = 6 to 30, K = 600 to 2600;
 - the 16-bit fallback kernels' small tiles sharing an SM (model/
   gemm_family.c): fp16 of 5000 to 15000 rows by 3 to 7 columns at K 26 to
   42, and both 16-bit types at odd K 29 to 45 against 3000 and 6000
   columns;
 - fp64 of few columns streaming A at two slots an element (model/
   gemm_tiny.c): 3000 and 6000 rows by 3, 5, 7 at K 3000 and 6000;
 - the unaligned 16-bit kernels' one-wave split (model/gemm_splitk.c):
   bf16 of 350 and 450 rows by 5 and 7 columns at K 5000 and 10000;
 - bf16's cap of 160 ways past 16 columns and fp16's align2 least-time
   split (model/gemm_splitk.c): 5 and 7 rows by 42 and 66 at K 1802 and
   2998; fp16 of 3 and 5 rows by 6 and 18 at K 1500 and 2700.
The model's answers for every shape, on both GH100 cards, are written
before the run (--predict) and committed; the measured file is judged
against them (--judge), by name, and only then against the model as it
stands.

    python3 tests/gpu/probe/gemm_check_rules.py --predict http://127.0.0.1:PORT --out PRED.json
    python3 tests/gpu/probe/gemm_check_rules.py --out gemm_check_rules.json   (on the GPU)
    python3 tests/gpu/probe/gemm_check_rules.py --judge PRED.json MEASURED.json
"""

import json
import os
import statistics
import sys
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "gpu"))
import gemm_probe  # noqa: E402  the guard, the kernels, the timed run


def shape_list():
    """the cases and the held-out shapes refused"""
    shapes = []
    for m in (2, 3, 4):
        for n in (6, 10, 14, 22, 30):
            for k in (600, 1400, 2200, 2600):
                shapes.append(("walk16", "bf16", m, n, k))
    for m in (5000, 10000, 15000):
        for n in (3, 5, 7):
            for k in (26, 34, 42):
                shapes.append(("tallfill", "fp16", m, n, k))
    for dt in ("bf16", "fp16"):
        for m in (320, 448):
            for n in (3000, 6000):
                for k in (29, 37, 45):
                    shapes.append(("oddkfill", dt, m, n, k))
    for m in (3000, 6000):
        for n in (3, 5, 7):
            for k in (3000, 6000):
                shapes.append(("fp64stream", "fp64", m, n, k))
    for m in (350, 450):
        for n in (5, 7):
            for k in (5000, 10000):
                shapes.append(("wavefill", "bf16", m, n, k))
    for m in (5, 7):
        for n in (42, 66):
            for k in (1802, 2998):
                shapes.append(("bf16cap", "bf16", m, n, k))
    for m in (3, 5):
        for n in (6, 18):
            for k in (1500, 2700):
                shapes.append(("fp16align2", "fp16", m, n, k))
    return gemm_probe.select(shapes, "check_rules_")


def post(url, body):
    req = urllib.request.Request(url + "/v1/gemm", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)


def predict(url, out):
    cases, _ = shape_list()
    rows = []
    for (name, dt, m, n, k, cls) in cases:
        row = {"name": name, "dtype": dt, "m": m, "n": n, "k": k, "shape_class": cls}
        for gpu in ("h100-sxm", "h200-sxm"):
            row[gpu] = post(url, {"gpu": gpu, "m": m, "n": n, "k": k, "dtype": dt})["time_s"]
        rows.append(row)
    with open(out, "w") as f:
        json.dump({"purpose": "the model's answers for gemm_check_rules.py's shapes, written before any "
                              "was measured", "rows": rows}, f, indent=1)
    print("wrote %d predictions to %s" % (len(rows), out))


def judge(pred_path, measured_path):
    with open(pred_path) as f:
        pred = {r["name"]: r for r in json.load(f)["rows"]}
    with open(measured_path) as f:
        measured = json.load(f)
    gpu = measured["gpu"]
    by_class = {}
    for r in measured["runs"]:
        p = pred.get(r["name"])
        if p is None:
            continue
        e = p[gpu] / r["measured_s"] - 1.0
        by_class.setdefault(r["shape_class"], []).append((e, r["name"]))
    allv = []
    for cls, v in sorted(by_class.items()):
        a = sorted(abs(e) for e, _ in v)
        allv += a
        worst = max(v, key=lambda t: abs(t[0]))
        print("%-28s %3d rows  median |e| %5.1f%%  mean %+5.1f%%  worst %+6.1f%% (%s)"
              % (cls, len(v), 100 * statistics.median(a), 100 * sum(e for e, _ in v) / len(v),
                 100 * worst[0], worst[1]))
    allv.sort()
    print("all %d rows (%s, blind): median |e| %.1f%%, worst %.1f%%"
          % (len(allv), gpu, 100 * statistics.median(allv), 100 * allv[-1]))


def main():
    if "--predict" in sys.argv:
        i = sys.argv.index("--predict")
        out = sys.argv[sys.argv.index("--out") + 1]
        predict(sys.argv[i + 1], out)
        return
    if "--judge" in sys.argv:
        i = sys.argv.index("--judge")
        judge(sys.argv[i + 1], sys.argv[i + 2])
        return
    cases, refused = shape_list()
    gemm_probe.main(cases, "gemm_check_rules.json", seed=1717, budget_s=300.0,
                    extra_meta={"refused_heldout": refused}, split="check",
                    shapes="fresh shapes of the classes of the rules committed on the night of 2026-12-07 "
                           "(check_rules_*) (tests/gpu/probe/gemm_check_rules.py)")


if __name__ == "__main__":
    main()
