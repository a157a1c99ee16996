"""test_client.py - the Python client (clients/python/simt) against the real
simtd started on --port 0 (binary from $SIMTD, set by ctest). Every endpoint
method is exercised; an endpoint whose route is not in the daemon yet is
reported as a skipped test, not a pass."""
import os
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "clients", "python"))

import simt  # noqa: E402
from daemon import Daemon  # noqa: E402

REQUIRED_IDS = ["v100-sxm2-32gb", "t4", "a100-sxm4-80gb", "a10", "l4", "l40s", "rtx-4090", "h100-sxm", "h100-pcie",
                "h200-sxm", "b200", "rtx-5090", "mi300x"]

daemon = None


def setUpModule():
    global daemon
    daemon = Daemon().start()


def tearDownModule():
    daemon.stop()


class ClientTest(unittest.TestCase):
    def setUp(self):
        self.c = simt.Client(daemon.url, timeout=20)

    def route(self, call):
        """Runs an endpoint call; skips when the daemon has no such route yet."""
        try:
            return call()
        except simt.SimtError as exc:
            if exc.status == 404 and exc.code == "not_found":
                self.skipTest("route not in this daemon yet: " + exc.message)
            raise


class Service(ClientTest):
    def test_healthz(self):
        h = self.c.healthz()
        self.assertEqual(h["status"], "ok")
        self.assertGreaterEqual(h["gpus"], len(REQUIRED_IDS))

    def test_gpus_lists_required_ids(self):
        ids = {g["id"] for g in self.c.gpus()}
        for gpu_id in REQUIRED_IDS:
            self.assertIn(gpu_id, ids)

    def test_gpu_record(self):
        rec = self.c.gpu("h200-sxm")
        self.assertEqual(rec["id"], "h200-sxm")
        self.assertEqual(rec["compute_capability"], "9.0")
        self.assertIn("sources", rec)

    def test_unknown_gpu_raises_with_body(self):
        with self.assertRaises(simt.SimtError) as ctx:
            self.c.gpu("no-such-gpu")
        self.assertEqual(ctx.exception.status, 404)
        self.assertEqual(ctx.exception.code, "unknown_gpu")
        self.assertEqual(set(ctx.exception.body), {"error"})

    def test_openapi(self):
        doc = self.c.openapi()
        self.assertTrue(doc["openapi"].startswith("3."))
        self.assertIn("/v1/occupancy", doc["paths"])


