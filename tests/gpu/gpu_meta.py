"""gpu_meta.py - the provenance every tests/gpu result file carries: the date
(from `date -u`), what nvidia-smi says about the cards (name, driver, clocks,
temperature, power) and the CUDA toolkit. Standard library only, so the GEMM,
collective and merge scripts can all import it on the device machine."""

import json
import os
import subprocess

SMI_FIELDS = ["index", "name", "driver_version", "clocks.sm", "clocks.mem",
              "clocks.max.sm", "clocks.max.mem", "temperature.gpu",
              "power.draw", "power.limit", "pstate", "memory.total"]


def run(cmd):
    """stdout of cmd (a list), or "" when it cannot run"""
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def date_utc():
    d = run(["date", "-u", "+%Y-%m-%dT%H:%M:%SZ"])
    return d or "unknown"


def smi():
    """one dict per GPU, keys as SMI_FIELDS; clocks in MHz as numbers"""
    out = run(["nvidia-smi", "--query-gpu=" + ",".join(SMI_FIELDS),
               "--format=csv,noheader,nounits"])
    gpus = []
    for line in out.splitlines():
        vals = [v.strip() for v in line.split(",")]
        if len(vals) != len(SMI_FIELDS):
            continue
        g = {}
        for k, v in zip(SMI_FIELDS, vals):
            try:
                g[k] = float(v) if "." in v and k not in ("name", "driver_version") else int(v)
            except ValueError:
                g[k] = v
        gpus.append(g)
    # the GPUs this process may use, when CUDA_VISIBLE_DEVICES lists indices
    vis = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    if vis and all(v.strip().isdigit() for v in vis.split(",")):
        keep = [int(v) for v in vis.split(",")]
        gpus = [g for g in gpus if g.get("index") in keep] or gpus
    return gpus


def clocks(gpus):
    """{"sm_mhz": [...], "mem_mhz": [...]} from smi()'s list"""
    return {"sm_mhz": [g.get("clocks.sm") for g in gpus],
            "mem_mhz": [g.get("clocks.mem") for g in gpus],
            "max_sm_mhz": [g.get("clocks.max.sm") for g in gpus],
            "max_mem_mhz": [g.get("clocks.max.mem") for g in gpus],
            "temperature_c": [g.get("temperature.gpu") for g in gpus],
            "power_w": [g.get("power.draw") for g in gpus]}


def nvcc_version():
    out = run(["nvcc", "--version"])
    for line in out.splitlines():
        if "release" in line:
            return line.strip()
    return "unknown"


def base_meta(gpus_before):
    g = gpus_before[0] if gpus_before else {}
    return {"date": date_utc(),
            "card": g.get("name", "unknown"),
            "cards": len(gpus_before),
            "driver": g.get("driver_version", "unknown"),
            "nvcc": nvcc_version()}


if __name__ == "__main__":
    print(json.dumps({"meta": base_meta(smi()), "smi": smi()}, indent=1))
