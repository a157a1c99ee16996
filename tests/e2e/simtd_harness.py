"""simtd_harness - starts the real simtd on a free port with a private copy of
the bundled hardware database, and speaks HTTP to it (stdlib only).

Every test module is run by ctest as
    python3 test_x.py SIMTD_BINARY REPO_ROOT [unittest args]
and calls harness.main() which takes those two arguments off argv.
"""
import http.client
import json
import os
import re
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

SIMTD = None
REPO = None

# SIMTD_WRAPPER: a command put in front of every simtd the harness starts,
# e.g. "valgrind --error-exitcode=99 --leak-check=full" (tests/run-all.sh's
# valgrind pass). Empty: simtd runs as is.
WRAPPER = shlex.split(os.environ.get("SIMTD_WRAPPER", ""))

LISTEN_RE = re.compile(r"^simtd: listening on http://(.+):(\d+)$")
SANITIZER_RE = re.compile(r"ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error: ")


def main():
    global SIMTD, REPO
    if len(sys.argv) < 3:
        sys.stderr.write("usage: %s SIMTD_BINARY REPO_ROOT [unittest args]\n" % sys.argv[0])
        sys.exit(2)
    SIMTD = os.path.abspath(sys.argv[1])
    REPO = os.path.abspath(sys.argv[2])
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:], verbosity=2)


def copy_hwdb(dest_parent):
    """Copies the bundled database's arch/, gpus/ and models/ into dest_parent/hwdb."""
    src = os.path.join(REPO, "hwdb")
    dest = os.path.join(dest_parent, "hwdb")
    os.makedirs(dest)
    for sub in ("arch", "gpus", "models"):
        shutil.copytree(os.path.join(src, sub), os.path.join(dest, sub))
    return dest


def run_simtd(args, timeout=20):
    """Runs simtd to completion (for flags that exit at once)."""
    return subprocess.run(WRAPPER + [SIMTD] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=timeout, text=True)


