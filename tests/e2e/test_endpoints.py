"""Happy paths over real HTTP: /healthz, /v1/gpus, /v1/gpus/{id},
/v1/occupancy, the sweep, launch/suggest, /metrics and the access log.

Occupancy answers are not copied from anywhere: for simple kernels (block a
multiple of the warp, registers a multiple of 8, no shared memory) the test
works the answer out from the GPU record that GET /v1/gpus/{id} returns,
with the programming guide's rules; everything else is checked for
structure and internal consistency (sweep points equal single answers,
suggest's choice is the best of the sweep)."""
import json
import math
import re
import unittest

import simtd_harness as h

REQUIRED_IDS = ["v100-sxm2-32gb", "t4", "a100-sxm4-80gb", "a10", "l4", "l40s", "rtx-4090", "h100-sxm",
                "h100-pcie", "h200-sxm", "b200", "rtx-5090", "mi300x"]

# (block_size, registers_per_thread): launchable on every NVIDIA GPU listed
SIMPLE_KERNELS = [(256, 64), (128, 32), (1024, 32), (64, 128), (512, 40), (96, 24)]


def derive_occupancy(rec, block, regs):
    """Active blocks per SM for a kernel without shared memory, from the
    record's limits: warps, blocks, and registers allocated per warp in
    units, spread over the register file's partitions."""
    lim = rec["limits"]
    warp = lim["warp_size"]
    warps_per_block = math.ceil(block / warp)
    by_warps = (lim["max_threads_per_sm"] // warp) // warps_per_block
    by_blocks = lim["max_blocks_per_sm"]
    unit = lim["register_allocation_unit"]
    regs_per_warp = math.ceil(regs * warp / unit) * unit
    partitions = lim.get("register_file_partitions", 1)
    warps_per_partition = (lim["registers_per_sm"] // partitions) // regs_per_warp
    by_regs = (warps_per_partition * partitions) // warps_per_block
    return {"warps": by_warps, "blocks": by_blocks, "registers": by_regs}


class Endpoints(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = h.Daemon()

    @classmethod
    def tearDownClass(cls):
        rc = cls.d.stop()
        cls.d.close()
        assert rc == 0, rc

    def test_healthz(self):
        st, hdrs, data = self.d.request("GET", "/healthz")
        self.assertEqual(st, 200)
        self.assertTrue(hdrs["content-type"].startswith("application/json"))
        body = json.loads(data)
        self.assertEqual(body["status"], "ok")
        st, gpus = self.d.get_json("/v1/gpus")
        self.assertEqual(body["gpus"], len(gpus["gpus"]))
        self.assertRegex(body["version"], r"^\d+\.\d+\.\d+")

    def test_gpus_list(self):
        st, body = self.d.get_json("/v1/gpus")
        self.assertEqual(st, 200)
        ids = [g["id"] for g in body["gpus"]]
        for gid in REQUIRED_IDS:
            self.assertIn(gid, ids)
        self.assertEqual(len(ids), len(set(ids)))
        for g in body["gpus"]:
            for key in ("id", "name", "vendor", "architecture", "compute_capability", "sm_count"):
                self.assertIn(key, g, g)
            self.assertIn(g["vendor"], ("nvidia", "amd"))
            self.assertGreater(g["sm_count"], 0)

    def test_gpu_record_matches_list(self):
        st, body = self.d.get_json("/v1/gpus")
        for g in body["gpus"]:
            with self.subTest(gpu=g["id"]):
                st, rec = self.d.get_json("/v1/gpus/" + g["id"])
                self.assertEqual(st, 200)
                self.assertEqual(rec["id"], g["id"])
                self.assertEqual(rec["sm"]["sm_count"], g["sm_count"])
                self.assertEqual(rec["vendor"], g["vendor"])
                self.assertIsInstance(rec["sources"], dict)
                self.assertTrue(rec["sources"], "no sources for %s" % g["id"])
                for group, fields in rec.items():
                    if isinstance(fields, dict) and group not in ("sources", "measured"):
                        for key in fields:
                            # units live in names: no string units anywhere
                            self.assertNotIsInstance(fields[key], str, (group, key))

    def nvidia_records(self):
        st, body = self.d.get_json("/v1/gpus")
        out = []
        for g in body["gpus"]:
            if g["vendor"] == "nvidia":
                st, rec = self.d.get_json("/v1/gpus/" + g["id"])
                out.append(rec)
        self.assertGreaterEqual(len(out), 11)
        return out

    def check_occupancy_consistency(self, req, ans, rec):
        warp = rec["limits"]["warp_size"]
        active = ans["active_blocks_per_sm"]
        wpb = math.ceil(req["block_size"] / warp)
        self.assertEqual(ans["active_warps_per_sm"], active * wpb)
        self.assertEqual(ans["max_warps_per_sm"], rec["limits"]["max_warps_per_sm"])
        self.assertAlmostEqual(ans["occupancy"], ans["active_warps_per_sm"] / ans["max_warps_per_sm"], places=9)
        # a limit that does not apply (no barrier limit before Hopper) is null
        limits = {k: v for k, v in ans["limits"].items() if v is not None}
        self.assertEqual(active, min(limits.values()))
        self.assertEqual(sorted(ans["limiters"]), sorted(k for k, v in limits.items() if v == active))
        self.assertIsInstance(ans["assumptions"], list)
        if "grid_size" in req:
            sms = rec["sm"]["sm_count"]
            self.assertAlmostEqual(ans["waves"], req["grid_size"] / (active * sms), places=6)

    def test_occupancy_derived(self):
        for rec in self.nvidia_records():
            for block, regs in SIMPLE_KERNELS:
                with self.subTest(gpu=rec["id"], block=block, regs=regs):
                    req = {"gpu": rec["id"], "block_size": block, "registers_per_thread": regs,
                           "grid_size": 10000}
                    st, ans = self.d.post_json("/v1/occupancy", req)
                    self.assertEqual(st, 200, ans)
                    self.assertEqual(ans["gpu"], rec["id"])
                    want = derive_occupancy(rec, block, regs)
                    for key, value in want.items():
                        self.assertEqual(ans["limits"][key], value, key)
                    # shared memory (1 KiB reserved per block at most) never binds here;
                    # null where the kernel uses none at all (no reservation before 8.0)
                    if ans["limits"]["shared_memory"] is not None:
                        self.assertGreaterEqual(ans["limits"]["shared_memory"], min(want.values()))
                    self.assertEqual(ans["active_blocks_per_sm"], min(want.values()))
                    self.check_occupancy_consistency(req, ans, rec)

    def test_occupancy_what_if(self):
        st, rec = self.d.get_json("/v1/gpus/h100-sxm")
        req = {"gpu": {"base": "h100-sxm", "sm_count": 100}, "block_size": 256, "registers_per_thread": 64,
               "grid_size": 5000}
        st, ans = self.d.post_json("/v1/occupancy", req)
        self.assertEqual(st, 200, ans)
        self.assertAlmostEqual(ans["waves"], 5000 / (ans["active_blocks_per_sm"] * 100), places=6)
        self.assertNotEqual(rec["sm"]["sm_count"], 100)

    def test_occupancy_amd(self):
        st, ans = self.d.post_json("/v1/occupancy", {"gpu": "mi300x", "block_size": 256, "registers_per_thread": 64})
        self.assertEqual(st, 200, ans)
        self.assertEqual(ans["wavefront_size"], 64)
        for key in ("active_blocks_per_sm", "occupancy", "limiters", "waves_per_simd", "waves_per_cu"):
            self.assertIn(key, ans)
        self.assertGreater(ans["active_blocks_per_sm"], 0)
        self.assertLessEqual(ans["occupancy"], 1.0)

    def test_sweep_equals_single_answers(self):
        base = {"gpu": "a100-sxm4-80gb", "registers_per_thread": 48, "static_shared_bytes": 2048,
                "dynamic_shared_bytes": 4096}
        st, sweep = self.d.post_json("/v1/occupancy/sweep", dict(base, vary="block_size", **{"from": 32, "to": 1024,
                                                                                              "step": 32}))
        self.assertEqual(st, 200, sweep)
        self.assertEqual(sweep["vary"], "block_size")
        values = [p["value"] for p in sweep["points"]]
        self.assertEqual(values, list(range(32, 1025, 32)))
        for p in sweep["points"][::5] + sweep["points"][-1:]:
            with self.subTest(block=p["value"]):
                st, one = self.d.post_json("/v1/occupancy", dict(base, block_size=p["value"]))
                if p["launchable"]:
                    self.assertEqual(st, 200, one)
                    for key in ("active_blocks_per_sm", "active_warps_per_sm", "occupancy"):
                        self.assertEqual(p[key], one[key], key)
                else:
                    self.assertEqual(st, 422, one)
                    self.assertEqual(p["active_blocks_per_sm"], 0)

    def test_sweep_keeps_unlaunchable_points(self):
        st, sweep = self.d.post_json("/v1/occupancy/sweep", {"gpu": "h200-sxm", "block_size": 256,
                                                             "vary": "registers_per_thread", "from": 200,
                                                             "to": 300, "step": 50})
        self.assertEqual(st, 200, sweep)
        st, rec = self.d.get_json("/v1/gpus/h200-sxm")
        max_regs = rec["limits"]["max_registers_per_thread"]
        for p in sweep["points"]:
            self.assertEqual(p["launchable"], p["value"] <= max_regs, p)
            if not p["launchable"]:
                self.assertEqual(p["active_blocks_per_sm"], 0)

    def test_suggest_is_best_of_sweep(self):
        for gpu, regs in (("h200-sxm", 64), ("t4", 40), ("l4", 128)):
            with self.subTest(gpu=gpu, regs=regs):
                st, sug = self.d.post_json("/v1/launch/suggest", {"gpu": gpu, "registers_per_thread": regs})
                self.assertEqual(st, 200, sug)
                st, rec = self.d.get_json("/v1/gpus/" + gpu)
                st, sweep = self.d.post_json("/v1/occupancy/sweep", {"gpu": gpu, "registers_per_thread": regs,
                                                                     "vary": "block_size", "from": 32,
                                                                     "to": rec["limits"]["max_threads_per_block"],
                                                                     "step": 32})
                self.assertEqual(st, 200, sweep)
                best = max(p["occupancy"] for p in sweep["points"])
                self.assertAlmostEqual(sug["occupancy"], best, places=9)
                st, one = self.d.post_json("/v1/occupancy", {"gpu": gpu, "block_size": sug["block_size"],
                                                             "registers_per_thread": regs})
                self.assertEqual(st, 200, one)
                self.assertAlmostEqual(one["occupancy"], sug["occupancy"], places=9)
                self.assertEqual(sug["min_grid_size"], one["active_blocks_per_sm"] * rec["sm"]["sm_count"])

    def test_keep_alive_many_requests_one_connection(self):
        conn = self.d.connection()
        for i in range(50):
            st, _, data = self.d.request("POST", "/v1/occupancy",
                                         body={"gpu": "l40s", "block_size": 32 * (1 + i % 32),
                                               "registers_per_thread": 32}, conn=conn)
            self.assertEqual(st, 200, data)
        conn.close()

    def test_metrics(self):
        before = self.d.metrics()
        for _ in range(3):
            self.assertEqual(self.d.request("GET", "/healthz")[0], 200)
        self.assertEqual(self.d.request("GET", "/v1/gpus/nope")[0], 404)
        self.assertEqual(self.d.request("GET", "/v1/gpus/t4")[0], 200)
        st, hdrs, text = self.d.request("GET", "/metrics")
        self.assertEqual(st, 200)
        self.assertTrue(hdrs["content-type"].startswith("text/plain"), hdrs)
        text = text.decode()
        for family, kind in (("simtd_requests_total", "counter"), ("simtd_request_duration_seconds", "histogram"),
                             ("simtd_hwdb_reloads_total", "counter"), ("simtd_connections", "gauge")):
            self.assertIn("# TYPE %s %s" % (family, kind), text)
        after = h.parse_metrics(text)

        def delta(name, **labels):
            return h.metric(after, name, **labels) - h.metric(before, name, **labels)

        self.assertEqual(delta("simtd_requests_total", route="/healthz", status="200"), 3)
        self.assertEqual(delta("simtd_requests_total", route="/v1/gpus/{id}", status="404"), 1)
        self.assertEqual(delta("simtd_requests_total", route="/v1/gpus/{id}", status="200"), 1)
        # the histogram agrees with the counters, route by route, and is cumulative
        routes = {dict(l)["route"] for (n, l) in after if n == "simtd_requests_total"}
        for route in routes:
            total = sum(v for (n, l), v in after.items() if n == "simtd_requests_total" and dict(l)["route"] == route)
            if route == "/metrics":
                continue  # this very scrape is counted after it renders
            self.assertEqual(h.metric(after, "simtd_request_duration_seconds_count", route=route), total, route)
            buckets = sorted(((float(dict(l)["le"]), v) for (n, l), v in after.items()
                              if n == "simtd_request_duration_seconds_bucket" and dict(l)["route"] == route))
            counts = [v for _, v in buckets]
            self.assertEqual(counts, sorted(counts), route)
            self.assertEqual(buckets[-1], (math.inf, total))
        self.assertGreaterEqual(h.metric(after, "simtd_connections"), 1)
        self.assertEqual(h.metric(after, "simtd_hwdb_reloads_total", result="failure"), 0)
        self.assertGreater(h.metric(after, "simtd_hwdb_gpus"), 0)

    def test_access_log(self):
        st, hdrs, data = self.d.request("GET", "/v1/gpus/t4?probe=access-log")
        self.assertEqual(st, 200)
        m = self.d.log_mark()
        st, hdrs, data2 = self.d.request("GET", "/v1/gpus/a10")
        self.d.wait_log(r'"path":"/v1/gpus/a10"', start=m)
        recs = [r for r in self.d.records() if r.get("event") == "access" and r.get("path") == "/v1/gpus/a10"]
        self.assertTrue(recs)
        r = recs[-1]
        self.assertEqual(r["method"], "GET")
        self.assertEqual(r["status"], 200)
        self.assertEqual(r["bytes"], len(data2))
        self.assertGreaterEqual(r["duration_s"], 0)
        self.assertLess(r["duration_s"], 5)
        self.assertRegex(r["ts"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

    def test_access_log_escapes_client_data(self):
        # control characters in the target are refused (400, issue #16), and still logged safely
        m = self.d.log_mark()
        self.d.request("GET", '/v1/"quoted"%0a%01\\x')
        match = self.d.wait_log(r'"event":"access".*"status":400', start=m)
        line = match.string
        rec = json.loads(line)  # valid JSON despite quotes, newline and control bytes in the path
        self.assertIn('"quoted"', rec["path"])


class AnswerCache(unittest.TestCase):
    BODY = {"gpu": "a100-sxm4-80gb", "block_size": 192, "registers_per_thread": 40, "grid_size": 777}

    def lookups(self, d):
        m = d.metrics()
        return (h.metric(m, "simtd_cache_lookups_total", result="hit"),
                h.metric(m, "simtd_cache_lookups_total", result="miss"))

    def test_repeat_is_a_hit_with_the_same_bytes(self):
        with h.Daemon() as d:
            hits0, misses0 = self.lookups(d)
            first = d.request("POST", "/v1/occupancy", body=self.BODY)
            second = d.request("POST", "/v1/occupancy", body=self.BODY)
            self.assertEqual(first[0], 200)
            self.assertEqual(first[0], second[0])
            self.assertEqual(first[2], second[2])
            self.assertEqual(first[1]["content-type"], second[1]["content-type"])
            hits1, misses1 = self.lookups(d)
            self.assertEqual((hits1 - hits0, misses1 - misses0), (1, 1))
            # the cached 405 keeps its Allow header
            for _ in range(2):
                st, hdrs, _ = d.request("GET", "/v1/occupancy")
                self.assertEqual((st, hdrs.get("allow")), (405, "POST"))
            # a different content type is a different request
            st, _, _ = d.request("POST", "/v1/occupancy", body=self.BODY, headers={"Content-Type": "text/plain"})
            self.assertEqual(st, 415)
            self.assertEqual(d.stop(), 0)

    def test_off(self):
        with h.Daemon("--cache-entries", "0") as d:
            a = d.request("POST", "/v1/occupancy", body=self.BODY)
            b = d.request("POST", "/v1/occupancy", body=self.BODY)
            self.assertEqual(a[2], b[2])
            self.assertEqual(self.lookups(d), (0, 0))
            self.assertEqual(d.stop(), 0)

    def test_tiny_cache_evicts_and_stays_right(self):
        with h.Daemon("--cache-entries", "1") as d:
            answers = {}
            for round_ in range(3):
                for block in (64, 128, 256, 512, 1024, 96):
                    body = dict(self.BODY, block_size=block)
                    st, _, data = d.request("POST", "/v1/occupancy", body=body)
                    self.assertEqual(st, 200)
                    self.assertEqual(json.loads(data)["gpu"], "a100-sxm4-80gb")
                    if round_ == 0:
                        answers[block] = data
                    else:
                        self.assertEqual(answers[block], data, block)
            self.assertEqual(d.stop(), 0)


class Quiet(unittest.TestCase):
    def test_access_log_off_and_log_level(self):
        with h.Daemon("--access-log", "off", "--log-level", "warn") as d:
            for _ in range(5):
                self.assertEqual(d.request("GET", "/healthz")[0], 200)
            self.assertEqual(d.stop(), 0)
            d.reader.join(5)
            recs = d.records()
            self.assertFalse([r for r in recs if r.get("event") == "access"], recs)
            self.assertFalse([r for r in recs if r.get("level") in ("info", "debug")], recs)

    def test_debug_level_logs_more(self):
        with h.Daemon("--log-level", "debug") as d:
            self.assertEqual(d.request("GET", "/healthz")[0], 200)
            self.assertEqual(d.stop(), 0)
            d.reader.join(5)
            levels = {r.get("level") for r in d.records()}
            self.assertIn("info", levels)


if __name__ == "__main__":
    h.main()
