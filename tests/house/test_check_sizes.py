#!/usr/bin/env python3
"""test_check_sizes.py - shows that the size check fails: a copy of the
product folders passes; a planted 121-line function and a 1,001-line file
each fail, named."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK = os.path.join(HERE, "check_sizes.py")
FOLDERS = ["model", "hwdb", "api", "server", "clients/cli"]


class SizeCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="simt-sizes-")
        for folder in FOLDERS:
            os.makedirs(os.path.join(self.tmp, folder))
            for name in os.listdir(os.path.join(ROOT, folder)):
                if name.endswith((".c", ".h")):
                    shutil.copy(os.path.join(ROOT, folder, name), os.path.join(self.tmp, folder))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_check(self):
        p = subprocess.run([sys.executable, CHECK, self.tmp], capture_output=True, text=True)
        return p.returncode, p.stdout

    def test_tree_passes(self):
        rc, out = self.run_check()
        self.assertEqual(rc, 0, out)

    def test_long_function_fails(self):
        body = "".join(f"    x += {i};\n" for i in range(119))
        with open(os.path.join(self.tmp, "model", "planted.c"), "w") as f:
            f.write("static int planted_long(int x)\n{\n" + body + "}\n")
        rc, out = self.run_check()
        self.assertEqual(rc, 1, out)
        self.assertIn("model/planted.c:2: planted_long: 121 lines", out)

    def test_long_file_fails(self):
        with open(os.path.join(self.tmp, "api", "planted.c"), "w") as f:
            f.write("/* filler */\n" * 1001)
        rc, out = self.run_check()
        self.assertEqual(rc, 1, out)
        self.assertIn("api/planted.c: 1001 lines", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
