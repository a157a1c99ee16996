#!/usr/bin/env python3
"""layer_bench.py - issue 12 item 5: one Llama-style decoder layer in PyTorch
on one GPU, timed as GPU time without CPU gaps.

The layer: RMSNorm, fused QKV projection, rotary embedding (the Hugging Face
eager form: halves, cos/sin), SDPA attention (flash backend, GQA through
enable_gqa; causal in prefill; in decode the new token's K and V are written
into the cache first), O projection, residual add, RMSNorm, fused gate+up
projection, SiLU(gate) * up, down projection, residual add. bf16 throughout;
"fp8" rows run the four projections through torch._scaled_mm (e4m3 weights,
the activation quantized per tensor with a unit scale, bf16 out).

Timing: the layer is captured once in a CUDA graph; each repeat is a sleep
kernel (torch.cuda._sleep, long enough for the host to queue what follows),
then an event pair around N graph replays; time = elapsed / N. 2 untimed
repeats, 5 timed, the median. N is chosen so one repeat lasts >= 20 ms.
Besides the layer, the same way: the SDPA call alone ("attn_s") and the four
projections alone ("gemm_s"), for diagnosis.

The fit / held-out split is made here, from the row's name only (SHA-1),
before anything is measured or fitted: rows are grouped by (phase, model,
dtype), each group ordered by SHA-1 of the name, alternating fit, heldout
with the first label alternating between groups.

    python3 layer_bench.py OUT.json
"""

import hashlib
import json
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import gpu_meta  # noqa: E402

SHAPES = {  # Hugging Face config.json of each model
    "llama3-8b": dict(hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336),
    "llama3-70b": dict(hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672),
}


def configs():
    rows = []
    pre = [(1, 512), (1, 1024), (1, 2048), (1, 4096), (1, 8192), (2, 2048), (4, 1024), (4, 4096),
           (8, 512), (8, 2048), (8, 8192)]
    dec = [(b, c) for b in (1, 4, 16, 64, 256) for c in (1024, 4096, 16384, 32768)]
    for m in SHAPES:
        for b, s in pre:
            rows.append(dict(model=m, phase="prefill", batch=b, seq_len=s, kv_len=s, dtype="bf16"))
        for b, c in dec:
            rows.append(dict(model=m, phase="decode", batch=b, seq_len=1, kv_len=c, dtype="bf16"))
        for b, s in [(1, 1024), (1, 4096), (4, 2048), (8, 8192)]:
            rows.append(dict(model=m, phase="prefill", batch=b, seq_len=s, kv_len=s, dtype="fp8"))
        for b, c in [(1, 4096), (16, 4096), (64, 16384), (256, 1024)]:
            rows.append(dict(model=m, phase="decode", batch=b, seq_len=1, kv_len=c, dtype="fp8"))
    for r in rows:
        r["name"] = "%s_%s_%s_b%d_s%d_kv%d" % (r["model"], r["phase"], r["dtype"], r["batch"], r["seq_len"],
                                               r["kv_len"])
    groups = {}
    for r in rows:
        groups.setdefault((r["phase"], r["model"], r["dtype"]), []).append(r)
    for gi, g in enumerate(sorted(groups)):
        for i, r in enumerate(sorted(groups[g], key=lambda r: hashlib.sha1(r["name"].encode()).hexdigest())):
            r["split"] = "fit" if (i + gi) % 2 == 0 else "heldout"
    return rows


class Layer:
    def __init__(self, shape, dtype, dev):
        h, nh, kv, hd, f = (shape[k] for k in ("hidden", "heads", "kv_heads", "head_dim", "ffn"))
        self.h, self.nh, self.kv, self.hd, self.f = h, nh, kv, hd, f
        bf = torch.bfloat16

        def w(n, k):
            return torch.randn(n, k, device=dev, dtype=bf) * (k ** -0.5)

        self.w = {"qkv": w((nh + 2 * kv) * hd, h), "o": w(h, nh * hd), "gate_up": w(2 * f, h), "down": w(h, f)}
        self.n1 = torch.ones(h, device=dev, dtype=bf)
        self.n2 = torch.ones(h, device=dev, dtype=bf)
        self.fp8 = dtype == "fp8"
        if self.fp8:
            self.w8 = {k: v.to(torch.float8_e4m3fn) for k, v in self.w.items()}
            self.one = torch.ones((), device=dev, dtype=torch.float32)

    def lin(self, x, name):
        if not self.fp8:
            return F.linear(x, self.w[name])
        shp = x.shape
        a = x.reshape(-1, shp[-1]).to(torch.float8_e4m3fn)
        y = torch._scaled_mm(a, self.w8[name].t(), scale_a=self.one, scale_b=self.one, out_dtype=torch.bfloat16)
        return y.reshape(*shp[:-1], y.shape[-1])


