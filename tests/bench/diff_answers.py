#!/usr/bin/env python3
"""diff_answers.py - differential check of the model's answers: varied POST
/v1/kernel, /v1/latency-hiding and /v1/occupancy/sweep bodies (random GPU,
launch, resources, accesses of every space, op and pattern, branches,
tensor flops; every latency level, ILP, request size, active SMs, target
and the occupancy form; every swept field, range and format) sent in-process through two builds' api_loop (API_LOOP_PRINT=1), the
status and answer bytes of each compared.

    tests/bench/diff_answers.py OLD_API_LOOP NEW_API_LOOP [COUNT] [SEED]

Prints how many answers matched byte for byte per route and the first
differences; exits 1 on any difference. With only bodies wanted:
    tests/bench/diff_answers.py --bodies kernel|latency|sweep COUNT [SEED]
Not run by ctest (it needs two builds); see RESULTS.md, "model hot spot".
"""
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GPUS_DIR = os.path.join(HERE, "..", "..", "hwdb", "gpus")


def gpus():
    return sorted(f[:-5] for f in os.listdir(GPUS_DIR) if f.endswith(".yaml"))


def access(rng):
    space = rng.choice(["global", "global", "global", "shared", "constant", "local"])
    ops = {"global": ["load", "load", "store", "atomic"], "shared": ["load", "store"],
           "constant": ["load"], "local": ["load", "store"]}[space]
    a = {"space": space, "op": rng.choice(ops), "count": rng.choice([1, 2, 3, 4, 8, 16, 64, 0.5, 6.5]),
         "element_bytes": rng.choice([1, 2, 4, 4, 8, 16]),
         "lane_stride_elements": rng.choice([0, 1, 1, 1, 2, 3, 8, 32, 33, -1])}
    if rng.random() < 0.7:
        a["independent"] = rng.choice([1, 2, 4, 8, 16])
    if space == "global" and rng.random() < 0.15:
        a["distinct_addresses"] = rng.choice([1, 32, 8192, 1 << 20])
    if space == "global" and rng.random() < 0.1:
        a["repeats"] = rng.choice([0, 1])
    return a


def kernel(rng, ids):
    block = rng.choice([32, 64, 96, 128, 256, 512, 1024, [32, 8], [16, 16], [64, 2, 2]])
    grid = rng.choice([1, 7, 132, 1000, 65536, [256, 256], [rng.randrange(1, 2000), rng.randrange(1, 64)]])
    launch = {"grid": grid, "block": block}
    if rng.random() < 0.3:
        launch["dynamic_shared_bytes"] = rng.choice([0, 1024, 16384, 40000])
    resources = {"registers_per_thread": rng.choice([16, 24, 32, 40, 64, 72, 96, 128, 168, 255])}
    if rng.random() < 0.5:
        resources["static_shared_bytes"] = rng.choice([0, 1024, 4224, 12288, 30000])
    if rng.random() < 0.5:
        resources["block_barriers"] = rng.choice([0, 1, 4])
    per = {"accesses": [access(rng) for _ in range(rng.randrange(0, 5))]}
    flops = {}
    for kind in ("fp32", "fp64", "fp16"):
        if rng.random() < 0.4:
            flops[kind] = rng.choice([0, 16, 256, 4096])
    if rng.random() < 0.1:
        flops[rng.choice(["tensor_fp16", "tensor_bf16", "tensor_tf32", "tensor_fp8"])] = rng.choice([4096, 131072])
    if flops:
        per["flops"] = flops
    if rng.random() < 0.3:
        per["sfu_ops"] = rng.choice([0, 4, 64])
    if rng.random() < 0.3:
        per["int_ops"] = rng.choice([0, 16, 783])
    if rng.random() < 0.3:
        per["branch"] = rng.choice([{"paths": 1}, {"paths": 2}, {"paths": 4}, {"random_paths": 3}])
    body = {"gpu": rng.choice(ids), "launch": launch, "resources": resources, "per_thread": per}
    if rng.random() < 0.2:
        body["l2_warm"] = rng.random() < 0.5
    if rng.random() < 0.2:
        body["figures"] = rng.choice(["datasheet", "measured"])
    return body