class Daemon:
    """One running simtd. Use as a context manager; stderr lines are
    collected in the background (`lines`, parsed JSON in `records`)."""

    def __init__(self, *extra, hwdb=None, workdir=None):
        self.workdir = workdir or tempfile.mkdtemp(prefix="simtd-e2e-")
        self.own_workdir = workdir is None
        self.hwdb = hwdb or copy_hwdb(self.workdir)
        self.args = [SIMTD, "--port", "0", "--hwdb", self.hwdb] + list(extra)
        self.lines = []
        self.cond = threading.Condition()
        self.proc = subprocess.Popen(WRAPPER + self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.reader = threading.Thread(target=self._read_stderr, daemon=True)
        self.reader.start()
        self.port = self._read_port()

    def _read_port(self, timeout=15):
        deadline = time.monotonic() + timeout
        buf = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.2)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                if not chunk:
                    break
                buf += chunk
                for line in buf.decode(errors="replace").splitlines():
                    m = LISTEN_RE.match(line.strip())
                    if m:
                        self.host = m.group(1).strip("[]")
                        return int(m.group(2))
            elif self.proc.poll() is not None:
                break
        self.kill()
        raise RuntimeError("simtd did not report its port; stdout=%r stderr=%s" % (buf, "\n".join(self.lines)))

    def _read_stderr(self):
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()

    def records(self):
        """stderr lines that are JSON objects."""
        out = []
        with self.cond:
            lines = list(self.lines)
        for line in lines:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict):
                out.append(rec)
        return out

    def wait_log(self, pattern, timeout=10, start=0):
        """Waits for a stderr line (from index `start`) matching the regex;
        returns the match."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for line in self.lines[start:]:
                    m = rx.search(line)
                    if m:
                        return m
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("no log line matching %r within %ss; log:\n%s"
                                         % (pattern, timeout, "\n".join(self.lines[-40:])))
                self.cond.wait(left)

    def log_mark(self):
        with self.cond:
            return len(self.lines)

    # ---- HTTP ----

    def connection(self, timeout=None):
        # under SIMTD_WRAPPER (valgrind: simtd 20-50x slower) the costliest
        # request allowed (a 4-GPU compare of sweeps) can pass 10 s on a
        # loaded 2-core machine: wait longer there, not in the plain stage
        if timeout is None:
            timeout = 60 if WRAPPER else 10
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, conn=None):
        """Returns (status, headers dict lower-cased, body bytes)."""
        own = conn is None
        conn = conn or self.connection()
        try:
            if isinstance(body, (dict, list)):
                body = json.dumps(body)
            if isinstance(body, str):
                body = body.encode()
            hdrs = {"Content-Type": "application/json"} if body is not None else {}
            hdrs.update(headers or {})
            conn.request(method, path, body=body, headers=hdrs)
            resp = conn.getresponse()
            data = resp.read()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
        finally:
            if own:
                conn.close()

    def get_json(self, path):
        status, headers, data = self.request("GET", path)
        return status, json.loads(data) if data else None

    def post_json(self, path, body, headers=None):
        status, hdrs, data = self.request("POST", path, body=body, headers=headers)
        return status, json.loads(data) if data else None

    def raw_socket(self, timeout=10):
        s = socket.create_connection((self.host, self.port), timeout=timeout)
        return s

    def metrics(self):
        status, headers, data = self.request("GET", "/metrics")
        assert status == 200, status
        return parse_metrics(data.decode())

    # ---- life cycle ----

    def signal(self, signo):
        self.proc.send_signal(signo)

    def stop(self, timeout=15):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self):
        self.kill()
        self.reader.join(5)
        for f in (self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except Exception:
                pass
        if self.own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
        # a sanitizer build reports on stderr; any report fails the test
        with self.cond:
            reports = [line for line in self.lines if SANITIZER_RE.search(line)]
        if reports:
            raise AssertionError("sanitizer report from simtd:\n" + "\n".join(self.lines[-60:]))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def parse_metrics(text):
    """{(name, frozenset(labels.items())): value} from Prometheus text."""
    out = {}
    rx = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
    lab = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = rx.match(line)
        if not m:
            raise AssertionError("bad metrics line: %r" % line)
        labels = frozenset(lab.findall(m.group(2) or ""))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def metric(metrics, name, **labels):
    return metrics.get((name, frozenset(labels.items())), 0.0)


def read_http_response(sock, timeout=10):
    """Reads one HTTP/1.1 response with Content-Length from a raw socket.
    Returns (status, headers, body) or None when the peer closed first."""
    sock.settimeout(timeout)
    buf = b""
    while b"\r\n\r\n" not in buf:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return None
        if not chunk:
            return None
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, headers, rest[:length]


def peer_closed(sock, timeout=10):
    """True when the server closes the connection (EOF or reset) within
    timeout without sending anything."""
    sock.settimeout(timeout)
    try:
        data = sock.recv(65536)
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False
    return data == b""


class ErrorShape:
    """Checks an error body is exactly the contract's shape."""

    @staticmethod
    def check(test, status, headers, data, want_status, want_code, want_field=None):
        test.assertEqual(status, want_status, data)
        test.assertTrue(headers.get("content-type", "").startswith("application/json"), headers)
        body = json.loads(data)
        test.assertEqual(set(body.keys()), {"error"}, body)
        err = body["error"]
        allowed = {"code", "message", "field"}
        test.assertTrue(set(err.keys()) <= allowed, err)
        test.assertEqual(err["code"], want_code, err)
        test.assertIsInstance(err["message"], str)
        test.assertTrue(err["message"], err)
        if want_field is None:
            test.assertNotIn("field", err, err)
        else:
            test.assertEqual(err.get("field"), want_field, err)
        return err


# ---- editing a copied database ----

SM_COUNT_RE = re.compile(r"^(\s*sm_count:\s*)([^\s#]+)(.*)$")


def gpu_file(hwdb_dir, gpu_id):
    path = os.path.join(hwdb_dir, "gpus", gpu_id + ".yaml")
    if not os.path.exists(path):
        raise AssertionError("no database file %s" % path)
    return path


def set_sm_count(path, value):
    """Rewrites the sm_count value in a GPU file (text edit, comments kept).
    Returns (1-based line, 1-based column of the value)."""
    with open(path) as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        m = SM_COUNT_RE.match(line)
        if m:
            lines[i] = m.group(1) + str(value) + m.group(3)
            with open(path + ".tmp", "w") as f:
                f.write("\n".join(lines))
            os.replace(path + ".tmp", path)
            return i + 1, len(m.group(1)) + 1
    raise AssertionError("no sm_count line in %s" % path)
