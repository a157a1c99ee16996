"""test_install.py - an installed simt stands alone: `cmake --install` of
this build into a scratch prefix, which is then copied elsewhere (the
original removed) and trimmed to one GPU, so an answer listing exactly that
GPU can only come from the database beside the copied binary, not from the
source tree or the configure-time prefix. Also: the manual pages render
with `man -l`, and the installed bash completion completes commands and
flags. Environment: SIMT_BUILD_DIR (this build), SIMT_TEST_WORK."""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BUILD_DIR = os.environ.get("SIMT_BUILD_DIR", "")
WORK = os.environ.get("SIMT_TEST_WORK") or tempfile.mkdtemp(prefix="simt-install-")
ROOT = os.path.join(WORK, "install")
COPY = os.path.join(ROOT, "elsewhere", "simtd")


def setUpModule():
    shutil.rmtree(ROOT, ignore_errors=True)
    prefix = os.path.join(ROOT, "prefix")
    r = subprocess.run(["cmake", "--install", BUILD_DIR, "--prefix", prefix], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("cmake --install failed:\n" + r.stdout + r.stderr)
    shutil.copytree(prefix, COPY, symlinks=True)
    shutil.rmtree(prefix)
    for path in glob.glob(os.path.join(COPY, "share", "simtd", "hwdb", "gpus", "*.yaml")):
        if os.path.basename(path) != "h200-sxm.yaml":
            os.unlink(path)


def env():
    e = {k: v for k, v in os.environ.items() if not k.startswith("SIMT_")}
    e["PATH"] = "/usr/bin:/bin"
    return e


class Installed(unittest.TestCase):
    def test_offline_answers_from_the_copied_database(self):
        r = subprocess.run([os.path.join(COPY, "bin", "simt"), "--offline", "--json", "gpus"], capture_output=True,
                           text=True, env=env(), cwd="/", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        ids = [g["id"] for g in json.loads(r.stdout)["gpus"]]
        self.assertEqual(ids, ["h200-sxm"])

    def test_offline_human(self):
        r = subprocess.run([os.path.join(COPY, "bin", "simt"), "--offline", "collective", "--gpu", "h200-sxm",
                            "--op", "all_reduce", "--bytes", "1GiB", "--gpus", "8", "--link", "nvlink"],
                           capture_output=True, text=True, env=env(), cwd="/", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("busbw_bytes_per_s", r.stdout)

    def test_man_pages_render(self):
        man1 = os.path.join(COPY, "share", "man", "man1", "simt.1")
        if not os.path.exists(man1):
            self.skipTest("no manual pages installed (help2man was not found when configuring)")
        self.assertTrue(os.path.exists(os.path.join(COPY, "share", "man", "man8", "simtd.8")))
        if shutil.which("man") is None:
            self.skipTest("man is not installed")
        r = subprocess.run(["man", "-l", man1], capture_output=True, text=True, timeout=60,
                           env=dict(env(), MANPAGER="cat", PAGER="cat", MANWIDTH="100"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("SIMT(1)", r.stdout)
        self.assertIn("--token-file", r.stdout)
        self.assertIn("collective", r.stdout)

    def test_bash_completion(self):
        script = os.path.join(COPY, "share", "bash-completion", "completions", "simt")
        self.assertTrue(os.path.exists(script))
        simt = os.path.join(COPY, "bin", "simt")

        def complete(*words):
            line = " ".join(words)
            cmd = ('source %s; COMP_WORDS=(%s %s); COMP_CWORD=%d; _simt; printf "%%s\\n" "${COMPREPLY[@]}"'
                   % (script, simt, line, len(words)))
            r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env=env(), timeout=60)
            return r.stdout.split()
        self.assertEqual(complete("coll"), ["collective"])
        self.assertIn("--bytes", complete("collective", "--by"))
        self.assertIn("--registers-per-thread", complete("occupancy", "--reg"))
        self.assertIn("--token-file", complete("--tok"))


if __name__ == "__main__":
    if not os.path.isdir(BUILD_DIR):
        print("set SIMT_BUILD_DIR to the build folder")
        sys.exit(2)
    unittest.main(verbosity=2)