def latency(rng, ids):
    body = {"gpu": rng.choice(ids), "level": rng.choice(["dram", "dram", "dram", "l2", "shared", "fma"])}
    if rng.random() < 0.8:
        body["warps_per_sm"] = rng.choice([0.5, 1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 100, 1000, 4096,
                                           round(rng.uniform(0.1, 64), 3)])
    else:
        body["block_size"] = rng.choice([64, 128, 256, 1024])
        body["registers_per_thread"] = rng.choice([16, 32, 64, 128])
    if rng.random() < 0.7:
        body["ilp"] = rng.choice([1, 1.5, 2, 4, 8, 16, 64, 1024])
    if rng.random() < 0.7:
        body["bytes_per_lane"] = rng.choice([1, 2, 4, 8, 16, 0.5, 1024])
    if rng.random() < 0.3:
        body["active_sms"] = rng.choice([1, 8, 66, 100, 1000])
    if rng.random() < 0.3:
        body["target_fraction"] = rng.choice([0.5, 0.8, 0.95, 0.999])
    return body


def sweep(rng, ids):
    """Occupancy sweeps of every varied field, both formats, with and without
    a range, grid, cluster, carveout and shared memory; some points (or all)
    unlaunchable."""
    vary = rng.choice(["block_size", "registers_per_thread", "dynamic_shared_bytes"])
    body = {"gpu": rng.choice(ids), "vary": vary}
    if vary != "block_size":
        body["block_size"] = rng.choice([32, 64, 96, 128, 256, 512, 1024])
    if vary != "registers_per_thread":
        body["registers_per_thread"] = rng.choice([16, 24, 32, 40, 64, 96, 128, 168, 255])
    if rng.random() < 0.4:
        body["static_shared_bytes"] = rng.choice([0, 1024, 4224, 12288, 40000, 60000])
    if vary != "dynamic_shared_bytes" and rng.random() < 0.3:
        body["dynamic_shared_bytes"] = rng.choice([0, 1024, 16384, 50000])
    if rng.random() < 0.3:
        body["carveout_percent"] = rng.choice([0, 25, 50, 100])
    if rng.random() < 0.4:
        body["grid_size"] = rng.choice([1, 132, 1000, 99999])
    if rng.random() < 0.15:
        body["cluster_size"] = rng.choice([2, 4, 8])
    if rng.random() < 0.8:
        top = {"block_size": 1024, "registers_per_thread": 255, "dynamic_shared_bytes": 232448}[vary]
        step = rng.choice({"block_size": [1, 32, 64, 96], "registers_per_thread": [1, 1, 2, 8],
                           "dynamic_shared_bytes": [1, 64, 64, 128, 1000, 1024]}[vary])
        start = rng.randrange(0, top // 2)
        body.update({"from": start, "to": min(top, start + step * rng.choice([1, 16, 300, 1023])), "step": step})
    if rng.random() < 0.5:
        body["format"] = rng.choice(["points", "columns"])
    return body


ROUTES = {"kernel": ("/v1/kernel", kernel), "latency": ("/v1/latency-hiding", latency),
          "sweep": ("/v1/occupancy/sweep", sweep)}


def bodies(kind, count, seed):
    rng = random.Random(seed)
    ids = gpus()
    return [json.dumps(ROUTES[kind][1](rng, ids), separators=(",", ":")) for _ in range(count)]


def answers(api_loop, route, path, count):
    env = dict(os.environ, API_LOOP_PRINT="1")
    out = subprocess.run([api_loop, route, path, str(count)], env=env, check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    return out.splitlines()[:count]


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--bodies":
        for b in bodies(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 13):
            print(b)
        return 0
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 13
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for kind, (route, _) in ROUTES.items():
            path = os.path.join(tmp, kind + ".txt")
            lines = bodies(kind, count, seed)
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            old = answers(sys.argv[1], route, path, count)
            new = answers(sys.argv[2], route, path, count)
            same = sum(a == b for a, b in zip(old, new))
            statuses = {}
            for a in old:
                statuses[a.split(" ", 1)[0]] = statuses.get(a.split(" ", 1)[0], 0) + 1
            print(f"{route}: {same}/{count} answers byte-identical (statuses {statuses})")
            for i, (a, b) in enumerate(zip(old, new)):
                if a != b and bad < 5:
                    bad += 1
                    print(f"  body {lines[i]}\n  old  {a[:400]}\n  new  {b[:400]}")
            bad += count - same
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
