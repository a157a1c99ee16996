#!/usr/bin/env python3
"""make_requests.py - varied request bodies for the benchmarks, one JSON
object a line: a random GPU of the bundled database, random kernel
attributes and sizes, from a fixed seed so that runs ask the same questions.

    tests/bench/make_requests.py KIND COUNT [SEED] > bodies.txt
    tests/bench/make_requests.py set DIR

set writes the benchmarks' bodies into DIR: occupancy.txt (4096),
sweep.txt (64), sweep-columns.txt (the same sweeps asking the columns
format) and kernel.txt (256), each from the default seed.

KIND: occupancy (POST /v1/occupancy), sweep (POST /v1/occupancy/sweep,
1024 points of dynamic_shared_bytes), kernel (POST /v1/kernel).
Every occupancy body is launchable on every GPU of the database (the
benchmark compares 200 answers with nginx's); sweeps keep their unlaunchable
points, as the contract does.
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GPUS_DIR = os.path.join(HERE, "..", "..", "hwdb", "gpus")


def gpus():
    return sorted(f[:-5] for f in os.listdir(GPUS_DIR) if f.endswith(".yaml"))


def occupancy(rng, ids):
    block = rng.choice([64, 128, 128, 256, 256, 256, 512, 1024]) if rng.random() < 0.8 else rng.randrange(32, 1025, 32)
    # launchable on every GPU of the database: 64K registers a block (warps
    # counted in fours, registers in eights) and 64 KiB of shared memory a
    # block at most (a T4's opt-in limit)
    body = {"gpu": rng.choice(ids), "block_size": block,
            "registers_per_thread": rng.randrange(16, min(248, 65536 // (-(-block // 128) * 128) // 8 * 8) + 1)}
    if rng.random() < 0.5:
        body["static_shared_bytes"] = rng.randrange(0, 40 * 1024, 256)
    if rng.random() < 0.4:
        body["dynamic_shared_bytes"] = rng.randrange(0, 24 * 1024, 1024)
    if rng.random() < 0.2:
        body["carveout_percent"] = rng.choice([0, 25, 50, 100])
    if rng.random() < 0.5:
        body["grid_size"] = rng.randrange(1, 100000)
    return body


def sweep(rng, ids):
    # 1024 points: dynamic shared memory from 0 in steps of 64 bytes
    body = {"gpu": rng.choice([g for g in ids if g != "mi300x"]),
            "block_size": rng.choice([128, 256, 512]),
            "registers_per_thread": rng.randrange(16, 97),
            "vary": "dynamic_shared_bytes", "from": 0, "to": 1023 * 64, "step": 64}
    if rng.random() < 0.5:
        body["grid_size"] = rng.randrange(1, 100000)
    return body


def kernel(rng, ids):
    ids = [g for g in ids if g != "mi300x"]
    bx = rng.choice([32, 64, 128, 256])
    return {"gpu": rng.choice(ids),
            "launch": {"grid": [rng.randrange(1, 1025), rng.randrange(1, 257)], "block": [bx, rng.choice([1, 2, 4])],
                       "dynamic_shared_bytes": 0},
            "resources": {"registers_per_thread": rng.randrange(16, 97), "static_shared_bytes": 0,
                          "block_barriers": 1},
            "per_thread": {"flops": {"fp32": rng.randrange(0, 256)}, "sfu_ops": 0,
                           "accesses": [{"space": "global", "op": "load", "count": rng.randrange(1, 9),
                                         "element_bytes": rng.choice([4, 8, 16]),
                                         "lane_stride_elements": rng.choice([1, 1, 2, 32]), "independent": 1},
                                        {"space": "global", "op": "store", "count": rng.randrange(1, 5),
                                         "element_bytes": 4, "lane_stride_elements": 1, "independent": 4}],
                           "branch": {"paths": 1}}}


MAKERS = {"occupancy": occupancy, "sweep": sweep, "kernel": kernel}


def write(kind, count, seed, out, extra=None):
    rng = random.Random(seed)
    ids = gpus()
    for _ in range(count):
        body = MAKERS[kind](rng, ids)
        if extra:
            body.update(extra)
        out.write(json.dumps(body, separators=(",", ":")) + "\n")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "set":
        d = sys.argv[2]
        for name, kind, count, extra in (("occupancy", "occupancy", 4096, None), ("sweep", "sweep", 64, None),
                                         ("sweep-columns", "sweep", 64, {"format": "columns"}),
                                         ("kernel", "kernel", 256, None)):
            with open(os.path.join(d, name + ".txt"), "w") as out:
                write(kind, count, 13, out, extra)
        return
    if len(sys.argv) < 3 or sys.argv[1] not in MAKERS:
        sys.exit(__doc__)
    write(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 13, sys.stdout)


if __name__ == "__main__":
    main()