def rope(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    rot = torch.cat((-x2, x1), dim=-1)
    return x * cos + rot * sin


def build(row, dev):
    shape = SHAPES[row["model"]]
    L = Layer(shape, row["dtype"], dev)
    b, s, kvl = row["batch"], row["seq_len"], row["kv_len"]
    h, nh, kv, hd = L.h, L.nh, L.kv, L.hd
    x = torch.randn(b, s, h, device=dev, dtype=torch.bfloat16)
    pos = torch.arange(kvl - s, kvl, device=dev, dtype=torch.float32)
    inv = 1.0 / (500000.0 ** (torch.arange(0, hd, 2, device=dev, dtype=torch.float32) / hd))
    ang = torch.outer(pos, inv)
    ang = torch.cat((ang, ang), dim=-1)
    cos = ang.cos().to(torch.bfloat16)[None, :, None, :]
    sin = ang.sin().to(torch.bfloat16)[None, :, None, :]
    decode = row["phase"] == "decode"
    if decode:
        kc = torch.randn(b, kv, kvl, hd, device=dev, dtype=torch.bfloat16)
        vc = torch.randn(b, kv, kvl, hd, device=dev, dtype=torch.bfloat16)
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def attention(q, k, v):
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=not decode, enable_gqa=True)

    def layer():
        r = x
        y = F.rms_norm(x, (h,), L.n1, 1e-5)
        qkv = L.lin(y, "qkv")
        q, k, v = qkv.split([nh * hd, kv * hd, kv * hd], dim=-1)
        q = rope(q.view(b, s, nh, hd), cos, sin).transpose(1, 2)
        k = rope(k.view(b, s, kv, hd), cos, sin).transpose(1, 2)
        v = v.view(b, s, kv, hd).transpose(1, 2)
        if decode:
            kc[:, :, kvl - 1:kvl].copy_(k)
            vc[:, :, kvl - 1:kvl].copy_(v)
            k, v = kc, vc
        a = attention(q, k, v).transpose(1, 2).reshape(b, s, nh * hd)
        r = r + L.lin(a, "o")
        y = F.rms_norm(r, (h,), L.n2, 1e-5)
        gu = L.lin(y, "gate_up")
        g, u = gu.chunk(2, dim=-1)
        return r + L.lin(F.silu(g) * u, "down")

    qa = torch.randn(b, nh, s, hd, device=dev, dtype=torch.bfloat16)
    if decode:
        ka, va = kc, vc
    else:
        ka = torch.randn(b, kv, s, hd, device=dev, dtype=torch.bfloat16)
        va = torch.randn(b, kv, s, hd, device=dev, dtype=torch.bfloat16)

    def attn_only():
        return attention(qa, ka, va)

    xa = torch.randn(b, s, nh * hd, device=dev, dtype=torch.bfloat16)
    xf = torch.randn(b, s, L.f, device=dev, dtype=torch.bfloat16)

    def gemm_only():
        return (L.lin(x, "qkv"), L.lin(xa, "o"), L.lin(x, "gate_up"), L.lin(xf, "down"))

    return {"layer_s": layer, "attn_s": attn_only, "gemm_s": gemm_only}


def time_graph(fn):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    g.replay()
    e1.record()
    torch.cuda.synchronize()
    one = max(e0.elapsed_time(e1) / 1e3, 1e-6)
    n = max(1, min(200, int(0.02 / one)))
    ts = []
    for rep in range(7):
        torch.cuda._sleep(200000)
        e0.record()
        for _ in range(n):
            g.replay()
        e1.record()
        torch.cuda.synchronize()
        if rep >= 2:
            ts.append(e0.elapsed_time(e1) / 1e3 / n)
    ts.sort()
    del g
    return ts[len(ts) // 2], ts[0], ts[-1], n


def main():
    out = sys.argv[1]
    dev = torch.device("cuda")
    torch.manual_seed(0)
    meta = {"date": gpu_meta.date_utc(), "smi_before": gpu_meta.smi(), "torch": torch.__version__,
            "torch_cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
            "method": __doc__.split("Timing:")[1].split("The fit /")[0].strip().replace("\n", " "),
            "layer": __doc__.split("The layer:")[1].split("Timing:")[0].strip().replace("\n", " "),
            "split_rule": "The fit" + __doc__.split("The fit")[1].split("python3")[0].strip().replace("\n", " ")}
    rows = configs()
    t0 = time.time()
    for i, r in enumerate(rows):
        try:
            fns = build(r, dev)
            for k, fn in fns.items():
                med, lo, hi, n = time_graph(fn)
                r[k] = med
                if k == "layer_s":
                    r.update(layer_min_s=lo, layer_max_s=hi, replays=n)
        except Exception as e:  # noqa: BLE001  recorded, the run goes on
            r["error"] = repr(e)[:300]
        fns = None
        torch.cuda.empty_cache()
        print("%3d %-45s %s %.1fs" % (i, r["name"], "%.4g" % r["layer_s"] if "layer_s" in r else r.get("error"),
                                      time.time() - t0), flush=True)
        meta["smi_after"] = gpu_meta.smi()
        with open(out, "w") as f:
            json.dump({"gpu": "h200-sxm", "meta": meta, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
