#!/usr/bin/env python3
"""tests/gpu/rates/predict_chains_mix.py - the model's answers for the rows of
chains_mix.cu, written before the rows run: each row described as a user
would (flops by kind, int_ops for the integer chain's shift and add and
the loop's counter and compare, alu_chains the FP chains), asked of simtd
for the h100-sxm and h200-sxm records, with the FP64 issue hold as the
record has it and with it off ({"base": ..., "fp64_issue_hold_fraction": 0},
the FP64 pipe beside issue as every other pipe).

    python3 tests/gpu/rates/predict_chains_mix.py --server URL --binary build-gpu/rates/chains_mix \\
        --out tests/gpu/results/h100/chains_mix_predictions.json

Registers a thread: ptxas -v of chains_mix.cu (CUDA 13.0, sm_90), every
kernel 12 to 18, so 8 blocks of 256 threads fit an SM whatever the row.
"""
import argparse
import json
import subprocess
import urllib.request

SMS = 132  # both records: the grids are the SM count times blocks_per_sm


def request(gpu, dc, d, fc, f, s, blocks, iters):
    return {"gpu": gpu,
            "launch": {"grid": SMS * blocks, "block": 256, "dynamic_shared_bytes": 0},
            "resources": {"registers_per_thread": 18, "static_shared_bytes": 0, "block_barriers": 0},
            "per_thread": {"flops": {"fp64": 2 * dc * d * iters + dc, "fp32": 2 * fc * f * iters + fc},
                           "int_ops": 2 * s * iters + 2 * iters + 6, "alu_chains": dc + fc,
                           "accesses": [{"space": "global", "op": "store", "count": 1, "element_bytes": 8,
                                         "lane_stride_elements": 1, "independent": 1}],
                           "branch": {"paths": 1}}}


def ask(server, body):
    req = urllib.request.Request(server.rstrip("/") + "/v1/kernel", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", default="http://127.0.0.1:8080")
    ap.add_argument("--binary", default="build-gpu/rates/chains_mix")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    listing = subprocess.run([args.binary, "--list"], capture_output=True, text=True, check=True).stdout
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    rows = []
    for line in listing.split("\n"):
        if not line.strip():
            continue
        name, *nums = line.split()
        dc, d, fc, f, s, blocks, iters = map(int, nums)
        row = {"name": name, "fp64_chains": dc, "fp64_steps": d, "fp32_chains": fc, "fp32_steps": f,
               "int_steps": s, "blocks_per_sm": blocks, "iters": iters}
        for gpu in ("h100-sxm", "h200-sxm"):
            body = request(gpu, dc, d, fc, f, s, blocks, iters)
            row["request_" + gpu] = body
            row["predicted_s_" + gpu] = ask(args.server, body)["time_s"]
            off = dict(body, gpu={"base": gpu, "fp64_issue_hold_fraction": 0})
            row["predicted_no_hold_s_" + gpu] = ask(args.server, off)["time_s"]
        rows.append(row)
        print("%-10s h100 %7.2f us (no hold %7.2f)  h200 %7.2f us (no hold %7.2f)" % (
            name, 1e6 * row["predicted_s_h100-sxm"], 1e6 * row["predicted_no_hold_s_h100-sxm"],
            1e6 * row["predicted_s_h200-sxm"], 1e6 * row["predicted_no_hold_s_h200-sxm"]))
    meta = {"purpose": "The model's answers for chains_mix.cu's rows, committed before any of them ran: an "
                       "independent check of fp64_issue_hold_fraction (fitted on chains.cu).",
            "model_commit": commit}
    with open(args.out, "w") as f:
        f.write('{"meta": %s, "rows": [\n%s\n]}\n' % (json.dumps(meta), ",\n".join(
            "  " + json.dumps(r) for r in rows)))
    print("wrote %s" % args.out)


if __name__ == "__main__":
    main()
