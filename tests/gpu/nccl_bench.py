#!/usr/bin/env python3
"""nccl_bench.py - NCCL collectives through torch.distributed on the GPUs of
one host (issue 5), measured the way nccl-tests measures them: per message
size, warm-up, then several trials of N back-to-back operations between two
CUDA events; time per operation = trial time / N; the median trial, averaged
over ranks (nccl-tests' default). algbw = bytes / time and busbw = algbw x
nccl-tests' factor: all_reduce 2(n-1)/n, all_gather, reduce_scatter and
all_to_all (n-1)/n, broadcast 1. `bytes` counts as nccl-tests counts it: the
larger of one rank's send and receive buffers (all_gather: the gathered
output; reduce_scatter: the input). float32 data, random.

    python3 tests/gpu/nccl_bench.py --out collectives.json [--max-bytes 4294967296]

NVLink multicast (NVLS) is forced off in this process and its children:
NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1
(on the shared hosts it is lent on, multicast can take the GPUs out of
service)."""

import os

for _k, _v in {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
               "NVSHMEM_DISABLE_NVLS": "1"}.items():
    os.environ[_k] = _v

import argparse  # noqa: E402
import json  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_meta  # noqa: E402

OPS = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast"]


def busbw_factor(op, n):
    if op == "all_reduce":
        return 2.0 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n
    return 1.0


def plan(nbytes):
    """(warm-ups, trials, ops per trial) for a message size"""
    if nbytes <= (1 << 20):
        return 5, 10, 50
    if nbytes <= (64 << 20):
        return 3, 7, 20
    if nbytes <= (512 << 20):
        return 2, 5, 5
    if nbytes <= (2 << 30):
        return 1, 3, 2
    return 1, 3, 1


