"""Security and request-shape limits, end to end: --token-file requires a
bearer token on every route but /healthz (401 with WWW-Authenticate, and no
cached answer leaks past it); the JSON nesting limit, the sweep-point limit
and the lane-address limit each answer 400 naming what to fix."""
import json
import os
import unittest

import simtd_harness as h

TOKEN = "s3cret-token-for-tests-0123456789"
GOOD = {"gpu": "h200-sxm", "block_size": 256, "registers_per_thread": 64}


class Token(unittest.TestCase):
    def setUp(self):
        self.workdir = h.tempfile.mkdtemp(prefix="simtd-token-")
        self.token_file = os.path.join(self.workdir, "token")
        with open(self.token_file, "w") as f:
            f.write(TOKEN + "\n")

    def test_bearer_token_required_but_for_healthz(self):
        with h.Daemon("--token-file", self.token_file, workdir=self.workdir) as d:
            status, _ = d.get_json("/healthz")
            self.assertEqual(status, 200)
            auth = {"Authorization": "Bearer " + TOKEN}
            # answered once with the token, so a cached answer exists
            status, body = d.post_json("/v1/occupancy", GOOD, headers=auth)
            self.assertEqual(status, 200, body)
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Bearer " + TOKEN[:-1]},
                            {"Authorization": "Bearer " + TOKEN + "x"}, {"Authorization": "Basic " + TOKEN}):
                for method, path, body in (("POST", "/v1/occupancy", GOOD), ("GET", "/v1/gpus", None),
                                           ("GET", "/metrics", None), ("GET", "/v1/gpus/h200-sxm", None)):
                    status, hdrs, data = d.request(method, path, body=body, headers=headers)
                    self.assertEqual(status, 401, (method, path, headers, data))
                    self.assertIn("bearer", hdrs.get("www-authenticate", "").lower())
                    err = json.loads(data)["error"]
                    self.assertEqual(err["code"], "unauthenticated")
                    self.assertEqual(set(err), {"code", "message"})
            status, _, _ = d.request("GET", "/metrics", headers=auth)
            self.assertEqual(status, 200)
            # the scheme in any case, spaces around it and the token
            for given in ("bearer " + TOKEN, "BEARER " + TOKEN, "  Bearer \t" + TOKEN + "  "):
                status, _, _ = d.request("GET", "/v1/gpus", headers={"Authorization": given})
                self.assertEqual(status, 200, given)
            for given in ("Bearer" + TOKEN, "Bearerx " + TOKEN, "Bearer " + TOKEN + " x"):
                status, _, _ = d.request("GET", "/v1/gpus", headers={"Authorization": given})
                self.assertEqual(status, 401, given)
            # the dashboard's own files load without a token (the page asks for it)
            for path in ("/", "/app.js", "/share.js", "/style.css"):
                status, _, _ = d.request("GET", path)
                self.assertEqual(status, 200, path)
            # the token is checked before the body limit: no 413 to a stranger
            s = d.raw_socket()
            s.sendall(b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n")
            st, _, data = h.read_http_response(s)
            s.close()
            self.assertEqual(st, 401, data)

    def test_bad_token_file_refuses_to_start(self):
        short = os.path.join(self.workdir, "short")
        with open(short, "w") as f:
            f.write("abc\n")
        for path, why in ((short, "16.."), (os.path.join(self.workdir, "absent"), "No such file")):
            r = h.run_simtd(["--port", "0", "--token-file", path])
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn(why, r.stderr)

    def test_no_token_by_default(self):
        with h.Daemon() as d:
            status, _ = d.post_json("/v1/occupancy", GOOD)
            self.assertEqual(status, 200)


class RequestShapeLimits(unittest.TestCase):
    def test_limits(self):
        with h.Daemon() as d:
            deep = "[" * 40 + "]" * 40
            status, body = d.post_json("/v1/occupancy", deep)
            self.assertEqual((status, body["error"]["code"]), (400, "bad_json"), body)
            self.assertIn("32 levels", body["error"]["message"])
            # 32 levels are parsed (and then refused as not an object of the right shape, not as too deep)
            shallow = "[" * 32 + "]" * 32
            status, body = d.post_json("/v1/occupancy", shallow)
            self.assertEqual(status, 400)
            self.assertNotIn("levels", body["error"]["message"])

            sweep = dict(GOOD, vary="block_size", **{"from": 1, "to": 100000, "step": 1})
            del sweep["block_size"]
            status, body = d.post_json("/v1/occupancy/sweep", sweep)
            self.assertEqual((status, body["error"]["field"]), (400, "step"), body)
            sweep["step"] = 25  # 4000 points: within the limit
            status, body = d.post_json("/v1/occupancy/sweep", sweep)
            self.assertEqual(status, 200, body)
            self.assertEqual(len(body["points"]), 4000)

            lanes = {"gpu": "h200-sxm", "element_bytes": 4, "lane_addresses": list(range(0, 33 * 4, 4))}
            status, body = d.post_json("/v1/memory/banks", lanes)
            self.assertEqual((status, body["error"]["field"]), (400, "lane_addresses"), body)
            lanes["lane_addresses"] = lanes["lane_addresses"][:32]
            status, body = d.post_json("/v1/memory/banks", lanes)
            self.assertEqual(status, 200, body)


if __name__ == "__main__":
    h.main()
