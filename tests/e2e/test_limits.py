"""Limits and misbehaving clients: a client that disconnects mid-request
costs nothing; a client that dribbles its request (one byte at a time) is
cut off at --timeout-s while others are served; --max-connections refuses
the connection past the limit and accepts again once one closes."""
import json
import socket
import threading
import time
import unittest

import simtd_harness as h

GOOD = {"gpu": "h200-sxm", "block_size": 256, "registers_per_thread": 64}
BODY = json.dumps(GOOD).encode()
HEAD = (b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(BODY))


def wait_metric(d, name, want, timeout=10, **labels):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = h.metric(d.metrics(), name, **labels)
        if value == want:
            return
        time.sleep(0.05)
    raise AssertionError("%s%s never became %s (last %s)" % (name, labels, want, value))


class Disconnects(unittest.TestCase):
    def test_disconnect_mid_request_costs_nothing(self):
        with h.Daemon() as d:
            self.assertEqual(h.metric(d.metrics(), "simtd_requests_in_flight"), 1)
            cases = [
                HEAD[:20],                      # mid request line
                HEAD[:-10],                     # mid headers
                HEAD + BODY[:7],                # mid body
                HEAD,                           # headers, no body
                HEAD + BODY,                    # whole request, answer never read
                b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
            ]
            for _ in range(5):
                for raw in cases:
                    s = d.raw_socket()
                    s.sendall(raw)
                    s.close()
                # also an abortive close (RST)
                s = d.raw_socket()
                s.sendall(HEAD + BODY[:3])
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                s.close()
            # every one of them is gone: one connection (ours) and one request (ours) left
            wait_metric(d, "simtd_connections", 1)
            wait_metric(d, "simtd_requests_in_flight", 1)
            st, ans = d.post_json("/v1/occupancy", GOOD)
            self.assertEqual(st, 200, ans)
            self.assertEqual(d.stop(), 0)


class SlowClients(unittest.TestCase):
    TIMEOUT = 2

    def dribble(self, d, data, interval, result):
        """Sends data a byte at a time; records when the server cut it off."""
        s = d.raw_socket()
        t0 = time.monotonic()
        try:
            for b in data:
                s.sendall(bytes([b]))
                time.sleep(interval)
            result["finished"] = True
            result["answer"] = h.read_http_response(s, timeout=5)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            result["elapsed"] = time.monotonic() - t0
            s.close()

    def check_cut_while_others_served(self, data):
        with h.Daemon("--timeout-s", str(self.TIMEOUT)) as d:
            result = {}
            slow = threading.Thread(target=self.dribble, args=(d, data, 0.25, result))
            slow.start()
            served = []
            conn = d.connection(timeout=2)
            t_end = time.monotonic() + self.TIMEOUT + 1.5
            while time.monotonic() < t_end:
                t0 = time.monotonic()
                st, _, _ = d.request("POST", "/v1/occupancy", body=GOOD, conn=conn)
                served.append((st, time.monotonic() - t0))
                time.sleep(0.1)
            conn.close()
            slow.join(30)
            self.assertNotIn("finished", result, "a one-byte-every-0.25-s client was never cut off")
            self.assertGreaterEqual(result["elapsed"], self.TIMEOUT - 0.5)
            self.assertLess(result["elapsed"], self.TIMEOUT + 2.5)
            self.assertTrue(served)
            self.assertTrue(all(st == 200 for st, _ in served), served)
            self.assertLess(max(t for _, t in served), 0.5, served)
            d.wait_log(r"closed 1 connection\(s\): no complete request within %d s" % self.TIMEOUT)
            self.assertEqual(d.stop(), 0)

    def test_slow_headers_cut_off(self):
        self.check_cut_while_others_served(HEAD + BODY)

    def test_slow_body_cut_off(self):
        # headers arrive at once, the body a byte at a time
        with h.Daemon("--timeout-s", str(self.TIMEOUT)) as d:
            s = d.raw_socket()
            s.sendall(HEAD)
            t0 = time.monotonic()
            cut = None
            try:
                for b in BODY:
                    s.sendall(bytes([b]))
                    time.sleep(0.25)
                    # the others are served meanwhile
                    self.assertEqual(d.request("GET", "/healthz")[0], 200)
            except (BrokenPipeError, ConnectionResetError):
                cut = time.monotonic() - t0
            if cut is None:  # the send may still succeed into the buffer: the read sees the end
                resp = h.read_http_response(s, timeout=5)
                self.assertIsNone(resp, resp)
                cut = time.monotonic() - t0
            s.close()
            self.assertLess(cut, self.TIMEOUT + 2.5)
            self.assertEqual(d.stop(), 0)

    def test_idle_keep_alive_closed_after_timeout(self):
        with h.Daemon("--timeout-s", str(self.TIMEOUT)) as d:
            s = d.raw_socket()
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            self.assertEqual(h.read_http_response(s)[0], 200)
            t0 = time.monotonic()
            self.assertTrue(h.peer_closed(s, timeout=self.TIMEOUT + 5))
            self.assertGreaterEqual(time.monotonic() - t0, self.TIMEOUT - 0.5)
            s.close()
            self.assertEqual(d.stop(), 0)

    def test_patient_client_within_timeout_is_served(self):
        with h.Daemon("--timeout-s", str(self.TIMEOUT)) as d:
            s = d.raw_socket()
            data = HEAD + BODY
            half = len(data) // 2
            s.sendall(data[:half])
            time.sleep(self.TIMEOUT * 0.5)
            s.sendall(data[half:])
            resp = h.read_http_response(s)
            s.close()
            self.assertEqual(resp[0], 200)
            self.assertEqual(d.stop(), 0)


