"""test_ptxas.py - `simt ptxas` on the committed samples (always runs): real
`nvcc -Xptxas -v` output of cuda/kernels.cu for sm_80 and sm_90, and
cuobjdump --dump-resource-usage output. Each kernel's occupancy must equal
what POST /v1/occupancy answers the real daemon for the same attributes;
--min-occupancy must gate, naming the kernel; --warn-only must not."""
import json
import os
import subprocess
import sys
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from daemon import Daemon  # noqa: E402

SIMT = os.environ.get("SIMT_CLI", "")
SAMPLE = os.path.join(HERE, "data", "ptxas_sm80_sm90.txt")
CUOBJDUMP = os.path.join(HERE, "data", "cuobjdump_resource_usage.txt")
daemon = None

# The sample's kernels, read by eye from data/ptxas_sm80_sm90.txt:
# name -> arch -> (registers, static shared bytes, barriers)
KERNELS = {
    "_Z5heavyPfi": {"sm_80": (110, 0, 0), "sm_90": (112, 0, 0)},
    "_Z8big_smemPfPKf": {"sm_80": (10, 49152, 1), "sm_90": (13, 49152, 1)},
    "_Z5tiledPfPKfi": {"sm_80": (12, 4224, 1), "sm_90": (14, 4224, 1)},
    "_Z5smallPf": {"sm_80": (8, 0, 0), "sm_90": (8, 0, 0)},
}


def setUpModule():
    global daemon
    if not os.access(SIMT, os.X_OK):
        raise RuntimeError("set SIMT_CLI to the simt binary")
    daemon = Daemon().start()


def tearDownModule():
    daemon.stop()


def simt(*args, stdin=None):
    return subprocess.run([SIMT, "--server", daemon.url] + list(args), input=stdin, capture_output=True,
                          text=True, timeout=60)