class Occupancy(ClientTest):
    # (block_size, registers_per_thread, static_shared_bytes, occupancy, limiters) on h200-sxm
    CASES = [
        (256, 64, 0, 0.5, ["registers"]),
        (256, 32, 0, 1.0, ["warps", "registers"]),
        (128, 16, 0, 1.0, ["warps"]),
        (1024, 255, 0, None, None),  # cannot launch: 422
    ]

    def test_cases(self):
        for block, regs, smem, occ, limiters in self.CASES:
            with self.subTest(block=block, regs=regs):
                if occ is None:
                    with self.assertRaises(simt.SimtError) as ctx:
                        self.c.occupancy("h200-sxm", block, regs, static_shared_bytes=smem)
                    self.assertEqual(ctx.exception.status, 422)
                    self.assertEqual(ctx.exception.code, "unsatisfiable")
                    self.assertIsNotNone(ctx.exception.field)
                    self.assertIn("unsatisfiable", str(ctx.exception))
                    continue
                a = self.c.occupancy("h200-sxm", block_size=block, registers_per_thread=regs,
                                     static_shared_bytes=smem)
                self.assertAlmostEqual(a["occupancy"], occ)
                self.assertEqual(a["limiters"], limiters)
                self.assertIsInstance(a["assumptions"], list)

    def test_none_arguments_are_not_sent(self):
        # grid_size left out: no waves in the answer; given: waves present
        a = self.c.occupancy("h200-sxm", 256, 64)
        self.assertNotIn("waves", a)
        b = self.c.occupancy("h200-sxm", 256, 64, grid_size=1000)
        self.assertAlmostEqual(b["waves"], 1000 / (4 * 132), places=6)

    def test_clusters(self):
        # 4 blocks of 256 x 64 registers an SM; clusters of 2 on the H200's layout
        # (18, 18, 16 x 5, 8, 2 x 4 SMs): 2 x 36 + 5 x 32 + 16 + 4 x 4
        a = self.c.occupancy("h200-sxm", 256, 64, cluster_size=2)
        self.assertEqual(a["active_clusters_per_gpu"], 264)
        b = self.c.occupancy("h200-sxm", 256, 64, cluster_size=[4, 4, 1], non_portable_cluster_size=True)
        self.assertEqual(b["active_clusters_per_gpu"], 2 * 4 + 5 * 4)  # 4 x 18 // 16 and 4 x 16 // 16
        self.assertNotIn("active_clusters_per_gpu", self.c.occupancy("h200-sxm", 256, 64))
        with self.assertRaises(simt.SimtError) as ctx:
            self.c.occupancy("h100-sxm", 256, 64, cluster_size=2)
        self.assertEqual((ctx.exception.status, ctx.exception.field), (422, "cluster_size"))
        sweep = self.c.occupancy_sweep("h200-sxm", "block_size", registers_per_thread=64, cluster_size=2,
                                       from_=256, to=512, step=256)
        self.assertEqual(sweep.column("active_clusters_per_gpu"), [264, 132])

    def test_what_if_gpu(self):
        a = self.c.occupancy({"base": "h200-sxm", "sm_count": 66}, 256, 64, grid_size=1000)
        self.assertEqual(a["gpu"], "h200-sxm")
        self.assertIn("sm_count", a["overridden"])
        self.assertAlmostEqual(a["waves"], 1000 / (4 * 66), places=6)

    def test_unknown_keyword_is_a_python_error(self):
        with self.assertRaises(TypeError):
            self.c.occupancy("h200-sxm", 256, 64, block_sise=3)  # noqa: the typo is the test

    def test_server_refuses_bad_type(self):
        with self.assertRaises(simt.SimtError) as ctx:
            self.c.occupancy("h200-sxm", "256", 64)
        self.assertEqual(ctx.exception.status, 400)
        self.assertEqual(ctx.exception.field, "block_size")

    def test_sweep_and_records(self):
        s = self.c.occupancy_sweep("h200-sxm", "block_size", registers_per_thread=64)
        self.assertIsInstance(s, simt.SweepResult)
        self.assertEqual(s.vary, "block_size")
        self.assertEqual([p["value"] for p in s.points], list(range(32, 1025, 32)))
        for point in s.points:  # each point equals the single-configuration answer
            if point["value"] in (64, 256, 1024):
                one = self.c.occupancy("h200-sxm", point["value"], 64)
                self.assertEqual(point["active_blocks_per_sm"], one["active_blocks_per_sm"])
                self.assertEqual(point["limiters"], one["limiters"])
        rec = s.records()
        self.assertEqual(len(rec), len(s.points))
        self.assertIn("limits.registers", rec[0])
        self.assertEqual(s.column("value")[:2], [32, 64])

    def test_sweep_from_to_step(self):
        s = self.c.occupancy_sweep("h200-sxm", "registers_per_thread", block_size=256, from_=32, to=128, step=32)
        self.assertEqual(s.column("value"), [32, 64, 96, 128])
        self.assertEqual(s.column("active_blocks_per_sm")[:2], [8, 4])

    def test_to_dataframe_imports_pandas_lazily(self):
        s = self.c.occupancy_sweep("h200-sxm", "registers_per_thread", block_size=256, from_=32, to=64, step=32)
        seen = {}

        class Index:
            name = None

        class FakeFrame:
            def __init__(self, records):
                self.records = records
                self.columns = list(records[0])
                self.index = Index()

            @classmethod
            def from_records(cls, records):
                seen["records"] = records
                return cls(records)

            def set_index(self, column):
                seen["index"] = column
                return self

        fake = types.ModuleType("pandas")
        fake.DataFrame = FakeFrame
        saved = sys.modules.get("pandas")
        sys.modules["pandas"] = fake
        try:
            frame = s.to_dataframe()
        finally:
            if saved is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved
        self.assertEqual(seen["index"], "value")
        self.assertEqual(frame.index.name, "registers_per_thread")
        self.assertEqual([r["value"] for r in seen["records"]], [32, 64])

    def test_to_dataframe_with_real_pandas(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed")
        s = self.c.occupancy_sweep("h200-sxm", "block_size", registers_per_thread=64)
        frame = s.to_dataframe()
        self.assertEqual(frame.index.name, "block_size")
        self.assertAlmostEqual(float(frame.loc[256, "occupancy"]), 0.5)

    def test_to_dataframe_without_pandas(self):
        s = simt.SweepResult({"vary": "block_size", "points": [{"value": 32}]})
        saved = sys.modules.get("pandas")
        sys.modules["pandas"] = None  # makes `import pandas` fail
        try:
            with self.assertRaises(ImportError):
                s.to_dataframe()
        finally:
            if saved is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved

    def test_launch_suggest(self):
        a = self.c.launch_suggest("h200-sxm", registers_per_thread=32)
        self.assertEqual(a["occupancy"], 1.0)
        self.assertEqual(a["block_size"] % 32, 0)
        self.assertGreater(a["min_grid_size"], 0)


class Models(ClientTest):
    def test_gemm(self):
        a = self.route(lambda: self.c.gemm("h200-sxm", 8192, 8192, 8192, "bf16"))
        self.assertAlmostEqual(a["flops"], 2 * 8192 ** 3, delta=1e6)
        self.assertAlmostEqual(a["achieved_flops_per_s"], a["flops"] / a["time_s"], delta=a["flops"] / a["time_s"] * 1e-6)

    def test_collective(self):
        a = self.route(lambda: self.c.collective("h200-sxm", "all_reduce", 1 << 30, 8, link="nvlink"))
        self.assertGreater(a["time_s"], 0)
        self.assertAlmostEqual(a["algbw_bytes_per_s"], (1 << 30) / a["time_s"], delta=a["algbw_bytes_per_s"] * 1e-6)
        # NCCL tests: busbw = algbw * 2 (n-1) / n for all_reduce
        self.assertAlmostEqual(a["busbw_bytes_per_s"], a["algbw_bytes_per_s"] * 2 * 7 / 8,
                               delta=a["busbw_bytes_per_s"] * 1e-6)

    def test_transformer(self):
        a = self.route(lambda: self.c.transformer("h200-sxm", "llama3-8b", "decode", batch=32, kv_len=4096))
        self.assertIsInstance(a, simt.TransformerResult)
        names = [op["name"] for op in a.ops]
        self.assertEqual(names[:4], ["attn_norm", "qkv_proj", "rope", "attention"])
        rows = a.records()
        self.assertAlmostEqual(sum(r["time_s"] for r in rows), a["layer"]["time_s"], delta=a["layer"]["time_s"] * 1e-6)
        self.assertAlmostEqual(sum(r["share"] for r in rows), 1.0, places=6)
        # hand-worked: 2 x 32 layers x 8 kv heads x 128 x 4096 x 32 x 2 bytes
        self.assertEqual(a["memory"]["kv_cache_bytes"], 2 * 32 * 8 * 128 * 4096 * 32 * 2)
        models = self.route(lambda: self.c.models())
        self.assertIn("llama3-70b", [m["id"] for m in models["models"]])
        self.assertTrue(all(m["source"].startswith("https://huggingface.co/") for m in models["models"]))

    def test_roofline(self):
        a = self.route(lambda: self.c.roofline("h200-sxm", 1e12, 4e9, precision="fp16", tensor_cores=True))
        self.assertAlmostEqual(a["arithmetic_intensity"], 250.0, places=6)
        self.assertIn(a["bound"], ("compute", "dram", "l2", "shared"))

    def test_coalescing(self):
        a = self.route(lambda: self.c.coalescing("h200-sxm", 4, lane_stride_elements=1))
        self.assertEqual(a["sectors"], 4)
        self.assertAlmostEqual(a["efficiency"], 1.0)

    def test_banks(self):
        a = self.route(lambda: self.c.banks("h200-sxm", 4, lane_stride_elements=32))
        self.assertEqual(a["ways"], 32)
        b = self.c.banks("h200-sxm", 4, lane_stride_elements=32 + a["suggested_padding_elements"])
        self.assertEqual(b["ways"], 1)

    def test_constant(self):
        a = self.route(lambda: self.c.constant("h200-sxm", distinct_addresses=4))
        self.assertEqual(a["serialization"], 4)

    def test_latency_hiding(self):
        a = self.route(lambda: self.c.latency_hiding("h200-sxm", warps_per_sm=16, ilp=2, bytes_per_lane=16,
                                                     level="dram"))
        self.assertGreater(a["latency_cycles"], 0)
        self.assertLessEqual(a["fraction_of_peak"], 1.0)

    def test_divergence(self):
        a = self.route(lambda: self.c.divergence(paths=4, gpu="h200-sxm"))
        self.assertAlmostEqual(a["simt_efficiency"], 0.25)

    def test_kernel(self):
        a = self.route(lambda: self.c.kernel(
            "h200-sxm", {"grid": [256, 256], "block": [32, 8]},
            {"registers_per_thread": 26, "static_shared_bytes": 4224, "block_barriers": 1},
            {"accesses": [{"space": "global", "op": "load", "count": 4, "element_bytes": 4,
                           "lane_stride_elements": 1}]}))
        self.assertGreater(a["time_s"], 0)
        self.assertEqual(a["occupancy"]["gpu"], "h200-sxm")

    def test_compare(self):
        a = self.route(lambda: self.c.compare(["a100-sxm4-80gb", "h200-sxm"], "/v1/occupancy",
                                              {"block_size": 256, "registers_per_thread": 64}))
        self.assertEqual([r["gpu"] for r in a["results"]], ["a100-sxm4-80gb", "h200-sxm"])


class ModuleFunctions(unittest.TestCase):
    def test_module_level_functions_use_connect(self):
        simt.connect(daemon.url)
        self.assertEqual(simt.occupancy("h200-sxm", 256, 64)["occupancy"], 0.5)
        self.assertEqual(simt.healthz()["status"], "ok")
        import inspect
        self.assertNotIn("self", inspect.signature(simt.occupancy).parameters)
        self.assertIn("POST /v1/occupancy", simt.occupancy.__doc__)

    def test_every_endpoint_has_a_function(self):
        doc = simt.Client(daemon.url).openapi()
        for path, item in doc["paths"].items():
            for method, op in item.items():
                if path in ("/", "/metrics"):
                    continue
                name = {"listGpus": "gpus", "getGpu": "gpu", "occupancySweep": "occupancy_sweep",
                        "launchSuggest": "launch_suggest", "latencyHiding": "latency_hiding"}.get(
                    op["operationId"], op["operationId"])
                self.assertTrue(callable(getattr(simt, name, None)), "%s %s: no simt.%s" % (method, path, name))

    def test_unreachable(self):
        c = simt.Client("http://127.0.0.1:9", timeout=2)
        with self.assertRaises(simt.SimtConnectionError) as ctx:
            c.healthz()
        self.assertIsNone(ctx.exception.status)
        self.assertEqual(ctx.exception.code, "unreachable")


class TokenTest(unittest.TestCase):
    """Against a simtd started with --token-file."""
    TOKEN = "python-client-token-0123456789"

    @classmethod
    def setUpClass(cls):
        fd, cls.token_file = tempfile.mkstemp(prefix="simt-token-")
        with os.fdopen(fd, "w") as f:
            f.write(cls.TOKEN + "\n")
        cls.daemon = Daemon(None, "--token-file", cls.token_file).start()

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()
        os.unlink(cls.token_file)

    def setUp(self):
        self.saved = os.environ.pop("SIMT_TOKEN", None)

    def tearDown(self):
        os.environ.pop("SIMT_TOKEN", None)
        if self.saved is not None:
            os.environ["SIMT_TOKEN"] = self.saved

    def test_without_token_401(self):
        with self.assertRaises(simt.SimtError) as ctx:
            simt.Client(self.daemon.url, timeout=20).gpus()
        self.assertEqual(ctx.exception.status, 401)

    def test_token_argument(self):
        c = simt.Client(self.daemon.url, timeout=20, token=self.TOKEN)
        self.assertEqual(c.occupancy("h200-sxm", block_size=256, registers_per_thread=64)["occupancy"], 0.5)

    def test_token_from_environment(self):
        os.environ["SIMT_TOKEN"] = self.TOKEN
        c = simt.Client(self.daemon.url, timeout=20)
        self.assertIn("h200-sxm", [g["id"] for g in c.gpus()])

    def test_module_level_connect(self):
        simt.connect(self.daemon.url, timeout=20, token=self.TOKEN)
        try:
            self.assertIn("h200-sxm", [g["id"] for g in simt.gpus()])
        finally:
            simt.connect(daemon.url)

    def test_wrong_token(self):
        with self.assertRaises(simt.SimtError) as ctx:
            simt.Client(self.daemon.url, timeout=20, token="wrong-token-0123456789").gpus()
        self.assertEqual(ctx.exception.status, 401)


if __name__ == "__main__":
    unittest.main(verbosity=2)
