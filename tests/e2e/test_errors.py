"""Every status of API.md's error table, over real HTTP, with its exact body:
{"error": {"code", "message", "field"?}} and nothing else. (503 during
shutdown is in test_lifecycle.py.)"""
import json
import socket
import unittest

import simtd_harness as h

GOOD = {"gpu": "h200-sxm", "block_size": 256, "registers_per_thread": 64}
LIMIT = 4096  # --max-body-bytes for this module


def with_(**kw):
    body = dict(GOOD)
    body.update(kw)
    return body


def without(key):
    body = dict(GOOD)
    del body[key]
    return body


# (name, method, path, body (dict or raw str), extra headers, status, code, field)
CASES = [
    ("malformed json", "POST", "/v1/occupancy", '{"gpu": "h200-sxm", ', None, 400, "bad_json", None),
    ("json not an object", "POST", "/v1/occupancy", "[1, 2]", None, 400, "bad_json", None),
    ("empty body", "POST", "/v1/occupancy", "", None, 400, "bad_json", None),
    ("duplicate key", "POST", "/v1/occupancy",
     '{"gpu":"h200-sxm","block_size":256,"block_size":128,"registers_per_thread":64}', None, 400, "bad_json", None),
    ("wrong type", "POST", "/v1/occupancy", with_(block_size="256"), None, 400, "invalid_argument", "block_size"),
    ("out of range", "POST", "/v1/occupancy", with_(carveout_percent=101), None, 400, "invalid_argument",
     "carveout_percent"),
    ("unknown field", "POST", "/v1/occupancy", with_(blok_size=1), None, 400, "unknown_field", "blok_size"),
    ("unknown override key", "POST", "/v1/occupancy", with_(gpu={"base": "h100-sxm", "sm_cnt": 100}), None, 400,
     "unknown_field", "gpu.sm_cnt"),
    ("missing field", "POST", "/v1/occupancy", without("registers_per_thread"), None, 400, "missing_field",
     "registers_per_thread"),
    ("missing block_size", "POST", "/v1/occupancy", without("block_size"), None, 400, "missing_field",
     "block_size"),
    ("unknown path", "GET", "/v1/nope", None, None, 404, "not_found", None),
    ("unknown path under gpus", "GET", "/v1/gpus/h200-sxm/extra", None, None, 404, "not_found", None),
    ("unknown gpu by path", "GET", "/v1/gpus/no-such-gpu", None, None, 404, "unknown_gpu", None),
    ("unknown gpu in body", "POST", "/v1/occupancy", with_(gpu="no-such-gpu"), None, 404, "unknown_gpu", "gpu"),
    ("unknown what-if base", "POST", "/v1/occupancy", with_(gpu={"base": "no-such-gpu"}), None, 404, "unknown_gpu",
     "gpu.base"),
    ("415 text/plain", "POST", "/v1/occupancy", json.dumps(GOOD), {"Content-Type": "text/plain"}, 415,
     "unsupported_media_type", None),
    ("415 form", "POST", "/v1/occupancy", json.dumps(GOOD), {"Content-Type": "application/x-www-form-urlencoded"},
     415, "unsupported_media_type", None),
    ("422 block too large", "POST", "/v1/occupancy", with_(block_size=2048), None, 422, "unsatisfiable",
     "block_size"),
    ("422 too much shared", "POST", "/v1/occupancy", with_(dynamic_shared_bytes=16 * 1024 * 1024), None, 422,
     "unsatisfiable", "dynamic_shared_bytes"),
]

# (method, path, Allow)
WRONG_METHODS = [
    ("GET", "/v1/occupancy", "POST"),
    ("PUT", "/v1/occupancy/sweep", "POST"),
    ("GET", "/v1/launch/suggest", "POST"),
    ("POST", "/healthz", "GET"),
    ("DELETE", "/v1/gpus", "GET"),
    ("POST", "/v1/gpus/h200-sxm", "GET"),
    ("POST", "/metrics", "GET"),
]


