"""test_cli.py - the `simt` command line against the real daemon (HTTP) and
in-process (--offline): the same JSON either way, flags named after request
fields, per-subcommand --help, the pass-through, exit codes. Binaries from
$SIMTD and $SIMT_CLI (ctest sets both)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from daemon import Daemon  # noqa: E402

SIMT = os.environ.get("SIMT_CLI", "")
daemon = None


def setUpModule():
    global daemon
    if not os.access(SIMT, os.X_OK):
        raise RuntimeError("set SIMT_CLI to the simt binary")
    daemon = Daemon().start()


def tearDownModule():
    daemon.stop()


def simt(*args, stdin=None):
    return subprocess.run([SIMT] + list(args), input=stdin, capture_output=True, text=True, timeout=60)


# (subcommand and flags) whose --json answers must be equal over HTTP and offline
SAME_ANSWER = [
    ["gpus"],
    ["gpu", "h200-sxm"],
    ["health"],
    ["occupancy", "--gpu", "h200-sxm", "--block-size", "256", "--registers-per-thread", "64", "--grid-size", "1000"],
    ["occupancy", "--gpu", "a100-sxm4-80gb", "--block-size=128", "--registers-per-thread=40",
     "--static-shared-bytes", "20000", "--carveout-percent", "50"],
    ["occupancy", "--gpu", "mi300x", "--block-size", "256", "--registers-per-thread", "64"],
    ["occupancy", "--gpu", '{"base": "h100-sxm", "sm_count": 114}', "--block-size", "256",
     "--registers-per-thread", "64", "--grid-size", "500"],
    ["occupancy", "--gpu", "h200-sxm", "--block-size", "128", "--registers-per-thread", "32",
     "--cluster-size", "[4,4,1]", "--non-portable-cluster-size"],
    ["sweep", "--gpu", "h200-sxm", "--registers-per-thread", "64", "--vary", "block_size"],
    ["sweep", "--gpu", "h200-sxm", "--registers-per-thread", "64", "--vary", "block_size", "--cluster-size", "2"],
    ["sweep", "--gpu", "t4", "--block-size", "256", "--vary", "dynamic_shared_bytes", "--step", "4096"],
    ["suggest", "--gpu", "l4", "--registers-per-thread", "48", "--dynamic-shared-bytes-per-thread", "16"],
    ["gemm", "--gpu", "h200-sxm", "--m", "8192", "--n", "8192", "--k", "8192", "--dtype", "bf16"],
    ["collective", "--gpu", "h200-sxm", "--op", "all_reduce", "--bytes", "1073741824", "--gpus", "8",
     "--link", "nvlink"],
    ["roofline", "--gpu", "h200-sxm", "--flops", "1e12", "--precision", "fp16", "--tensor-cores", "--bytes", "4e9"],
    ["banks", "--gpu", "h200-sxm", "--element-bytes", "4", "--lane-stride-elements", "32"],
    ["coalescing", "--gpu", "h200-sxm", "--element-bytes", "4", "--lane-stride-elements", "2"],
    ["divergence", "--paths", "4"],
    ["compare", "--gpus", "a100-sxm4-80gb,h200-sxm", "--question", "/v1/occupancy", "--question-body",
     '{"block_size": 256, "registers_per_thread": 64}'],
    ["latency", "--gpu", "h200-sxm", "--warps-per-sm", "16", "--ilp", "2", "--bytes-per-lane", "16", "--level", "dram"],
    ["constant", "--gpu", "h200-sxm", "--distinct-addresses", "4"],
    # errors: the same error body and exit status 1
    ["occupancy", "--gpu", "h200-sxm", "--block-size", "2048", "--registers-per-thread", "64"],
    ["occupancy", "--gpu", "nope", "--block-size", "256", "--registers-per-thread", "64"],
    ["occupancy", "--gpu", "h200-sxm", "--block-size", "256"],
    ["occupancy", "--gpu", "h100-sxm", "--block-size", "256", "--registers-per-thread", "64", "--cluster-size", "2"],
]


class SameAnswers(unittest.TestCase):
    def test_http_equals_offline(self):
        for args in SAME_ANSWER:
            with self.subTest(args=" ".join(args)):
                online = simt("--server", daemon.url, "--json", *args)
                offline = simt("--offline", "--json", *args)
                self.assertEqual(online.returncode, offline.returncode, online.stderr + offline.stderr)
                self.assertIn(online.returncode, (0, 1), online.stderr)
                a, b = json.loads(online.stdout), json.loads(offline.stdout)
                if online.returncode == 1 and a.get("error", {}).get("code") == "not_found":
                    continue  # route not in the daemon yet; offline agrees (same code)
                self.assertEqual(a, b)
                if online.returncode == 1:
                    self.assertEqual(set(a), {"error"})
                    self.assertIn(a["error"]["code"], online.stderr)

    def test_flags_equal_body(self):
        flags = simt("--server", daemon.url, "--json", "occupancy", "--gpu", "h200-sxm", "--block-size", "256",
                     "--registers-per-thread", "64")
        body = simt("--server", daemon.url, "--json", "post", "/v1/occupancy", "--body",
                    '{"gpu":"h200-sxm","block_size":256,"registers_per_thread":64}')
        merged = simt("--server", daemon.url, "--json", "occupancy", "--body", '{"gpu":"h200-sxm","block_size":1}',
                      "--block-size", "256", "--registers-per-thread", "64")
        self.assertEqual(flags.returncode, 0, flags.stderr)
        self.assertEqual(json.loads(flags.stdout), json.loads(body.stdout))
        self.assertEqual(json.loads(flags.stdout), json.loads(merged.stdout))
        self.assertEqual(json.loads(flags.stdout)["occupancy"], 0.5)

    def test_body_from_stdin_and_get(self):
        r = simt("--server", daemon.url, "--json", "post", "/v1/launch/suggest", "--body", "-",
                 stdin='{"gpu": "h200-sxm", "registers_per_thread": 32}')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["occupancy"], 1.0)
        g = simt("--server", daemon.url, "--json", "get", "/healthz")
        self.assertEqual(json.loads(g.stdout)["status"], "ok")

    def test_server_from_environment(self):
        env = dict(os.environ, SIMT_SERVER=daemon.url)
        r = subprocess.run([SIMT, "--json", "health"], capture_output=True, text=True, env=env, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)


class Human(unittest.TestCase):
    def test_occupancy_table(self):
        r = simt("--server", daemon.url, "occupancy", "--gpu", "h200-sxm", "--block-size", "256",
                 "--registers-per-thread", "64")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = dict(line.split(None, 1) for line in r.stdout.splitlines() if len(line.split()) > 1 and not line.startswith(" "))
        self.assertEqual(lines["occupancy"].strip(), "0.5")
        self.assertEqual(lines["limiters"].strip(), "registers")
        self.assertIn("assumptions:", r.stdout)

    def test_sweep_table(self):
        r = simt("--offline", "sweep", "--gpu", "h200-sxm", "--registers-per-thread", "64", "--vary", "block_size")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split() for line in r.stdout.splitlines()]
        header = next(row for row in rows if row and row[0] == "value")
        at = rows.index(header)
        body = rows[at + 1:at + 33]
        self.assertEqual([int(row[0]) for row in body], list(range(32, 1025, 32)))
        occ = header.index("occupancy")
        self.assertEqual(float(body[7][occ]), 0.5)  # block 256

    def test_gpus_table(self):
        r = simt("--offline", "gpus")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("h200-sxm", r.stdout)
        self.assertIn("mi300x", r.stdout)


class Usage(unittest.TestCase):
    COMMANDS = ["health", "gpus", "gpu", "occupancy", "sweep", "suggest", "roofline", "coalescing", "banks",
                "constant", "latency", "divergence", "kernel", "gemm", "collective", "transformer", "models", "compare", "openapi",
                "ptxas"]

    def test_help_per_subcommand(self):
        for cmd in self.COMMANDS:
            with self.subTest(cmd=cmd):
                r = simt(cmd, "--help")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("Usage: simt " + cmd, r.stdout)
        occ = simt("occupancy", "--help").stdout
        for flag in ("--gpu", "--block-size", "--registers-per-thread", "--static-shared-bytes",
                     "--dynamic-shared-bytes", "--carveout-percent", "--block-barriers", "--grid-size"):
            self.assertIn(flag, occ)

    def test_top_level_help_lists_commands(self):
        r = simt("--help")
        self.assertEqual(r.returncode, 0)
        for cmd in self.COMMANDS:
            self.assertIn(cmd, r.stdout)

    def test_exit_codes(self):
        cases = [
            (["occupancy", "--gpu", "h200-sxm", "--block-sise", "256"], 2, "unknown flag --block-sise"),
            (["occupancy", "--block-size", "many"], 2, "not a number"),
            (["frobnicate"], 2, "unknown command"),
            ([], 2, "Usage"),
            (["gpu"], 2, "which GPU"),
            (["post", "/v1/occupancy"], 2, "--body"),
            (["--server", "http://127.0.0.1:9", "health"], 3, "cannot connect"),
            (["--server", "ftp://x", "health"], 2, "http://"),
            (["--offline", "--hwdb", "/nonexistent", "gpus"], 3, "database"),
        ]
        for args, code, text in cases:
            with self.subTest(args=args):
                r = simt(*args)
                self.assertEqual(r.returncode, code, r.stdout + r.stderr)
                self.assertIn(text, r.stderr)


class Sizes(unittest.TestCase):
    def answer(self, *args):
        r = simt("--offline", "--json", *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_human_sizes_equal_plain_numbers(self):
        base = ["collective", "--gpu", "h200-sxm", "--op", "all_reduce", "--gpus", "8", "--link", "nvlink"]
        plain = self.answer(*base, "--bytes", "1073741824")
        for text in ("1GiB", "1G", "1024MiB", "1048576K"):
            with self.subTest(text=text):
                self.assertEqual(self.answer(*base, "--bytes", text), plain)
        self.assertEqual(self.answer(*base, "--bytes", "1e9"), self.answer(*base, "--bytes", "1000000000"))
        occ = ["occupancy", "--gpu", "h200-sxm", "--block-size", "256", "--registers-per-thread", "32"]
        self.assertEqual(self.answer(*occ, "--dynamic-shared-bytes", "4KiB"),
                         self.answer(*occ, "--dynamic-shared-bytes", "4096"))

    def test_errors_name_the_flag_as_typed(self):
        r = simt("--offline", "occupancy", "--gpu", "h200-sxm", "--dynamic-shared-bytes", "lots")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--dynamic-shared-bytes: 'lots'", r.stderr)
        self.assertNotIn("dynamic_shared", r.stderr)
        r = simt("--offline", "occupancy", "--gpu", "h200-sxm", "--block-size", "x")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--block-size:", r.stderr)
        r = simt("--offline", "occupancy", "--gpu", "h200-sxm", "--block-size")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--block-size needs a value", r.stderr)

    def test_short_flags(self):
        r = simt("-j", "-s", daemon.url, "health")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["status"], "ok")
        self.assertIn("simt", simt("-V").stdout)


class Token(unittest.TestCase):
    TOKEN = "s3cret-token-for-tests-0123456789"

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

    def run_simt(self, *args, token=None):
        env = {k: v for k, v in os.environ.items() if k != "SIMT_TOKEN"}
        if token is not None:
            env["SIMT_TOKEN"] = token
        return subprocess.run([SIMT, "--server", self.daemon.url] + list(args), capture_output=True, text=True,
                              env=env, timeout=60)

    def test_refused_without_token(self):
        r = self.run_simt("--json", "gpus")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("401", r.stderr)

    def test_token_from_environment(self):
        r = self.run_simt("--json", "gpus", token=self.TOKEN)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("h200-sxm", [g["id"] for g in json.loads(r.stdout)["gpus"]])

    def test_token_file(self):
        r = self.run_simt("--token-file", self.token_file, "occupancy", "--gpu", "h200-sxm", "--block-size", "256",
                          "--registers-per-thread", "64")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("occupancy", r.stdout)

    def test_wrong_token(self):
        r = self.run_simt("--json", "gpus", token="not-the-token-0123456789")
        self.assertEqual(r.returncode, 1)

    def test_missing_token_file(self):
        r = self.run_simt("--token-file", "/nonexistent/token", "gpus")
        self.assertEqual(r.returncode, 2)
        self.assertIn("/nonexistent/token", r.stderr)

    def test_https_is_spoken(self):
        # simtd speaks plain HTTP: a TLS handshake with it fails, and says so (not "unsupported URL")
        r = self.run_simt("--json", "gpus", token=self.TOKEN)
        url = self.daemon.url.replace("http://", "https://")
        r = subprocess.run([SIMT, "--server", url, "gpus"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertNotIn("only http://", r.stderr)
        self.assertRegex(r.stderr, "(?i)ssl|tls")


if __name__ == "__main__":
    unittest.main(verbosity=2)
