#!/usr/bin/env python3
"""test_check_includes.py - shows that the include check fails on a crossing:
copies the product folders' C files to a temporary tree, checks the clean copy
passes, then plants one crossing at a time (jansson in model/, an api header
in hwdb/, microhttpd in api/, a server header in api/, yaml in model/) and
checks each fails naming the file and line."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK = os.path.join(HERE, "check_includes.py")
FOLDERS = ["model", "hwdb", "api", "server", "clients/cli"]


def run(root):
    p = subprocess.run([sys.executable, CHECK, root], capture_output=True, text=True)
    return p.returncode, p.stdout


class IncludeCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="simt-house-")
        for folder in FOLDERS:
            src, dst = os.path.join(ROOT, folder), os.path.join(self.tmp, folder)
            os.makedirs(dst)
            for name in os.listdir(src):
                if name.endswith((".c", ".h")):
                    shutil.copy(os.path.join(src, name), dst)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def plant(self, rel, line):
        path = os.path.join(self.tmp, rel)
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
        lines.insert(1, line + "\n")
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(lines)
        return f"{rel}:2:"

    def test_tree_passes(self):
        rc, out = run(self.tmp)
        self.assertEqual(rc, 0, out)

    def test_planted_crossings_fail(self):
        cases = [("model/gemm.c", "#include <jansson.h>"),
                 ("model/figures.c", "#include <yaml.h>"),
                 ("hwdb/hwdb.h", '#include "api.h"'),
                 ("api/api.c", "#include <microhttpd.h>"),
                 ("api/api.c", '#include "server.h"'),
                 ("model/gpu.h", '#include "hwdb.h"')]
        for rel, line in cases:
            with self.subTest(rel=rel, line=line):
                self.tearDown()
                self.setUp()
                where = self.plant(rel, line)
                rc, out = run(self.tmp)
                self.assertEqual(rc, 1, out)
                self.assertIn(where, out)
                self.assertIn("may not include", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