class ErrorStatuses(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = h.Daemon("--max-body-bytes", str(LIMIT))

    @classmethod
    def tearDownClass(cls):
        rc = cls.d.stop()
        cls.d.close()
        assert rc == 0, rc

    def test_table(self):
        for name, method, path, body, headers, status, code, field in CASES:
            with self.subTest(name):
                st, hdrs, data = self.d.request(method, path, body=body, headers=headers)
                h.ErrorShape.check(self, st, hdrs, data, status, code, field)

    def test_missing_content_type_is_accepted(self):
        conn = self.d.connection()
        conn.putrequest("POST", "/v1/occupancy")
        body = json.dumps(GOOD).encode()
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        self.assertEqual(resp.status, 200, resp.read())
        conn.close()

    def test_content_type_with_charset_is_accepted(self):
        st, _, data = self.d.request("POST", "/v1/occupancy", body=GOOD,
                                     headers={"Content-Type": "application/json; charset=utf-8"})
        self.assertEqual(st, 200, data)

    def test_405_with_allow(self):
        for method, path, allow in WRONG_METHODS:
            with self.subTest(method=method, path=path):
                st, hdrs, data = self.d.request(method, path, body="{}" if method in ("POST", "PUT") else None)
                h.ErrorShape.check(self, st, hdrs, data, 405, "method_not_allowed")
                self.assertEqual(hdrs.get("allow"), allow)

    def test_413_by_content_length(self):
        # refused from the headers alone: the body is never sent
        s = self.d.raw_socket()
        s.sendall(b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % (LIMIT + 1))
        resp = h.read_http_response(s)
        s.close()
        self.assertIsNotNone(resp, "connection closed without an answer")
        st, hdrs, data = resp
        h.ErrorShape.check(self, st, hdrs, data, 413, "too_large")

    def test_413_by_content_length_with_expect_continue(self):
        s = self.d.raw_socket()
        s.sendall(b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                  b"Content-Length: %d\r\n\r\n" % (10 * LIMIT))
        resp = h.read_http_response(s)
        s.close()
        self.assertIsNotNone(resp)
        h.ErrorShape.check(self, resp[0], resp[1], resp[2], 413, "too_large")

    def test_413_huge_content_length(self):
        s = self.d.raw_socket()
        s.sendall(b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n")
        resp = h.read_http_response(s)
        s.close()
        # microhttpd itself may refuse a length it cannot represent; either way
        # an answer and no crash
        self.assertIsNotNone(resp)
        self.assertIn(resp[0], (400, 413))
        self.assertEqual(self.d.request("GET", "/healthz")[0], 200)

    def test_413_chunked(self):
        # no Content-Length: the body is read, discarded past the limit, and
        # refused at the end; the connection stays usable
        s = self.d.raw_socket()
        s.sendall(b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b" " * 1000
        for _ in range(6):
            s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        s.sendall(b"0\r\n\r\n")
        resp = h.read_http_response(s)
        self.assertIsNotNone(resp)
        h.ErrorShape.check(self, resp[0], resp[1], resp[2], 413, "too_large")
        # same connection, next request
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        resp = h.read_http_response(s)
        s.close()
        self.assertIsNotNone(resp)
        self.assertEqual(resp[0], 200)

    def test_body_at_the_limit_is_read(self):
        text = json.dumps(GOOD)
        body = text + " " * (LIMIT - len(text))
        self.assertEqual(len(body), LIMIT)
        st, _, data = self.d.request("POST", "/v1/occupancy", body=body)
        self.assertEqual(st, 200, data)
        st, hdrs, data = self.d.request("POST", "/v1/occupancy", body=body + " ")
        h.ErrorShape.check(self, st, hdrs, data, 413, "too_large")

    def test_chunked_body_within_limit(self):
        s = self.d.raw_socket()
        body = json.dumps(GOOD).encode()
        s.sendall(b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        for i in range(0, len(body), 7):
            piece = body[i:i + 7]
            s.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
        s.sendall(b"0\r\n\r\n")
        resp = h.read_http_response(s)
        s.close()
        self.assertEqual(resp[0], 200, resp)
        self.assertEqual(json.loads(resp[2])["gpu"], "h200-sxm")

    def test_binary_and_nul_bodies(self):
        for body in (b"\x00\x01\x02", b'{"gpu":"h200-sxm"\x00}', b"\xff\xfe{}", b'"\xc3\x28"'):
            with self.subTest(body=body):
                st, hdrs, data = self.d.request("POST", "/v1/occupancy", body=body)
                h.ErrorShape.check(self, st, hdrs, data, 400, "bad_json")

    def test_odd_paths_do_not_crash(self):
        # "/v1/gpus/%00" is refused (400): see test_hardening.StrictHttp
        for path in ("/", "//", "/v1/gpus/", "/v1/gpus/" + "a" * 3000, "/v1/%ff%fe",
                     "/v1/gpus/h200-sxm?x=1", "/healthz?verbose=1"):
            with self.subTest(path=path):
                st, hdrs, data = self.d.request("GET", path)
                self.assertIn(st, (200, 404, 414, 431), (path, data[:200]))
        self.assertEqual(self.d.request("GET", "/healthz")[0], 200)

    def test_garbage_request_line(self):
        for junk in (b"\r\n\r\n", b"HELLO\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
                     b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64):
            with self.subTest(junk=junk[:16]):
                s = self.d.raw_socket(timeout=5)
                s.sendall(junk)
                try:
                    s.shutdown(socket.SHUT_WR)
                    s.recv(65536)
                except OSError:
                    pass
                s.close()
        self.assertEqual(self.d.request("GET", "/healthz")[0], 200)


if __name__ == "__main__":
    h.main()