def buffers(op, nbytes, world, rank):
    """(callable doing one op, tensors) for `nbytes` counted as nccl-tests count it"""
    elems = nbytes // 4
    g = torch.Generator(device="cuda")
    g.manual_seed(1000 + rank)
    if op == "all_reduce":
        x = torch.randn(elems, device="cuda", generator=g)
        return (lambda: dist.all_reduce(x)), [x]
    if op == "broadcast":
        x = torch.randn(elems, device="cuda", generator=g)
        return (lambda: dist.broadcast(x, src=0)), [x]
    if op == "all_gather":
        out = torch.empty(elems, device="cuda")
        inp = torch.randn(elems // world, device="cuda", generator=g)
        return (lambda: dist.all_gather_into_tensor(out, inp)), [out, inp]
    if op == "reduce_scatter":
        inp = torch.randn(elems, device="cuda", generator=g)
        out = torch.empty(elems // world, device="cuda")
        return (lambda: dist.reduce_scatter_tensor(out, inp)), [out, inp]
    if op == "all_to_all":
        inp = torch.randn(elems, device="cuda", generator=g)
        out = torch.empty(elems, device="cuda")
        return (lambda: dist.all_to_all_single(out, inp)), [out, inp]
    raise ValueError(op)


def correctness(world, rank):
    """all_reduce and all_gather of known values give the known answer"""
    x = torch.full((1 << 18,), float(rank + 1), device="cuda")
    dist.all_reduce(x)
    ok_ar = bool(torch.all(x == world * (world + 1) / 2).item())
    inp = torch.full((1 << 16,), float(rank), device="cuda")
    out = torch.empty((1 << 16) * world, device="cuda")
    dist.all_gather_into_tensor(out, inp)
    want = torch.arange(world, device="cuda", dtype=torch.float32).repeat_interleave(1 << 16)
    ok_ag = bool(torch.equal(out, want))
    return {"all_reduce_sum_ok": ok_ar, "all_gather_ok": ok_ag}


def worker(rank, world, port, args, q):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world,
                            device_id=torch.device("cuda", rank))
    checks = correctness(world, rank)
    sizes = []
    s = args.min_bytes
    while s <= args.max_bytes:
        sizes.append(s)
        s *= 2
    runs = []
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    t_start = time.time()
    for op in OPS:
        for nbytes in sizes:
            if time.time() - t_start > args.budget_s:
                if rank == 0:
                    print("time budget reached, skipping %s %d" % (op, nbytes), flush=True)
                continue
            fn, keep = buffers(op, nbytes, world, rank)
            warm, trials, per = plan(nbytes)
            graph = None
            if args.graph:
                # N operations captured in one CUDA graph, replayed: no host
                # dispatch between them (what nccl-tests' -G 1 does)
                side = torch.cuda.Stream()
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    for _ in range(warm):
                        fn()
                torch.cuda.current_stream().wait_stream(side)
                torch.cuda.synchronize()
                dist.barrier()
                torch.cuda.synchronize()
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    for _ in range(per):
                        fn()
                torch.cuda.synchronize()
                dist.barrier()
                graph.replay()
                torch.cuda.synchronize()
            else:
                for _ in range(warm):
                    fn()
                torch.cuda.synchronize()
            times = []
            for _ in range(trials):
                dist.barrier()
                torch.cuda.synchronize()
                e0.record()
                if graph is not None:
                    graph.replay()
                else:
                    for _ in range(per):
                        fn()
                e1.record()
                e1.synchronize()
                times.append(e0.elapsed_time(e1) * 1e-3 / per)
            del graph
            med = statistics.median(times)
            t = torch.tensor([med, min(times), max(times)], device="cuda", dtype=torch.float64)
            avg = t.clone()
            dist.all_reduce(avg)
            avg /= world
            mx = t.clone()
            dist.all_reduce(mx, op=dist.ReduceOp.MAX)
            del fn, keep
            if rank == 0:
                tm = avg[0].item()
                algbw = nbytes / tm
                runs.append({"op": op, "bytes": nbytes, "gpus": world, "nodes": 1, "link": "nvlink",
                             "measured_s": tm, "algbw_bytes_per_s": algbw,
                             "busbw_bytes_per_s": algbw * busbw_factor(op, world),
                             "min_s": avg[1].item(), "max_s": avg[2].item(),
                             "slowest_rank_median_s": mx[0].item(),
                             "trials": trials, "ops_per_trial": per, "dtype": "float32"})
                print("  %-15s %12d B  %10.2f us  algbw %8.2f GB/s  busbw %8.2f GB/s" %
                      (op, nbytes, tm * 1e6, algbw / 1e9, algbw * busbw_factor(op, world) / 1e9),
                      flush=True)
        torch.cuda.empty_cache()
    if rank == 0:
        q.put({"runs": runs, "checks": checks,
               "nccl": nccl_version()})
    dist.barrier()
    torch.cuda.synchronize()
    if args.graph:
        # destroy_process_group() can hang after NCCL work was captured in a
        # CUDA graph (pytorch/pytorch#115388): leave without it
        sys.stdout.flush()
        os._exit(0)
    dist.destroy_process_group()


def nccl_version():
    v = torch.cuda.nccl.version()
    return ".".join(str(x) for x in v) if isinstance(v, (tuple, list)) else str(v)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="collectives.json")
    ap.add_argument("--gpus", type=int, default=0, help="default: all visible")
    ap.add_argument("--min-bytes", type=int, default=1024)
    ap.add_argument("--max-bytes", type=int, default=4 << 30)
    ap.add_argument("--budget-s", type=float, default=300.0)
    ap.add_argument("--graph", action="store_true",
                    help="time CUDA-graph replays of N captured operations instead of N eager calls")
    args = ap.parse_args()
    world = args.gpus or torch.cuda.device_count()
    if world < 2:
        sys.exit("nccl_bench: needs at least 2 GPUs, found %d" % world)
    smi_before = gpu_meta.smi()
    t0 = time.time()
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    port = free_port()
    procs = [ctx.Process(target=worker, args=(r, world, port, args, q)) for r in range(world)]
    for p in procs:
        p.start()
    res = None
    while res is None:
        try:
            res = q.get(timeout=5)
        except Exception:  # noqa: BLE001 - queue.Empty: see whether a worker died
            if any(p.exitcode not in (None, 0) for p in procs):
                for p in procs:
                    if p.is_alive():
                        p.terminate()
                sys.exit("nccl_bench: a worker failed")
    # the results are in hand: never let a worker's exit hold them hostage
    for p in procs:
        p.join(timeout=30)
    for p in procs:
        if p.is_alive():
            print("nccl_bench: worker %d still alive after its results came, terminating" % p.pid,
                  flush=True)
            p.terminate()
    smi_after = gpu_meta.smi()
    meta = gpu_meta.base_meta(smi_before)
    meta.update({
        "torch": torch.__version__, "cuda": torch.version.cuda, "nccl": res["nccl"],
        "gpus": world, "nodes": 1,
        "topology": gpu_meta.run(["nvidia-smi", "topo", "-m"]),
        "nvlink_status": gpu_meta.run(["nvidia-smi", "nvlink", "-s"])[:4000],
        "environment": {k: os.environ.get(k) for k in
                        ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST",
                         "NVSHMEM_DISABLE_NVLS", "NCCL_DEBUG", "NCCL_ALGO", "NCCL_PROTO")},
        "clocks": {"before": gpu_meta.clocks(smi_before), "after": gpu_meta.clocks(smi_after)},
        "checks": res["checks"],
        "elapsed_s": time.time() - t0,
        "timing": "cuda_graph" if args.graph else "eager",
        "method": (
            "NCCL through torch.distributed (backend nccl), one process per GPU started with "
            "torch.multiprocessing (spawn), NVLink multicast off (NCCL_NVLS_ENABLE=0, "
            "TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1), NCCL's own choice of "
            "algorithm and protocol. float32 random data. Per operation and size (1 KiB to 4 GiB, "
            "powers of 2): warm-ups, then trials of N back-to-back operations (eager: N Python "
            "calls; graph: one replay of a CUDA graph holding the N operations) between two CUDA "
            "events after a barrier; time per op = trial / N; the median "
            "trial per rank, averaged over ranks (as nccl-tests' default). bytes as nccl-tests: "
            "all_reduce/broadcast the buffer, all_gather the gathered output, reduce_scatter the "
            "input, all_to_all the send buffer. algbw = bytes / time; busbw = algbw x 2(n-1)/n "
            "(all_reduce), (n-1)/n (all_gather, reduce_scatter, all_to_all), 1 (broadcast). "
            "Clocks left as found."),
    })
    with open(args.out, "w") as f:
        json.dump({"meta": meta, "runs": res["runs"]}, f, indent=1)
    print("wrote %d runs to %s in %.0f s" % (len(res["runs"]), args.out, time.time() - t0))


if __name__ == "__main__":
    main()
