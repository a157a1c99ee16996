"""test_cmake_module.py - simt_check_occupancy in an outside project
(tests/clients/cmake_project, copied to a scratch folder so its files can
be replaced), reached two ways: the module from the source tree, and
find_package(simtd CONFIG REQUIRED) from a prefix made by `cmake --install`
of this build. Each way runs in C (the .c files carry the ptxas lines nvcc
printed for their .cu twins; fake-ptxas.sh replays them, so this needs no
CUDA toolkit) and, where nvcc exists, in CUDA with the real compiler.

Checked: a passing target builds quietly (no ptxas lines, no table); the
WARN_ONLY target warns with the demangled kernel name and builds; the gated
target fails naming the heavy kernel, and again on the next build; after its
heavy source is dropped from the target (its report still on disk) it passes,
and after heavy's file is replaced by a light kernel too; two checks on one
target both run (one with a per-kernel block size); MAX_SPILL_BYTES fails a
spilling kernel whose occupancy passes; `clean` removes the reports.
Environment: SIMT_CLI (the simt binary), SIMT_BUILD_DIR (this build, for
the install), SIMT_TEST_WORK (a scratch folder)."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SIMT = os.environ.get("SIMT_CLI", "")
BUILD_DIR = os.environ.get("SIMT_BUILD_DIR", "")
NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK)
                                else None)
WORK = os.environ.get("SIMT_TEST_WORK") or tempfile.mkdtemp(prefix="simt-cmake-")
PREFIX = os.path.join(WORK, "prefix")


def run(*args, cwd=None):
    env = dict(os.environ)
    env.pop("MAKEFLAGS", None)
    r = subprocess.run(list(args), capture_output=True, text=True, timeout=600, cwd=cwd, env=env)
    return r.returncode, r.stdout + r.stderr


def setUpModule():
    shutil.rmtree(PREFIX, ignore_errors=True)
    rc, out = run("cmake", "--install", BUILD_DIR, "--prefix", PREFIX)
    if rc != 0:
        raise RuntimeError("cmake --install failed:\n" + out)


class Scenario:
    LANG = "C"
    WAY = "tree"

    @classmethod
    def setUpClass(cls):
        cls.root = os.path.join(WORK, "%s-%s" % (cls.LANG, cls.WAY))
        shutil.rmtree(cls.root, ignore_errors=True)
        cls.src = os.path.join(cls.root, "src")
        cls.build_dir = os.path.join(cls.root, "build")
        shutil.copytree(os.path.join(HERE, "cmake_project"), cls.src)
        cls.ext = "cu" if cls.LANG == "CUDA" else "c"
        cls.configure()

    @classmethod
    def configure(cls, *extra):
        args = ["cmake", "-S", cls.src, "-B", cls.build_dir, "-DSIMT_TEST_LANGUAGE=" + cls.LANG]
        if cls.LANG == "CUDA":
            args += ["-DCMAKE_CUDA_COMPILER=" + NVCC, "-DCMAKE_CUDA_ARCHITECTURES=90"]
        if cls.WAY == "tree":
            args += ["-DSIMT_CMAKE_DIR=" + os.path.join(REPO, "clients", "cmake"), "-DSIMT_EXECUTABLE=" + SIMT]
        else:
            args += ["-DCMAKE_PREFIX_PATH=" + PREFIX]
        rc, out = run(*(args + list(extra)))
        if rc != 0:
            raise RuntimeError("configuring the project failed:\n" + out)
        return out

    def build(self, target):
        return run("cmake", "--build", self.build_dir, "--target", target)

    def reports(self, target):
        d = os.path.join(self.build_dir, "simt-ptxas", target)
        return sorted(f for f in os.listdir(d) if f.endswith(".ptxas")) if os.path.isdir(d) else []

    def test_1_light_passes_quietly(self):
        rc, out = self.build("light")
        self.assertEqual(rc, 0, out)
        self.assertNotIn("ptxas info", out)            # quiet: no compiler report ...
        self.assertNotIn("scale(float*, float, int)", out)  # ... and no table
        self.assertEqual(self.reports("light"), ["light.%s.o.ptxas" % self.ext])

    def test_2_warn_only_builds(self):
        rc, out = self.build("heavy_warn")
        self.assertEqual(rc, 0, out)
        self.assertIn("warning: kernel accumulate(float*, int) (sm_90, _Z10accumulatePfi)", out)
        self.assertIn("below the minimum 0.500", out)

    def test_3_gate_follows_the_sources(self):
        rc, out = self.build("gated")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("error: kernel accumulate(float*, int)", out)
        self.assertNotIn("error: kernel scale", out)
        self.assertIn("gated fails its occupancy check", out)
        self.assertIn("accumulate(float*, int)", out)   # the table shows on failure
        rc, out = self.build("gated")                  # nothing recompiles, yet it checks again
        self.assertNotEqual(rc, 0, out)
        self.assertIn("_Z10accumulatePfi", out)
        heavy_report = "heavy.%s.o.ptxas" % self.ext
        self.assertIn(heavy_report, self.reports("gated"))

        # the heavy source leaves the target: its report stays on disk but is not read
        self.configure("-DGATED_SOURCES=light." + self.ext)
        rc, out = self.build("gated")
        self.assertEqual(rc, 0, out)
        self.assertNotIn("accumulate", out)
        self.assertIn(heavy_report, self.reports("gated"))

        # back to both, then heavy's file is replaced by a light kernel
        self.configure("-DGATED_SOURCES=light.%s;heavy.%s" % (self.ext, self.ext))
        rc, out = self.build("gated")
        self.assertNotEqual(rc, 0, out)
        heavy_path = os.path.join(self.src, "heavy." + self.ext)
        with open(os.path.join(self.src, "light." + self.ext)) as f:
            light = f.read()
        with open(heavy_path) as f:
            heavy = f.read()
        try:
            with open(heavy_path, "w") as f:
                f.write(light.replace("light_placeholder", "heavy_placeholder").replace("scale", "scale2"))
            rc, out = self.build("gated")
            self.assertEqual(rc, 0, out)
        finally:
            with open(heavy_path, "w") as f:
                f.write(heavy)

        # clean removes the reports
        rc, out = self.build("clean")
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.reports("gated"), [])
        self.assertFalse(os.path.exists(os.path.join(self.build_dir, "simt-ptxas", "gated")))

    def test_4_two_checks_on_one_target(self):
        rc, out = self.build("two_gpus")
        self.assertEqual(rc, 0, out)
        self.assertIn("on h200-sxm at block size 256", out)
        self.assertIn("on a100-sxm4-80gb at block size 256", out)
        self.assertNotIn("No such file", out)
        rows = [line.split() for line in out.splitlines() if line.startswith("accumulate(float*, int)")]
        self.assertEqual(len(rows), 2, out)             # one table per check
        blocks = sorted(row[3] for row in rows)         # name takes 2 words, then arch, block_size
        self.assertEqual(blocks, ["128", "256"], out)   # KERNEL_BLOCK_SIZES on the H200 check only

    def test_5_spills_fail(self):
        rc, out = self.build("spilling")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("spills 5208 bytes (1596 stored, 3612 loaded), more than the maximum 0", out)
        self.assertNotIn("below the minimum", out)      # occupancy (32 registers) passes


class CTree(Scenario, unittest.TestCase):
    LANG, WAY = "C", "tree"


class CPackage(Scenario, unittest.TestCase):
    LANG, WAY = "C", "package"

    def test_0_found_in_prefix(self):
        out = self.configure()
        self.assertIn("simtd 0.1", out)
        self.assertIn(os.path.join(PREFIX, "share", "simtd", "cmake"), out)


@unittest.skipIf(NVCC is None, "nvcc not found")
class CudaTree(Scenario, unittest.TestCase):
    LANG, WAY = "CUDA", "tree"


@unittest.skipIf(NVCC is None, "nvcc not found")
class CudaPackage(Scenario, unittest.TestCase):
    """nvcc through the installed package: passing and failing only (the
    rest is the same module, checked above; this keeps the test short)."""
    LANG, WAY = "CUDA", "package"
    test_2_warn_only_builds = test_4_two_checks_on_one_target = test_5_spills_fail = None


if __name__ == "__main__":
    if not os.access(SIMT, os.X_OK) or not os.path.isdir(BUILD_DIR):
        print("set SIMT_CLI to the simt binary and SIMT_BUILD_DIR to its build folder")
        sys.exit(2)
    unittest.main(verbosity=2)
