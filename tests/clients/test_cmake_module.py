"""test_cmake_module.py - builds tests/clients/cmake_project, a tiny CUDA
project using clients/cmake/SimtOccupancy.cmake: the light kernel's target
passes, the WARN_ONLY target warns naming the heavy kernel and still builds,
the gated target fails naming it (and fails again on the next build, since
the check removes the target file). Exits 77 (skipped) without nvcc.
Environment: SIMT_CLI (the simt binary), SIMT_TEST_WORK (a build folder)."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SIMT = os.environ.get("SIMT_CLI", "")
NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK)
                                else None)
WORK = os.environ.get("SIMT_TEST_WORK") or tempfile.mkdtemp(prefix="simt-cmake-")
BUILD = os.path.join(WORK, "build")


def run(*args):
    r = subprocess.run(list(args), capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout + r.stderr


def setUpModule():
    shutil.rmtree(BUILD, ignore_errors=True)
    rc, out = run("cmake", "-S", os.path.join(HERE, "cmake_project"), "-B", BUILD,
                  "-DSIMT_CMAKE_DIR=" + os.path.join(REPO, "clients", "cmake"),
                  "-DCMAKE_CUDA_COMPILER=" + NVCC, "-DCMAKE_CUDA_ARCHITECTURES=90",
                  "-DSIMT_EXECUTABLE=" + SIMT)
    if rc != 0:
        raise RuntimeError("configuring the CUDA project failed:\n" + out)


def build(target):
    return run("cmake", "--build", BUILD, "--target", target)


class Module(unittest.TestCase):
    def test_light_passes(self):
        rc, out = build("light")
        self.assertEqual(rc, 0, out)
        self.assertIn("_Z5scalePffi", out)          # simt's table ran
        self.assertIn("ptxas info", out)            # compiler output still shown
        self.assertTrue(os.path.exists(os.path.join(BUILD, "liblight.a")))

    def test_warn_only_builds(self):
        rc, out = build("heavy_warn")
        self.assertEqual(rc, 0, out)
        self.assertIn("warning: kernel _Z10accumulatePfi", out)
        self.assertIn("below the minimum 0.500", out)
        self.assertTrue(os.path.exists(os.path.join(BUILD, "libheavy_warn.a")))

    def test_gate_fails_and_stays_failed(self):
        rc, out = build("heavy_gate")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("error: kernel _Z10accumulatePfi", out)
        self.assertNotIn("error: kernel _Z5scalePffi", out)
        self.assertIn("heavy_gate fails its occupancy check", out)
        self.assertFalse(os.path.exists(os.path.join(BUILD, "libheavy_gate.a")))
        rc, out = build("heavy_gate")              # nothing recompiles, yet it checks again
        self.assertNotEqual(rc, 0, out)
        self.assertIn("_Z10accumulatePfi", out)


if __name__ == "__main__":
    if NVCC is None:
        print("SKIPPED: nvcc not found (no CUDA toolkit on this machine)")
        sys.exit(77)
    if not os.access(SIMT, os.X_OK):
        print("set SIMT_CLI to the simt binary")
        sys.exit(2)
    unittest.main(verbosity=2)
