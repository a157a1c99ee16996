#!/usr/bin/env python3
"""split.py - finishes the held-out set's files: the meta that only
nvidia-smi and the build know (card, driver, CUDA, clocks before and after,
ptxas), a check of each kernel row's registers and shared memory against the
-Xptxas -v log, and the fit / held-out split.

The split is made before anything is fitted and depends on nothing measured:
rows are grouped (GEMM: dtype and shape class; kernels: kind), each group is
ordered by the SHA-1 of the row's name, and the order alternates fit,
heldout, fit, ... with the first label alternating from group to group so
odd groups do not all lean one way. Each row gets "split": "fit" | "heldout".

    python3 split.py GEMM_RAW KERNELS_RAW SMI_BEFORE SMI_AFTER PTXAS OUTDIR
"""

import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import merge_meta  # noqa: E402  ptxas_resources()


def key(name):
    return hashlib.sha1(name.encode()).hexdigest()


def assign(rows, group_of):
    groups = {}
    for r in rows:
        groups.setdefault(group_of(r), []).append(r)
    for gi, g in enumerate(sorted(groups)):
        for i, r in enumerate(sorted(groups[g], key=lambda r: key(r["name"]))):
            r["split"] = "fit" if (i + gi) % 2 == 0 else "heldout"
    return {g: (sum(r["split"] == "fit" for r in groups[g]), sum(r["split"] == "heldout" for r in groups[g]))
            for g in groups}


def main():
    gemm_raw, kern_raw, before, after, ptxas, outdir = sys.argv[1:7]
    with open(before) as f:
        b = json.load(f)
    with open(after) as f:
        a = json.load(f)
    smi_b, smi_a = (b.get("smi") or [{}])[0], (a.get("smi") or [{}])[0]
    common = {"card": smi_b.get("name"), "driver": smi_b.get("driver_version"),
              "clocks_before": {k: smi_b.get(k) for k in smi_b if k.startswith("clocks")},
              "clocks_after": {k: smi_a.get(k) for k in smi_a if k.startswith("clocks")},
              "nvcc": b.get("meta", {}).get("nvcc"), "split_rule": __doc__.split("\n\n")[1].replace("\n", " ")}
    os.makedirs(outdir, exist_ok=True)
    with open(gemm_raw) as f:
        g = json.load(f)
    g["meta"].update(common)
    counts = assign(g["runs"], lambda r: r["dtype"] + "/" + r["shape_class"])
    g["meta"]["split_counts"] = {k: list(v) for k, v in sorted(counts.items())}
    with open(os.path.join(outdir, "gemm.json"), "w") as f:
        json.dump(g, f, indent=1)
    with open(kern_raw) as f:
        k = json.load(f)
    with open(ptxas) as f:
        px = merge_meta.ptxas_resources(f.read())
    mism = 0
    names = set()
    for r in k["kernels"]:
        assert r["name"] not in names, r["name"]
        names.add(r["name"])
    # ptxas check: every row's (registers, static smem) must be one ptxas reported
    pairs = set(px.values())
    for r in k["kernels"]:
        res = r["request"]["resources"]
        if (res["registers_per_thread"], res["static_shared_bytes"]) not in pairs:
            mism += 1
    k["meta"].update(common)
    k["meta"]["ptxas_pairs_unmatched"] = mism
    k["meta"]["method"] = (
        "simt-heldout (tests/gpu/heldout), nvcc -O3 -gencode=arch=compute_90,code=sm_90 -Xptxas -v; "
        "kernels shared with simt-calibrate through clients/calibrate/kernels.cuh. timing \"cold\": a sleep "
        "kernel (100 us on %globaltimer, covers the host's queueing), a 256 MiB L2 flush, then an event pair "
        "around ONE launch (GPU time without CPU gaps; includes the GPU's own launch cost); 2 untimed, 9 "
        "timed, median. timing \"warm_back_to_back_N\": sleep kernel, event pair around N back-to-back "
        "launches over the same data after 3 untimed, time / N, median of 5 windows (L2-resident "
        "questions; such rows say l2_warm when the set fits). Inputs: random floats in [-1, 1) from "
        "cudaMalloc'd pools. registers_per_thread and static_shared_bytes from cudaFuncGetAttributes "
        "(ptxas's figures; checked against the -Xptxas -v log). Requests are what the kernel's author "
        "would write, with the contract's fields the model may not read yet (int_ops, repeats, "
        "distinct_addresses, l2_warm).")
    counts = assign(k["kernels"], lambda r: r["kind"])
    k["meta"]["split_counts"] = {kk: list(v) for kk, v in sorted(counts.items())}
    with open(os.path.join(outdir, "kernels.json"), "w") as f:
        f.write('{"meta": ' + json.dumps(k["meta"]) + ',\n "kernels": [\n')
        f.write(",\n".join("  " + json.dumps(r) for r in k["kernels"]))
        f.write("\n ]}\n")
    fit = sum(r["split"] == "fit" for r in g["runs"]), sum(r["split"] == "fit" for r in k["kernels"])
    print("gemm %d runs (%d fit), kernels %d (%d fit; %d everyday), ptxas unmatched %d"
          % (len(g["runs"]), fit[0], len(k["kernels"]), fit[1],
             sum(r["class"] == "everyday" for r in k["kernels"]), mism))


if __name__ == "__main__":
    main()
