"""The daemon's life: flags (--help, --version, bad flags exit 2), refusing
to start on a broken database (exit 1, file:line:column), a port in use,
and shutdown: SIGTERM stops accepting, answers 503 `unavailable` to a new
request on an open connection, finishes the request in flight and exits 0."""
import json
import os
import re
import signal
import socket
import time
import unittest

import simtd_harness as h

GOOD = {"gpu": "h200-sxm", "block_size": 256, "registers_per_thread": 64}

FLAGS = ["--bind", "--port", "--hwdb", "--threads", "--max-body-bytes", "--max-connections", "--timeout-s",
         "--log-level", "--access-log", "--help", "--version"]

BAD_ARGS = [
    ["--bogus"],
    ["--port"],
    ["--port", "70000"],
    ["--port", "-1"],
    ["--port", "80x"],
    ["--port="],
    ["--threads", "many"],
    ["--max-body-bytes", "0"],
    ["--max-body-bytes", "1X"],
    ["--max-connections", "0"],
    ["--timeout-s", "0"],
    ["--log-level", "loud"],
    ["--access-log", "maybe"],
    ["stray"],
    ["-p", "80"],
]


class Flags(unittest.TestCase):
    def test_help(self):
        r = h.run_simtd(["--help"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("Usage: simtd"), r.stdout)
        for flag in FLAGS:
            self.assertIn(flag, r.stdout)
        for default in ("127.0.0.1", "8080", "1M", "[info]", "[on]"):
            self.assertIn(default, r.stdout)
        self.assertIn("Examples:", r.stdout)
        self.assertIn("SIGHUP", r.stdout)
        self.assertEqual(r.stderr, "")

    def test_version(self):
        r = h.run_simtd(["--version"])
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^simtd \d+\.\d+\.\d+\n$")

    def test_bad_flags_exit_2_with_usage(self):
        for args in BAD_ARGS:
            with self.subTest(args=args):
                r = h.run_simtd(args)
                self.assertEqual(r.returncode, 2, (args, r.stdout, r.stderr))
                self.assertTrue(r.stderr.startswith("simtd: "), r.stderr)
                self.assertIn("Usage: simtd", r.stderr)
                self.assertEqual(r.stdout, "")

    def test_equals_form(self):
        r = h.run_simtd(["--port=99999"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--port", r.stderr)
        with h.Daemon("--threads=2", "--max-body-bytes=64K", "--access-log=off") as d:
            self.assertEqual(d.request("GET", "/healthz")[0], 200)
            self.assertEqual(d.stop(), 0)


class BadDatabase(unittest.TestCase):
    def test_broken_file_refuses_to_start(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            hwdb = h.copy_hwdb(tmp)
            path = h.gpu_file(hwdb, "h200-sxm")
            line, col = h.set_sm_count(path, "lots")
            r = h.run_simtd(["--port", "0", "--hwdb", hwdb])
            self.assertEqual(r.returncode, 1, r.stderr)
            m = re.search(re.escape(path) + r":(\d+):(\d+): ", r.stderr)
            self.assertIsNotNone(m, r.stderr)
            self.assertEqual(int(m.group(1)), line, r.stderr)
            self.assertIn("sm_count", r.stderr)
            self.assertEqual(r.stdout, "")

    def test_missing_directory_refuses_to_start(self):
        r = h.run_simtd(["--port", "0", "--hwdb", "/nonexistent/simtd-hwdb"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("/nonexistent/simtd-hwdb", r.stderr)

    def test_port_in_use(self):
        with h.Daemon() as d:
            r = h.run_simtd(["--port", str(d.port), "--hwdb", d.hwdb])
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn(str(d.port), r.stderr)
            self.assertEqual(d.request("GET", "/healthz")[0], 200)


def send_partial_post(d, body, sent):
    s = d.raw_socket()
    s.sendall(b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body) + body[:sent])
    return s


def wait_in_flight(d, conn, want, timeout=10):
    """Polls /metrics on conn until requests_in_flight (the scrape itself
    included) is at least want on two scrapes in a row. A request counts
    until microhttpd reports it complete, which may come a moment after the
    client has its answer: two scrapes 50 ms apart rule out a lagging
    previous scrape."""
    deadline = time.monotonic() + timeout
    streak = 0
    while time.monotonic() < deadline:
        st, _, text = d.request("GET", "/metrics", conn=conn)
        if h.metric(h.parse_metrics(text.decode()), "simtd_requests_in_flight") >= want:
            streak += 1
            if streak == 2:
                return
        else:
            streak = 0
        time.sleep(0.05)
    raise AssertionError("requests in flight never reached %d" % want)


class Shutdown(unittest.TestCase):
    def test_sigterm_finishes_in_flight_and_answers_503(self):
        with h.Daemon() as d:
            idle = d.connection()  # a keep-alive connection, open across the signal
            self.assertEqual(d.request("GET", "/healthz", conn=idle)[0], 200)
            body = json.dumps(GOOD).encode()
            busy = send_partial_post(d, body, 10)
            wait_in_flight(d, idle, 2)

            mark = d.log_mark()
            d.signal(signal.SIGTERM)
            m = d.wait_log(r"shutting down on \w+: (\d+) request\(s\) in flight", start=mark)
            # the busy one; the last scrape may still be finishing
            self.assertIn(int(m.group(1)), (1, 2))

            # no new connections
            with self.assertRaises(OSError):
                socket.create_connection((d.host, d.port), timeout=2).close()
            # a new request on the open connection: 503 unavailable, then closed
            st, hdrs, data = d.request("GET", "/healthz", conn=idle)
            h.ErrorShape.check(self, st, hdrs, data, 503, "unavailable")
            self.assertEqual(hdrs.get("connection", "").lower(), "close")
            idle.close()
            self.assertIsNone(d.proc.poll(), "exited with a request in flight")

            # the request in flight is answered in full
            busy.sendall(body[10:])
            resp = h.read_http_response(busy)
            busy.close()
            self.assertIsNotNone(resp)
            self.assertEqual(resp[0], 200, resp)
            ans = json.loads(resp[2])
            self.assertEqual(ans["gpu"], "h200-sxm")
            self.assertIn("active_blocks_per_sm", ans)
            self.assertEqual(d.proc.wait(10), 0)
            d.wait_log(r'"msg":"stopped"')

    def test_503_to_post_on_open_connection(self):
        with h.Daemon() as d:
            idle = d.connection()
            self.assertEqual(d.request("GET", "/healthz", conn=idle)[0], 200)
            busy = send_partial_post(d, json.dumps(GOOD).encode(), 1)
            wait_in_flight(d, idle, 2)
            mark = d.log_mark()
            d.signal(signal.SIGTERM)
            d.wait_log(r"shutting down", start=mark)
            st, hdrs, data = d.request("POST", "/v1/occupancy", body=GOOD, conn=idle)
            h.ErrorShape.check(self, st, hdrs, data, 503, "unavailable")
            idle.close()
            busy.close()  # the one in flight gives up: shutdown completes
            self.assertEqual(d.proc.wait(10), 0)

    def test_sigint_when_idle(self):
        with h.Daemon() as d:
            conn = d.connection()
            self.assertEqual(d.request("GET", "/healthz", conn=conn)[0], 200)  # left open, idle
            t0 = time.monotonic()
            d.signal(signal.SIGINT)
            self.assertEqual(d.proc.wait(10), 0)
            self.assertLess(time.monotonic() - t0, 3)
            conn.close()

    def test_second_sigterm_stops_at_once(self):
        with h.Daemon() as d:
            conn = d.connection()
            busy = send_partial_post(d, json.dumps(GOOD).encode(), 5)
            wait_in_flight(d, conn, 2)
            conn.close()
            mark = d.log_mark()
            d.signal(signal.SIGTERM)
            d.wait_log(r"shutting down", start=mark)
            time.sleep(0.3)
            self.assertIsNone(d.proc.poll())
            d.signal(signal.SIGTERM)
            self.assertEqual(d.proc.wait(10), 0)
            d.wait_log(r"unfinished")
            busy.close()


if __name__ == "__main__":
    h.main()