class ConnectionLimit(unittest.TestCase):
    LIMIT = 4

    BODY = b'{"gpu":"h200-sxm","block_size":256,"registers_per_thread":64}'
    HEAD = (b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(BODY))

    def check_limit(self, threads):
        with h.Daemon("--max-connections", str(self.LIMIT), "--threads", str(threads)) as d:
            # each held connection is busy: its request is half-way through its body
            # (idle ones would be closed to make room: see test_idle_closed_first)
            held = []
            for _ in range(self.LIMIT):
                s = d.raw_socket()
                s.sendall(self.HEAD + self.BODY[:10])
                held.append(s)
            time.sleep(0.5)  # let the server see them all (/metrics would take a slot)
            extra = d.raw_socket()
            try:
                extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            except OSError:
                pass
            self.assertIsNone(h.read_http_response(extra, timeout=5), "connection past the limit was served")
            extra.close()
            # the held ones still work
            for s in held:
                s.sendall(self.BODY[10:])
                self.assertEqual(h.read_http_response(s)[0], 200)
            # one goes away: room for a new one
            held.pop().close()
            deadline = time.monotonic() + 5
            while True:
                s = d.raw_socket()
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                resp = h.read_http_response(s, timeout=5)
                s.close()
                if resp is not None or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            self.assertIsNotNone(resp)
            self.assertEqual(resp[0], 200)
            for s in held:
                s.close()
            d.wait_log(r"connection refused: %d connections open|reached connection limit" % self.LIMIT)
            self.assertEqual(d.stop(), 0)

    def test_idle_closed_first(self):
        """At the limit, the connection idle the longest (kept alive between
        requests) is closed to make room; busy ones are kept."""
        with h.Daemon("--max-connections", str(self.LIMIT), "--threads", "1") as d:
            idle = d.raw_socket()
            idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            self.assertEqual(h.read_http_response(idle)[0], 200)
            busy = []
            for _ in range(self.LIMIT - 1):
                s = d.raw_socket()
                s.sendall(self.HEAD + self.BODY[:10])
                busy.append(s)
            time.sleep(0.5)  # let the server see them all (/metrics would take a slot)
            extra = d.raw_socket()
            extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            resp = h.read_http_response(extra, timeout=5)
            self.assertIsNotNone(resp, "no room was made for a new connection")
            self.assertEqual(resp[0], 200)
            self.assertTrue(h.peer_closed(idle, timeout=5), "the idle connection was not the one closed")
            for s in busy:
                s.sendall(self.BODY[10:])
                self.assertEqual(h.read_http_response(s)[0], 200)
                s.close()
            extra.close()
            idle.close()

    def test_limit_one_thread(self):
        self.check_limit(1)

    def test_limit_thread_pool(self):
        self.check_limit(2)


if __name__ == "__main__":
    h.main()