def api_occupancy(gpu, block, regs, smem, barriers):
    body = json.dumps({"gpu": gpu, "block_size": block, "registers_per_thread": regs,
                       "static_shared_bytes": smem, "block_barriers": barriers}).encode()
    req = urllib.request.Request(daemon.url + "/v1/occupancy", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


class Sample(unittest.TestCase):
    def report(self, *args, stdin=None):
        r = simt("--json", "ptxas", *args, stdin=stdin)
        return r, (json.loads(r.stdout) if r.stdout.strip() else None)

    def test_equals_api_occupancy(self):
        # (gpu, arch the GPU runs, block size)
        for gpu, arch, block in [("h200-sxm", "sm_90", 256), ("h100-sxm", "sm_90", 128),
                                 ("a100-sxm4-80gb", "sm_80", 256), ("a10", "sm_80", 512),
                                 ("h200-sxm", "sm_90", 1024)]:
            with self.subTest(gpu=gpu, block=block):
                r, doc = self.report("--gpu", gpu, "--block-size", str(block), SAMPLE)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(sorted(k["kernel"] for k in doc["kernels"]), sorted(KERNELS))
                for k in doc["kernels"]:
                    self.assertEqual(k["arch"], arch)
                    regs, smem, barriers = KERNELS[k["kernel"]][arch]
                    self.assertEqual((k["registers_per_thread"], k["static_shared_bytes"], k["block_barriers"]),
                                     (regs, smem, barriers))
                    status, ans = api_occupancy(gpu, block, regs, smem, barriers)
                    if status == 200:
                        self.assertTrue(k["launchable"])
                        self.assertEqual(k["occupancy"], ans["occupancy"])
                        self.assertEqual(k["active_blocks_per_sm"], ans["active_blocks_per_sm"])
                        self.assertEqual(k["limiter"], ",".join(ans["limiters"]))
                    else:
                        self.assertEqual(status, 422)
                        self.assertFalse(k["launchable"])
                        self.assertEqual(k["occupancy"], 0)

    def test_known_values_h200(self):
        r, doc = self.report("--gpu", "h200-sxm", "--block-size", "256", SAMPLE)
        got = {k["kernel"]: (k["occupancy"], k["limiter"]) for k in doc["kernels"]}
        # 112 registers x 256 threads: 2 blocks of 8 warps in 64 slots
        self.assertEqual(got["_Z5heavyPfi"], (0.25, "registers"))
        self.assertEqual(got["_Z5smallPf"][0], 1.0)

    def test_gate_fails_naming_kernel(self):
        r = simt("ptxas", "--gpu", "h200-sxm", "--block-size", "256", "--min-occupancy", "0.5", SAMPLE)
        self.assertEqual(r.returncode, 1)
        self.assertIn("_Z5heavyPfi", r.stderr)
        self.assertIn("below the minimum", r.stderr)
        self.assertNotIn("_Z5smallPf", r.stderr)
        # the table still lists every kernel, demangled (c++filt)
        for name in ("heavy(float*, int)", "small(float*)", "tiled(float*, float const*, int)",
                     "big_smem(float*, float const*)"):
            self.assertIn(name, r.stdout)
        self.assertIn("kernel heavy(float*, int) (sm_90, _Z5heavyPfi)", r.stderr)

    def test_gate_passes(self):
        r = simt("ptxas", "--gpu", "h200-sxm", "--block-size", "256", "--min-occupancy", "0.25", SAMPLE)
        self.assertEqual(r.returncode, 0, r.stderr)
        r, doc = self.report("--gpu", "h200-sxm", "--block-size", "256", "--min-occupancy", "0.25", SAMPLE)
        self.assertTrue(doc["passed"])

    def test_warn_only(self):
        r = simt("ptxas", "--gpu", "h200-sxm", "--block-size", "256", "--min-occupancy", "0.5", "--warn-only",
                 SAMPLE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("warning", r.stderr)
        self.assertIn("_Z5heavyPfi", r.stderr)

    def test_unlaunchable_fails_gate(self):
        # 48 KiB static + 2048 threads: the block itself is impossible
        r = simt("ptxas", "--gpu", "h200-sxm", "--block-size", "2048", "--min-occupancy", "0.1", SAMPLE)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot launch", r.stderr)

    def test_arch_flag(self):
        r, doc = self.report("--gpu", "h200-sxm", "--block-size", "256", "--arch", "sm_80", SAMPLE)
        self.assertEqual(r.returncode, 0, r.stderr)
        regs = {k["kernel"]: k["registers_per_thread"] for k in doc["kernels"]}
        self.assertEqual(regs["_Z5heavyPfi"], 110)
        r, _ = self.report("--gpu", "h200-sxm", "--block-size", "256", "--arch", "sm_75", SAMPLE)
        self.assertEqual(r.returncode, 2)
        self.assertIn("sm_75", r.stderr)

    def test_stdin_and_offline(self):
        with open(SAMPLE) as f:
            text = f.read()
        online, a = self.report("--gpu", "h200-sxm", "--block-size", "256", stdin=text)
        off = subprocess.run([SIMT, "--offline", "--json", "ptxas", "--gpu", "h200-sxm", "--block-size", "256",
                              "-"], input=text, capture_output=True, text=True, timeout=60)
        self.assertEqual(online.returncode, 0, online.stderr)
        self.assertEqual(a, json.loads(off.stdout))

    def test_cuobjdump(self):
        r, doc = self.report("--gpu", "h200-sxm", "--block-size", "256", CUOBJDUMP)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = {k["kernel"]: k for k in doc["kernels"]}
        self.assertEqual(set(got), {"_Z5heavyPfi", "_Z6helperf", "_Z5tiledPfPKfi"})  # the sm_90 code
        status, ans = api_occupancy("h200-sxm", 256, 112, 0, 1)
        self.assertEqual(got["_Z5heavyPfi"]["occupancy"], ans["occupancy"])

    def test_no_kernels(self):
        r = simt("ptxas", "--gpu", "h200-sxm", "--block-size", "256", "-", stdin="nothing here\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no kernel resource lines", r.stderr)

    def test_bad_flags(self):
        for args in (["--block-size", "256", SAMPLE], ["--gpu", "h200-sxm", SAMPLE],
                     ["--gpu", "h200-sxm", "--block-size", "256", "--min-occupancy", "1.5", SAMPLE],
                     ["--gpu", "h200-sxm", "--block-size", "256", "--warn-only", SAMPLE]):
            with self.subTest(args=args):
                self.assertEqual(simt("ptxas", *args).returncode, 2)
        r = simt("ptxas", "--gpu", "no-such-gpu", "--block-size", "256", SAMPLE)
        self.assertEqual(r.returncode, 1)
        self.assertIn("unknown_gpu", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
