"""daemon.py - starts the real simtd on a free port for the client tests
(stdlib only) and stops it. The binary comes from $SIMTD (ctest sets it);
the listening line "simtd: listening on http://ADDR:PORT" gives the URL.

    with Daemon() as d:        # or Daemon(path)
        urlopen(d.url + "/healthz")

Run as a script it wraps a command: `python3 daemon.py -- node test.mjs`
starts simtd, runs the command with SIMT_URL set, and exits with its status.
`daemon.py --with-token -- COMMAND` starts it with --token-file (a fresh
random token) and gives the command the token as SIMT_TEST_TOKEN.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

LISTEN_RE = re.compile(r"simtd: listening on (http://\S+)")


class DaemonError(RuntimeError):
    pass


class Daemon:
    def __init__(self, simtd=None, *extra, start_timeout=20.0):
        self.simtd = simtd or os.environ.get("SIMTD")
        if not self.simtd or not os.access(self.simtd, os.X_OK):
            raise DaemonError("set SIMTD to the simtd binary (got %r)" % self.simtd)
        self.extra = list(extra)
        self.start_timeout = start_timeout
        self.proc = None
        self.url = None
        self.log_path = None

    def start(self):
        fd, self.log_path = tempfile.mkstemp(prefix="simtd-clients-", suffix=".log")
        self.log = os.fdopen(fd, "w+")
        # stdout carries the listening line; stderr the logs (to the same file,
        # so a busy access log can never block the daemon on a full pipe)
        self.proc = subprocess.Popen([self.simtd, "--port", "0", "--bind", "127.0.0.1"] + self.extra,
                                     stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            with open(self.log_path) as f:
                m = LISTEN_RE.search(f.read())
            if m:
                self.url = m.group(1)
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        with open(self.log_path) as f:
            raise DaemonError("simtd did not start:\n" + f.read()[-2000:])

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc is not None:
            self.log.close()
            os.unlink(self.log_path)
            self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def main(argv):
    if "--" not in argv:
        sys.stderr.write("usage: daemon.py [SIMTD] -- COMMAND...\n")
        return 2
    cut = argv.index("--")
    options = argv[1:cut]
    with_token = "--with-token" in options
    options = [o for o in options if o != "--with-token"]
    simtd = options[0] if options else None
    command = argv[cut + 1:]
    env = dict(os.environ)
    extra = []
    token_path = None
    if with_token:
        import secrets
        token = secrets.token_hex(16)
        fd, token_path = tempfile.mkstemp(prefix="simt-token-")
        with os.fdopen(fd, "w") as f:
            f.write(token + "\n")
        extra = ["--token-file", token_path]
        env["SIMT_TEST_TOKEN"] = token
    try:
        with Daemon(simtd, *extra) as d:
            env["SIMT_URL"] = d.url
            return subprocess.call(command, env=env)
    finally:
        if token_path:
            os.unlink(token_path)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
