#!/usr/bin/env python3
"""merge_meta.py - completes the meta of simt-micro's kernels.json with what
the program itself cannot see: nvidia-smi's card name, driver and clocks
before and after the run (JSON files written by `python3 gpu_meta.py`), the
nvcc release, the ptxas -v report of the binary, and the method paragraph.
It also checks that each entry's resources match the ptxas report.

    python3 tests/gpu/merge_meta.py RAW.json SMI_BEFORE.json SMI_AFTER.json PTXAS.txt OUT.json
"""

import json
import re
import sys

METHOD = (
    "simt-micro (tests/gpu/micro), built with nvcc -O3 -gencode=arch=compute_90,code=sm_90 "
    "-Xptxas -v, run on one H200 with clocks and settings as found. Each kernel: 3 warm-up "
    "launches, then 15 (banks: 9) timed launches, each between two CUDA events recorded on the "
    "default stream around the single launch (so measured_s includes the launch's own "
    "overhead, a few microseconds); measured_s is the median, min_s/max_s the extremes. Memory "
    "comes from cudaMalloc and is filled with random 32-bit words (a hash of the index); "
    "kernels that read global memory move through a rotating window of a 4 GiB pool (outputs "
    "of transposes a 2 GiB pool), so no launch finds its data in the 60 MB L2 left by the one "
    "before. Every CUDA call and launch is checked. registers_per_thread and "
    "static_shared_bytes come from cudaFuncGetAttributes, which reports ptxas's figures "
    "(cross-checked against the -Xptxas -v log). Loads whose value must not be discarded feed "
    "an XOR/sum that is stored only when it equals a sentinel (never, in practice), so the "
    "kernels move only the bytes they are described with. Per-thread descriptions are exact "
    "counts: no grid-stride loops. Cycles figures use clock64 (banks: per block around the "
    "load loop) or events times the SM clock measured under load (clock64 over %globaltimer).")


def ptxas_resources(text):
    """{mangled name: (registers, smem bytes)} from a ptxas -v log"""
    res, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            cur = m.group(1)
            continue
        m = re.search(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?", line)
        if m and cur:
            res[cur] = (int(m.group(1)), int(m.group(2) or 0))
            cur = None
    return res


def main():
    raw, before, after, ptxas, out = sys.argv[1:6]
    with open(raw) as f:
        doc = json.load(f)
    with open(before) as f:
        b = json.load(f)
    with open(after) as f:
        a = json.load(f)
    with open(ptxas) as f:
        px = ptxas_resources(f.read())
    sb = b.get("smi") or [{}]
    sa = a.get("smi") or [{}]
    meta = doc["meta"]
    meta["date"] = b["meta"]["date"]
    meta["card"] = sb[0].get("name", meta.get("card"))
    meta["driver"] = sb[0].get("driver_version", "unknown")
    meta["cuda"] = "runtime %s, nvcc %s" % (meta.get("cuda_runtime_version"), b["meta"].get("nvcc"))
    meta["clocks"] = {
        "before": {"sm_mhz": sb[0].get("clocks.sm"), "mem_mhz": sb[0].get("clocks.mem")},
        "after": {"sm_mhz": sa[0].get("clocks.sm"), "mem_mhz": sa[0].get("clocks.mem")},
        "max_sm_mhz": sb[0].get("clocks.max.sm"), "max_mem_mhz": sb[0].get("clocks.max.mem"),
        "sm_under_load_mhz": [round(meta.get("sm_clock_under_load_hz_start", 0) / 1e6),
                              round(meta.get("sm_clock_under_load_hz_end", 0) / 1e6)],
        "note": "nvidia-smi reads the idle clock before and after; sm_under_load_mhz is "
                "measured inside kernels at the start and end of the run"}
    meta["date_end"] = a["meta"]["date"]
    meta["method"] = METHOD
    meta["ptxas_registers"] = {k: v[0] for k, v in sorted(px.items())}
    regs = sorted({v[0] for v in px.values()})
    used = sorted({k["request"]["resources"]["registers_per_thread"] for k in doc["kernels"]})
    missing = [r for r in used if r not in regs]
    meta["resources_cross_check"] = ("every kernel's registers_per_thread appears in the ptxas log"
                                     if not missing else "not in ptxas log: %s" % missing)
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    print("merged meta into %s: %d kernels; %s" % (out, len(doc["kernels"]),
                                                     meta["resources_cross_check"]))


if __name__ == "__main__":
    main()
