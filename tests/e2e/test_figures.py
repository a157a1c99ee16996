"""The figure rule over real HTTP (API.md, "Figures: where every number comes
from"), on every GPU of the database:

- a what-if doubling DRAM bandwidth roughly halves a DRAM-bound GEMV and a
  DRAM-bound roofline; doubling the dense tensor rate of a dtype the GPU has
  roughly halves a compute-bound GEMM;
- an override of a datasheet figure with a measured counterpart moves the
  measured figure in proportion (source scaled_measured, and an assumption
  says so); an override of the measured field is the override; an override
  of a datasheet figure without a measured one is the new datasheet value
  times the fraction (derived);
- every model answer carries figures_used, each figure with its value and
  one of the five sources, and a derived one with datasheet, fraction and
  fraction_source: over every model case of tests/api/cases.

The halving bars are loose on purpose ("roughly"): a fixed per-kernel cost
and the parts of the time the figure does not govern keep the ratio a little
above 0.5; a ratio near 1 (the what-if ignored) fails."""
import json
import os
import unittest

import simtd_harness as h

SOURCES = {"override", "measured", "scaled_measured", "datasheet", "derived"}


class Figures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = h.Daemon()
        status, body = cls.d.get_json("/v1/gpus")
        assert status == 200, status
        cls.gpus = {g["id"]: g for g in body["gpus"]}
        cls.records = {}
        for gid in cls.gpus:
            status, rec = cls.d.get_json("/v1/gpus/" + gid)
            assert status == 200, (gid, status)
            cls.records[gid] = rec

    @classmethod
    def tearDownClass(cls):
        rc = cls.d.stop()
        cls.d.close()
        assert rc == 0, rc

    def post_ok(self, path, body):
        status, answer = self.d.post_json(path, body)
        self.assertEqual(status, 200, (path, body, answer))
        return answer

    def dram(self, gid):
        return self.records[gid]["memory"]["dram_bandwidth_bytes_per_s"]

    def tensor_dtype(self, gid):
        rates = self.records[gid]["throughput"]["tensor_dense_flops_per_s"]
        for dtype in ("bf16", "fp16"):
            if rates.get(dtype, 0) > 0:
                return dtype, rates[dtype]
        self.fail("%s: no bf16 or fp16 tensor rate" % gid)

    def check_figures_used(self, where, answer):
        self.assertIn("figures_used", answer, where)
        for name, figure in answer["figures_used"].items():
            self.assertIn(figure["source"], SOURCES, (where, name))
            self.assertIsInstance(figure["value"], (int, float), (where, name))
            if figure["source"] == "derived" and "note" not in figure:
                for key in ("datasheet", "fraction", "fraction_source"):
                    self.assertIn(key, figure, (where, name))
                self.assertAlmostEqual(figure["value"], figure["datasheet"] * figure["fraction"],
                                       delta=1e-9 * figure["value"], msg=(where, name))

    def halves(self, where, before, after):
        ratio = after / before
        self.assertGreater(ratio, 0.45, (where, before, after))
        self.assertLess(ratio, 0.62, (where, before, after))

    def test_dram_doubling_halves_gemv_and_roofline(self):
        for gid in sorted(self.gpus):
            with self.subTest(gpu=gid):
                dtype, _ = self.tensor_dtype(gid)
                what_if = {"base": gid, "dram_bandwidth_bytes_per_s": 2.0 * self.dram(gid)}
                gemv = {"m": 16384, "n": 1, "k": 16384, "dtype": dtype}
                a = self.post_ok("/v1/gemm", dict(gemv, gpu=gid))
                b = self.post_ok("/v1/gemm", dict(gemv, gpu=what_if))
                self.check_figures_used(gid + " gemv", a)
                self.check_figures_used(gid + " gemv what-if", b)
                self.halves(gid + " gemv", a["time_s"], b["time_s"])
                roof = {"flops": 1.0e9, "precision": "fp32", "bytes": 8.0e9}
                a = self.post_ok("/v1/roofline", dict(roof, gpu=gid))
                b = self.post_ok("/v1/roofline", dict(roof, gpu=what_if))
                self.assertEqual(a["bound"], "dram", gid)
                self.halves(gid + " roofline", a["time_s"], b["time_s"])
                self.assertIn(b["figures_used"]["dram_bandwidth_bytes_per_s"]["source"],
                              ("scaled_measured", "derived", "override"), gid)

    def test_tensor_doubling_halves_compute_bound_gemm(self):
        for gid in sorted(self.gpus):
            with self.subTest(gpu=gid):
                dtype, rate = self.tensor_dtype(gid)
                body = {"m": 8192, "n": 8192, "k": 8192, "dtype": dtype}
                a = self.post_ok("/v1/gemm", dict(body, gpu=gid))
                what_if = {"base": gid, "tensor_dense_flops_per_s": {dtype: 2.0 * rate}}
                b = self.post_ok("/v1/gemm", dict(body, gpu=what_if))
                self.assertEqual(a["bound"], "compute", gid)
                self.halves(gid + " gemm", a["time_s"], b["time_s"])
                used = b["figures_used"]["tensor_flops_per_s." + dtype]
                self.assertIn(used["source"], ("scaled_measured", "derived"), gid)

    def test_h200_dram_override_scales_measured(self):
        measured = self.records["h200-sxm"]["measured"]["dram_bandwidth_bytes_per_s"]
        body = {"gpu": {"base": "h200-sxm", "dram_bandwidth_bytes_per_s": 9.6e12}, "flops": 1.0e9,
                "precision": "fp32", "bytes": 8.0e9}
        answer = self.post_ok("/v1/roofline", body)
        used = answer["figures_used"]["dram_bandwidth_bytes_per_s"]
        self.assertEqual(used["source"], "scaled_measured")
        self.assertAlmostEqual(used["value"], 2.0 * measured, delta=1.0)
        self.assertTrue(any("moved in proportion" in a and "measured_dram_bandwidth_bytes_per_s" in a
                            for a in answer["assumptions"]), answer["assumptions"])
        # the measured field itself overridden: the override, as given
        body["gpu"] = {"base": "h200-sxm", "measured_dram_bandwidth_bytes_per_s": 3.0e12}
        used = self.post_ok("/v1/roofline", body)["figures_used"]["dram_bandwidth_bytes_per_s"]
        self.assertEqual(used["source"], "override")
        self.assertEqual(used["value"], 3.0e12)
        # no measured counterpart: the new datasheet value times the fraction
        body["gpu"] = {"base": "a100-sxm4-80gb", "dram_bandwidth_bytes_per_s": 4.0e12}
        used = self.post_ok("/v1/roofline", body)["figures_used"]["dram_bandwidth_bytes_per_s"]
        self.assertEqual(used["source"], "derived")
        self.assertEqual(used["datasheet"], 4.0e12)
        self.assertAlmostEqual(used["value"], 4.0e12 * used["fraction"], delta=1.0)
        # "figures": "datasheet" leaves the measured figure out, not the fraction
        body = {"gpu": "h200-sxm", "figures": "datasheet", "flops": 1.0e9, "precision": "fp32", "bytes": 8.0e9}
        used = self.post_ok("/v1/roofline", body)["figures_used"]["dram_bandwidth_bytes_per_s"]
        self.assertEqual(used["source"], "derived")
        self.assertEqual(used["datasheet"], 4.8e12)

    def test_fp64_fma_latency(self):
        # one block an SM, one dependent FP64 FMA chain a thread: latency bound
        body = {"launch": {"grid": 132, "block": 256}, "resources": {"registers_per_thread": 16},
                "per_thread": {"flops": {"fp64": 2048}}}
        h100 = self.records["h100-sxm"]["measured"]
        a = self.post_ok("/v1/kernel", dict(body, gpu="h100-sxm"))
        used = a["figures_used"]["fp64_fma_latency_cycles"]
        self.assertEqual(used["source"], "measured")
        self.assertEqual(used["value"], h100["fp64_fma_latency_cycles"])
        # an FP32 chain of the same length waits the FP32 FMA's latency, about
        # half (the launch's fixed cost left out of the comparison)
        b = self.post_ok("/v1/kernel", dict(body, gpu="h100-sxm", per_thread={"flops": {"fp32": 2048}}))
        self.assertNotIn("fp64_fma_latency_cycles", b["figures_used"])
        self.assertLess(b["execution_s"], 0.75 * a["execution_s"], (a["execution_s"], b["execution_s"]))
        # a what-if of the FMA latency moves the measured FP64 one in proportion
        c = self.post_ok("/v1/kernel", dict(body, gpu={"base": "h100-sxm", "fma_latency_cycles": 8.0}))
        self.assertEqual(c["figures_used"]["fp64_fma_latency_cycles"]["source"], "scaled_measured")
        self.assertGreater(c["time_s"], 1.5 * a["time_s"], (a["time_s"], c["time_s"]))
        # a GPU without the measurement: the FP32 FMA's latency stands in
        d = self.post_ok("/v1/kernel", dict(body, gpu="a100-sxm4-80gb"))
        used = d["figures_used"]["fp64_fma_latency_cycles"]
        self.assertEqual(used["source"], d["figures_used"]["fma_latency_cycles"]["source"])
        self.assertIn("stands in", used["note"])
        self.assertEqual(used["value"], self.records["a100-sxm4-80gb"]["latency"]["fma_latency_cycles"])

    def test_dram_partial_stores(self):
        # random 4-byte stores into a 1 GiB table: each a read-modify-write on a row of its own
        body = {"launch": {"grid": 65536, "block": 256}, "resources": {"registers_per_thread": 16},
                "per_thread": {"accesses": [{"space": "global", "op": "store", "count": 1, "element_bytes": 4,
                                             "lane_stride_elements": 256, "distinct_addresses": 268435456}]}}
        h100 = self.records["h100-sxm"]["measured"]
        a = self.post_ok("/v1/kernel", dict(body, gpu="h100-sxm"))
        used = a["figures_used"]["dram_partial_stores_per_s"]
        self.assertEqual(used["source"], "measured")
        self.assertEqual(used["value"], h100["dram_partial_stores_per_s"])
        # a what-if of the row rate moves the measured read-modify-write rate with it, and the answer
        rows = {"base": "h100-sxm", "measured_dram_row_activations_per_s": 2 * h100["dram_row_activations_per_s"]}
        b = self.post_ok("/v1/kernel", dict(body, gpu=rows))
        self.assertEqual(b["figures_used"]["dram_partial_stores_per_s"]["source"], "scaled_measured")
        self.assertEqual(b["figures_used"]["dram_row_activations_per_s"]["source"], "override")
        self.assertLess(b["time_s"], 0.6 * a["time_s"], (a["time_s"], b["time_s"]))
        # and a what-if of the figure itself: the slices' share halves, and the
        # rows (two openings a read-modify-write) are what is left to bind
        c = self.post_ok("/v1/kernel", dict(body, gpu={"base": "h100-sxm", "measured_dram_partial_stores_per_s":
                                                       2 * h100["dram_partial_stores_per_s"]}))
        self.assertEqual(c["figures_used"]["dram_partial_stores_per_s"]["source"], "override")
        self.assertLess(c["time_s"], 0.95 * a["time_s"], (a["time_s"], c["time_s"]))
        self.assertGreater(c["time_s"], b["time_s"], (b["time_s"], c["time_s"]))
        # a GPU without row figures: neither is used (rows are not limited)
        d = self.post_ok("/v1/kernel", dict(body, gpu="a100-sxm4-80gb"))
        self.assertNotIn("dram_partial_stores_per_s", d["figures_used"])
        # a stand-in: half the row activations, saying so
        half = {"base": "a100-sxm4-80gb", "measured_dram_row_activations_per_s": 3.0e10}
        e = self.post_ok("/v1/kernel", dict(body, gpu=half))
        used = e["figures_used"]["dram_partial_stores_per_s"]
        self.assertEqual(used["value"], 1.5e10)
        self.assertIn("stand in", used["note"])

    def test_every_model_case_has_figures_used(self):
        root = os.path.join(h.REPO, "tests", "api", "cases")
        seen = set()
        for name in sorted(os.listdir(root)):
            with open(os.path.join(root, name, "route")) as f:
                method, route = f.read().split()
            with open(os.path.join(root, name, "status")) as f:
                status = int(f.read())
            if method != "POST" or status != 200:
                continue
            with open(os.path.join(root, name, "request.json")) as f:
                request = json.load(f)
            answer = self.post_ok(route, request)
            if route == "/v1/compare":
                for result in answer["results"]:
                    if "error" not in result:
                        self.check_figures_used(name, result)
            else:
                self.check_figures_used(name, answer)
            seen.add(route)
        # every model route has a case here (the list grows with the API)
        status, doc = self.d.get_json("/openapi.json")
        model_routes = {path for path, item in doc["paths"].items()
                        if "post" in item and "model" in item["post"].get("tags", [])}
        self.assertTrue(model_routes, "no model routes in /openapi.json")
        self.assertEqual(model_routes - seen - {"/v1/compare"}, set(), "model routes without a case")


if __name__ == "__main__":
    h.main()
