#!/usr/bin/env python3
"""merge_collectives.py - one collectives.json from nccl_bench.py's two
timings of the same sweep: eager (N torch.distributed calls back to back,
PyTorch's host dispatch included) and graph (one CUDA-graph replay of N
captured operations: NCCL's own time, as nccl-tests measures it with a C
launcher). measured_s, algbw and busbw take the graph figure where there is
one; eager_s keeps the other, so a model can be checked against either.

    python3 tests/gpu/merge_collectives.py EAGER.json GRAPH.json OUT.json
"""

import json
import sys


def main():
    eager_path, graph_path, out_path = sys.argv[1:4]
    with open(eager_path) as f:
        eager = json.load(f)
    try:
        with open(graph_path) as f:
            graph = json.load(f)
    except (OSError, ValueError):
        graph = {"runs": []}
    g = {(r["op"], r["bytes"]): r for r in graph["runs"]}
    runs = []
    for r in eager["runs"]:
        out = dict(r)
        out["eager_s"] = r["measured_s"]
        gr = g.get((r["op"], r["bytes"]))
        if gr:
            factor = r["busbw_bytes_per_s"] / r["algbw_bytes_per_s"]
            out["measured_s"] = gr["measured_s"]
            out["algbw_bytes_per_s"] = r["bytes"] / gr["measured_s"]
            out["busbw_bytes_per_s"] = out["algbw_bytes_per_s"] * factor
            out["min_s"], out["max_s"] = gr["min_s"], gr["max_s"]
            out["slowest_rank_median_s"] = gr["slowest_rank_median_s"]
            out["timing"] = "cuda_graph"
        else:
            out["timing"] = "eager"
        runs.append(out)
    meta = eager["meta"]
    meta["timing"] = ("measured_s is the CUDA-graph time where timing says cuda_graph, the "
                      "eager time otherwise; eager_s is always the eager time")
    meta["graph_sweep"] = {k: graph.get("meta", {}).get(k) for k in ("date", "elapsed_s", "checks")}
    with open(out_path, "w") as f:
        json.dump({"meta": meta, "runs": runs}, f, indent=1)
    print("merged %d runs (%d with graph timing) into %s" %
          (len(runs), sum(1 for r in runs if r["timing"] == "cuda_graph"), out_path))


if __name__ == "__main__":
    main()
