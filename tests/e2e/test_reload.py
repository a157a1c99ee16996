"""SIGHUP reloads the database from the same directory: an edited figure is
served after the reload; a broken file (or a missing directory) leaves the
old database serving and the log names file:line:column; reloads under load
lose no request and every answer comes from one whole database."""
import os
import re
import signal
import threading
import time
import unittest

import simtd_harness as h


def sm_count(d, gpu):
    st, rec = d.get_json("/v1/gpus/" + gpu)
    assert st == 200, rec
    return rec["sm"]["sm_count"]


def hup_and_wait(d, pattern):
    mark = d.log_mark()
    d.signal(signal.SIGHUP)
    return d.wait_log(pattern, start=mark)


class Reload(unittest.TestCase):
    def setUp(self):
        self.d = h.Daemon()

    def tearDown(self):
        rc = self.d.stop()
        self.d.close()
        self.assertEqual(rc, 0)

    def test_edit_is_served_after_reload(self):
        # h100-sxm: h200-sxm's cluster layout must add up to its sm_count
        path = h.gpu_file(self.d.hwdb, "h100-sxm")
        before = sm_count(self.d, "h100-sxm")
        h.set_sm_count(path, before - 2)
        hits = h.metric(self.d.metrics(), "simtd_cache_lookups_total", result="hit")
        self.assertEqual(sm_count(self.d, "h100-sxm"), before)  # nothing changes until SIGHUP
        # ...and that answer came from the cache, which the reload must empty
        self.assertEqual(h.metric(self.d.metrics(), "simtd_cache_lookups_total", result="hit"), hits + 1)
        hup_and_wait(self.d, r"reloaded the hardware database")
        self.assertEqual(sm_count(self.d, "h100-sxm"), before - 2)
        st, lst = self.d.get_json("/v1/gpus")
        self.assertEqual([g["sm_count"] for g in lst["gpus"] if g["id"] == "h100-sxm"], [before - 2])
        m = self.d.metrics()
        self.assertEqual(h.metric(m, "simtd_hwdb_reloads_total", result="success"), 1)
        self.assertEqual(h.metric(m, "simtd_hwdb_reloads_total", result="failure"), 0)

    def test_broken_file_keeps_old_database(self):
        path = h.gpu_file(self.d.hwdb, "h100-sxm")
        before = sm_count(self.d, "h100-sxm")
        line, col = h.set_sm_count(path, "lots")
        m = hup_and_wait(self.d, r"reload failed: (.*?):(\d+):(\d+): ")
        self.assertEqual(m.group(1), path)
        self.assertEqual(int(m.group(2)), line)
        self.assertIn("sm_count", m.string)
        self.assertIn('"level":"error"', m.string)
        # still serving the old one, whole
        self.assertEqual(sm_count(self.d, "h100-sxm"), before)
        st, ans = self.d.post_json("/v1/occupancy", {"gpu": "h100-sxm", "block_size": 128,
                                                     "registers_per_thread": 32})
        self.assertEqual(st, 200, ans)
        mt = self.d.metrics()
        self.assertEqual(h.metric(mt, "simtd_hwdb_reloads_total", result="failure"), 1)
        # fixed: the next reload takes it
        h.set_sm_count(path, before + 1)
        hup_and_wait(self.d, r"reloaded the hardware database")
        self.assertEqual(sm_count(self.d, "h100-sxm"), before + 1)

    def test_missing_directory_keeps_old_database(self):
        gpus = os.path.join(self.d.hwdb, "gpus")
        os.rename(gpus, gpus + ".away")
        m = hup_and_wait(self.d, r"reload failed: (.*)")
        self.assertIn(self.d.hwdb, m.group(1))
        self.assertEqual(self.d.request("GET", "/v1/gpus/t4")[0], 200)
        os.rename(gpus + ".away", gpus)
        hup_and_wait(self.d, r"reloaded the hardware database")

    def test_unreadable_file_keeps_old_database(self):
        if os.geteuid() == 0:
            self.skipTest("running as root: file permissions do not stop reads")
        path = h.gpu_file(self.d.hwdb, "t4")
        os.chmod(path, 0)
        try:
            m = hup_and_wait(self.d, r"reload failed: (.*)")
            self.assertIn("t4.yaml", m.group(1))
            self.assertEqual(self.d.request("GET", "/v1/gpus/t4")[0], 200)
        finally:
            os.chmod(path, 0o644)

    def test_reload_under_load_is_atomic(self):
        path = h.gpu_file(self.d.hwdb, "h100-sxm")
        original = sm_count(self.d, "h100-sxm")
        values = {original, original - 10}
        grid = 1000000
        results, errors = [], []
        stop = threading.Event()

        def client():
            conn = self.d.connection()
            try:
                while not stop.is_set():
                    st, hdrs, data = self.d.request("POST", "/v1/occupancy",
                                                    body={"gpu": "h100-sxm", "block_size": 256,
                                                          "registers_per_thread": 32, "grid_size": grid},
                                                    conn=conn)
                    results.append((st, data))
            except Exception as e:  # any transport failure is a lost request
                errors.append(repr(e))
            finally:
                conn.close()

        threads = [threading.Thread(target=client) for _ in range(3)]
        for t in threads:
            t.start()
        for i in range(6):
            h.set_sm_count(path, original - 10 if i % 2 == 0 else original)
            hup_and_wait(self.d, r"reloaded the hardware database")
            time.sleep(0.05)
        stop.set()
        for t in threads:
            t.join(10)
        self.assertEqual(errors, [])
        self.assertGreater(len(results), 20)
        import json
        seen = set()
        for st, data in results:
            self.assertEqual(st, 200, data)
            ans = json.loads(data)
            sms = grid / (ans["active_blocks_per_sm"] * ans["waves"])
            nearest = min(values, key=lambda v: abs(v - sms))
            self.assertAlmostEqual(sms, nearest, delta=1e-3)
            seen.add(nearest)
        self.assertEqual(h.metric(self.d.metrics(), "simtd_hwdb_reloads_total", result="success"), 6)


if __name__ == "__main__":
    h.main()
