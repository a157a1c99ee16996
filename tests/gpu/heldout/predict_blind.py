#!/usr/bin/env python3
"""tests/gpu/heldout/predict_blind.py - the model's answers for H200 sets not
yet measured there, written down before the measurement, and, once it is
in, the blind errors against those answers.

The H200 run that run_blind_h200.sh makes (the confirm2, check4 and check6
kernel sets, the seed-2030 GEMMs) issues the same requests as the H100 runs
already committed under tests/gpu/results/h100/confirm/: simt-heldout names
and sizes its rows without looking at the device, and sizes grids by the SM
count, 132 on both cards; the GEMM shapes come from the seed. So the
requests are read from the H100 files, their "gpu" set to h200-sxm, and
asked of a running simtd. --sets picks others: check3 and check5 (the
H100's kernels3.json and kernels5.json) and gemm6, a GEMM set of seed 2031
that no card has run (its shapes from gemm_heldout.py's draw), and wide:
the 8- and 16-byte reads of the H200's heldout, confirm and confirm2 lists
again (simt-heldout --sizes wide, each element loaded whole since
2026-12-08; heldout.cuh says why), their requests the H200 files' own with
the registers of the current build's ptxas log (--ptxas).

    predict: python3 tests/gpu/heldout/predict_blind.py --server URL \\
                 --out tests/gpu/results/h200/confirm/blind-predictions.json \\
                 [--sets confirm2,check4,check6,gemm5]
    judge:   python3 tests/gpu/heldout/predict_blind.py \\
                 --judge tests/gpu/results/h200/confirm/blind-predictions.json \\
                 MEASURED.json [MEASURED.json ...]

The judge mode reads no model: it compares the measured rows (kernels2.json,
kernels4.json, kernels6.json, gemm5.json of the H200 run) with the answers
committed before them, by name, and prints each set's median and worst
|error| by class, and the rows whose request differs from the predicted one
(none expected; any is left out, not guessed).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
H100 = os.path.join(HERE, "..", "results", "h100", "confirm")
SETS = [("confirm2", "kernels2.json"), ("check4", "kernels4.json"), ("check6", "kernels6.json"),
        ("gemm5", "gemm5.json"), ("check3", "kernels3.json"), ("check5", "kernels5.json"),
        ("gemm6", "gemm6.json"), ("wide", "kernels-wide.json")]
DEFAULT_SETS = "confirm2,check4,check6,gemm5"
GEMM6_SEED = 2031  # gemm6: drawn by gemm_heldout.py, run on no card before its prediction
GPU = "h200-sxm"  # --gpu (predict) or the predictions' own (judge)
H200 = os.path.join(HERE, "..", "results", "h200")
WIDE_FILES = ("heldout/kernels.json", "confirm/kernels.json", "confirm/kernels2.json")
WIDE_KERNELS = {"coalesce_8B_": "_Z10m_coalesceI5uint2EvPKT_iiPjj", "coalesce_16B_": "_Z10m_coalesceI5uint4EvPKT_iiPjj",
                "l2_read_": "_Z9m_l2_readPK5uint4iPjj"}
PTXAS = "build-gpu/dev/ptxas-heldout.txt"  # --ptxas (predict, set wide)


def ask(server, path, body):
    req = urllib.request.Request(server.rstrip("/") + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as f:
            return json.load(f)
    except urllib.error.HTTPError as e:
        raise SystemExit("%s %s: HTTP %d %s" % (path, json.dumps(body)[:200], e.code, e.read().decode()[:300]))


def gemm_body(r):
    return {"gpu": GPU, "m": r["m"], "n": r["n"], "k": r["k"], "dtype": r["dtype"], "batch": r.get("batch", 1)}


def rows_of(doc):
    return doc["kernels"] if "kernels" in doc else doc["runs"]


def wide_rows():
    """the H200 lists' 8- and 16-byte reads, each request's registers those
    ptxas gave the whole-element kernel"""
    sys.path.insert(0, os.path.join(HERE, ".."))
    import merge_meta  # noqa: E402
    with open(PTXAS) as f:
        regs = merge_meta.ptxas_resources(f.read())
    rows = []
    for rel in WIDE_FILES:
        with open(os.path.join(H200, rel)) as f:
            for r in json.load(f)["kernels"]:
                fn = next((v for k, v in WIDE_KERNELS.items() if r["name"].startswith(k)), None)
                if fn is None:
                    continue
                if fn not in regs:
                    raise SystemExit("%s: no %s in %s" % (r["name"], fn, PTXAS))
                r["request"]["resources"]["registers_per_thread"] = regs[fn][0]
                rows.append(r)
    return rows


def source_rows(label, name):
    """the rows whose requests a set's prediction asks: the H100's committed
    run of the set, for gemm6 the seed's draw, for wide the H200's lists"""
    if label == "wide":
        return wide_rows()
    if label == "gemm6":
        sys.path.insert(0, HERE)
        import gemm_heldout  # noqa: E402  the draw, not torch (imported in its main only)
        return [{"name": c[0], "dtype": c[1], "m": c[2], "n": c[3], "k": c[4], "batch": 1}
                for c in gemm_heldout.cases(GEMM6_SEED)]
    with open(os.path.join(H100, name)) as f:
        return rows_of(json.load(f))


def predict(args):
    with urllib.request.urlopen(args.server.rstrip("/") + "/healthz", timeout=30) as f:
        version = json.load(f).get("version")
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", HERE, "status", "--porcelain", "--", "../../../model", "../../../hwdb"],
                           capture_output=True, text=True).stdout.strip()
    out = {"gpu": GPU, "meta": {
        "purpose": "The model's answers for %s sets (%s), committed before that card measured them: the "
                   "blind test of the model as it stands at this commit." % (GPU, args.sets),
        "method": ("The shapes gemm_heldout.py draws with seed %d (less every shape of the earlier sets "
                   "and of both cards' fit probes committed by then), each asked of simtd (/v1/gemm) for %s."
                   % (GEMM6_SEED, GPU)) if args.sets == "gemm6" else
                  ("The 8- and 16-byte reads of the H200's heldout, confirm and confirm2 lists "
                   "(tests/gpu/results/h200/: %s), each request as that run issued it with the registers "
                   "%s gives the whole-element kernels, its gpu set to %s, asked of simtd (/v1/kernel)."
                   % (", ".join(WIDE_FILES), PTXAS, GPU)) if args.sets == "wide" else
                  ("Each row's request as the committed H100 run of the same set issued it "
                   "(tests/gpu/results/h100/confirm/), its gpu set to %s, asked of simtd (/v1/kernel, "
                   "/v1/gemm); simt-heldout names and sizes rows without the device and grids by the SM count "
                   "(132 on both cards), GEMM shapes by the seed." % GPU),
        "model_commit": commit + (" (model or hwdb modified)" if dirty else ""),
        "simtd": version}, "sets": {}}
    wanted = args.sets.split(",")
    unknown = [w for w in wanted if w not in dict(SETS)]
    if unknown:
        raise SystemExit("--sets: unknown %s (known: %s)" % (", ".join(unknown), ", ".join(l for l, _ in SETS)))
    for label, name in SETS:
        if label not in wanted:
            continue
        rows = []
        for r in source_rows(label, name):
            if "request" in r:
                body = dict(r["request"], gpu=GPU)
                a = ask(args.server, "/v1/kernel", body)
                rows.append({"name": r["name"], "class": r.get("class"), "request": body,
                             "predicted_s": a["time_s"], "bound": a["bound"]})
            else:
                body = gemm_body(r)
                a = ask(args.server, "/v1/gemm", body)
                rows.append({"name": r["name"], "dtype": r["dtype"], "request": body,
                             "predicted_s": a["time_s"], "bound": a["bound"]})
        out["sets"][label] = rows
        print("%s: %d rows predicted" % (label, len(rows)))
    with open(args.out, "w") as f:  # a row a line, as the results files keep them
        f.write('{"gpu": %s, "meta": %s, "sets": {\n' % (json.dumps(out["gpu"]), json.dumps(out["meta"])))
        f.write(",\n".join(' %s: [\n%s\n ]' % (json.dumps(label), ",\n".join("  " + json.dumps(r) for r in rows))
                           for label, rows in out["sets"].items()))
        f.write("\n}}\n")
    print("wrote %s (model %s)" % (args.out, out["meta"]["model_commit"]))


def judge(args):
    global GPU
    with open(args.judge) as f:
        pred = json.load(f)
    GPU = pred.get("gpu", GPU)
    by_name = {}
    for label, rows in pred["sets"].items():
        for r in rows:
            by_name[(label, r["name"])] = r
    for path in args.measured:
        with open(path) as f:
            doc = json.load(f)
        label = next((l for l, n in SETS if os.path.basename(path) == n), None)
        if label is None:
            raise SystemExit("%s: not one of %s" % (path, ", ".join(n for _, n in SETS)))
        classes, differ, missing = {}, [], 0
        for r in rows_of(doc):
            p = by_name.get((label, r["name"]))
            if p is None:
                missing += 1
                continue
            body = dict(r["request"], gpu=GPU) if "request" in r else gemm_body(r)
            if body != p["request"]:
                differ.append(r["name"])
                continue
            if "request" not in r and r["dtype"] == "int8":
                continue  # the bars leave int8 apart, as test_accuracy_heldout does
            e = p["predicted_s"] / r["measured_s"] - 1.0
            cls = r.get("class", "gemm")
            classes.setdefault(cls, []).append((abs(e), e, r["name"]))
        for cls, v in sorted(classes.items()):
            worst = max(v)
            print("%-8s %-9s %4d rows  blind median %5.1f%%  worst %6.1f%% (%s %+.1f%%)" % (
                label, cls, len(v), 100 * statistics.median(x[0] for x in v), 100 * worst[0], worst[2],
                100 * worst[1]))
        if missing:
            print("%-8s %d measured rows had no prediction" % (label, missing))
        for n in differ:
            print("%-8s %s: request differs from the predicted one, left out" % (label, n))


def main():
    global GPU
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", default="http://127.0.0.1:8080", help="simtd to ask (predict mode)")
    ap.add_argument("--out", help="predict: where to write the answers")
    ap.add_argument("--judge", metavar="PREDICTIONS", help="judge: the committed answers")
    ap.add_argument("--sets", default=DEFAULT_SETS,
                    help="predict: which sets, comma-separated (default %s; also check3, check5, gemm6, wide)"
                         % DEFAULT_SETS)
    ap.add_argument("measured", nargs="*", help="judge: the H200 run's result files")
    ap.add_argument("--gpu", default=GPU, help="predict: the database GPU the requests name (default %s)" % GPU)
    ap.add_argument("--ptxas", default=PTXAS, help="predict, set wide: the build's ptxas log (default %s)" % PTXAS)
    args = ap.parse_args()
    GPU = args.gpu
    globals()["PTXAS"] = args.ptxas
    if args.judge:
        if not args.measured:
            ap.error("--judge needs the measured files")
        judge(args)
    elif args.out:
        predict(args)
    else:
        ap.error("give --out (predict) or --judge (judge)")


if __name__ == "__main__":
    sys.exit(main())
