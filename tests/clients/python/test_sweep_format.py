"""test_sweep_format.py - the Python client's sweep with format="columns"
against the real simtd: the columns answer, rebuilt into points, equals the
points answer point for point, and records() (so to_dataframe()) gives the
same rows from either format."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "clients", "python"))

import simt  # noqa: E402
from daemon import Daemon  # noqa: E402

daemon = None


def setUpModule():
    global daemon
    daemon = Daemon().start()


def tearDownModule():
    daemon.stop()


class SweepFormatTest(unittest.TestCase):
    def setUp(self):
        self.c = simt.Client(daemon.url, timeout=20)

    def both(self, *args, **kwargs):
        points = self.c.occupancy_sweep(*args, **kwargs)
        columns = self.c.occupancy_sweep(*args, format="columns", **kwargs)
        self.assertIn("points", points)
        self.assertIn("columns", columns)
        self.assertNotIn("points", columns)
        return points, columns

    def test_columns_equal_points(self):
        cases = [(("h200-sxm", "block_size"), {"registers_per_thread": 64, "grid_size": 1000}),
                 (("t4", "dynamic_shared_bytes"), {"block_size": 256, "registers_per_thread": 32, "step": 4096}),
                 (("h200-sxm", "registers_per_thread"), {"block_size": 256, "from_": 192, "to": 256, "step": 32}),
                 (("mi300x", "block_size"), {"registers_per_thread": 64})]
        for args, kwargs in cases:
            with self.subTest(args=args, kwargs=kwargs):
                points, columns = self.both(*args, **kwargs)
                self.assertEqual(columns.points, points.points)
                self.assertEqual(columns.records(), points.records())
                self.assertEqual(columns.column("occupancy"), points.column("occupancy"))
                first = [p["limiters"][0] if p["limiters"] else None for p in points.points]
                self.assertEqual(columns["columns"]["limiter"], first)

    def test_unlaunchable_points_keep_their_reason(self):
        points, columns = self.both("h200-sxm", "registers_per_thread", block_size=256, from_=192, to=256,
                                    step=32)
        self.assertEqual([p["launchable"] for p in points.points], [True, True, False])
        self.assertEqual(columns["columns"]["reason"][:2], [None, None])
        self.assertEqual(columns["columns"]["reason"][2], points.points[2]["reason"])

    def test_bad_format(self):
        with self.assertRaises(simt.SimtError) as ctx:
            self.c.occupancy_sweep("h200-sxm", "block_size", registers_per_thread=64, format="rows")
        self.assertEqual(ctx.exception.status, 400)
        self.assertEqual(ctx.exception.code, "invalid_argument")


if __name__ == "__main__":
    unittest.main()
