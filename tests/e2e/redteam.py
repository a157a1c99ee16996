"""redteam.py - measures issue #16's hostile cases against a real simtd and
prints one line per figure (not a ctest test: it reports, it does not judge;
the test_hardening*.py modules judge). Usage:
    python3 redteam.py SIMTD_BINARY REPO_ROOT
"""
import json
import os
import resource
import signal
import socket
import statistics
import sys
import threading
import time

import simtd_harness as h

HEAVY_COMPARE = {"gpus": ["h200-sxm"] * 32, "question": "/v1/occupancy/sweep",
                 "body": {"block_size": 256, "registers_per_thread": 32, "vary": "dynamic_shared_bytes", "from": 0, "to": 4095, "step": 1}}
GOOD = {"gpu": "h200-sxm", "block_size": 256, "registers_per_thread": 64}


def say(name, value):
    print("%-58s %s" % (name, value), flush=True)


def raw(d, data, host="127.0.0.1", wait=3.0):
    s = socket.create_connection((host, d.port), timeout=wait)
    s.sendall(data)
    s.settimeout(wait)
    out = b""
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < wait:
            chunk = s.recv(65536)
            if not chunk:
                out += b"<EOF>"
                break
            out += chunk
    except socket.timeout:
        out += b"<timeout>"
    except ConnectionResetError:
        out += b"<RST>"
    s.close()
    return out


def first_lines(out):
    statuses = [ln.split(b" ")[1].decode() for ln in out.split(b"\r\n") if ln.startswith(b"HTTP/1.")]
    closed = out.endswith(b"<EOF>") or out.endswith(b"<RST>")
    json_body = b'{"error"' in out
    return "statuses=%s closed=%s json=%s" % (",".join(statuses) or "-", closed, json_body)


def http_cases(d):
    cases = {
        "two Content-Lengths": b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                               b"Content-Length: 2\r\nContent-Length: 60\r\n\r\n{}",
        "Content-Length + chunked": b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                                    b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\n"
                                    b"Host: x\r\n\r\n",
        "Content-Length -1": b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        "Content-Length 0x10": b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nContent-Length: 0x10\r\n\r\n",
        "Content-Length '56, 56'": b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nContent-Length: 56, 56\r\n\r\n",
        "Transfer-Encoding gzip": b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
        "no Host": b"GET /healthz HTTP/1.1\r\n\r\n",
        "two Hosts": b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "absolute form": b"GET http://x/healthz HTTP/1.1\r\nHost: x\r\n\r\n",
        "%00 in path": b"GET /v1/gpus/h200-sxm%00xyz HTTP/1.1\r\nHost: x\r\n\r\n",
        "raw control char in path": b"GET /v1/gpus/h200\x01sxm HTTP/1.1\r\nHost: x\r\n\r\n",
        "header too large (431)": b"GET /healthz HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 40000 + b"\r\n\r\n",
        "HTTP/2.0 version (505)": b"GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n",
    }
    for name, data in cases.items():
        say("http: " + name, first_lines(raw(d, data)))


def gemm_overflow(d):
    for body in ({"gpu": "h200-sxm", "m": 134217728, "n": 134217728, "k": 134217728, "dtype": "bf16"},
                 {"gpu": "h200-sxm", "m": 8192, "n": 8192, "k": 8192, "batch": 1099511627776, "dtype": "bf16"}):
        st, b = d.post_json("/v1/gemm", body)
        say("gemm overflow %s" % json.dumps(body)[:50], "%s %s" % (st, (b.get("time_s") if st == 200 else
                                                                        b["error"].get("field"))))


def heavy(d):
    t0 = time.monotonic()
    st, hd, data = d.request("POST", "/v1/compare", body=HEAVY_COMPARE)
    say("heavy compare (32 GPUs x 4096-point sweep)", "status %d, %.2f s, %d bytes" %
        (st, time.monotonic() - t0, len(data)))
    costliest = HEAVY_COMPARE
    if st != 200:  # refused: the costliest accepted is the budget's worth of GPUs
        costliest = dict(HEAVY_COMPARE, gpus=["h200-sxm"] * 4)
        t0 = time.monotonic()
        st, hd, data = d.request("POST", "/v1/compare", body=costliest)
        say("costliest accepted compare (4 GPUs x 4096 points)", "status %d, %.2f s, %d bytes" %
            (st, time.monotonic() - t0, len(data)))
    stop = threading.Event()

    def abuser():
        while not stop.is_set():
            try:
                d.request("POST", "/v1/compare", body=costliest)
            except Exception:
                time.sleep(0.05)
    threads = [threading.Thread(target=abuser, daemon=True) for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    lat = []
    conn = d.connection()
    t_end = time.monotonic() + 5
    while time.monotonic() < t_end:
        t0 = time.monotonic()
        st, _, _ = d.request("POST", "/v1/occupancy", body=dict(GOOD, block_size=32 * (1 + len(lat) % 32)),
                             conn=conn)
        lat.append(time.monotonic() - t0)
        time.sleep(0.01)
    stop.set()
    for t in threads:
        t.join(30)
    lat.sort()
    say("good client next to 2 heavy clients: p50 / p95 ms", "%.1f / %.1f (n=%d)" %
        (1000 * statistics.median(lat), 1000 * lat[int(0.95 * len(lat))], len(lat)))


def per_ip(d):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    idle = []
    for _ in range(1100):
        try:
            s = socket.socket()
            s.settimeout(2)
            s.connect(("127.0.0.1", d.port))
            idle.append(s)
        except OSError:
            break
    time.sleep(0.5)
    ok = 0
    for _ in range(40):
        try:
            s = socket.socket()
            s.bind(("127.0.0.2", 0))
            s.settimeout(2)
            s.connect(("127.0.0.1", d.port))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            if s.recv(100).startswith(b"HTTP/1.1 200"):
                ok += 1
            s.close()
        except OSError:
            pass
    say("good client (127.0.0.2) with 1100 idle sockets open", "%d of 40 served (%d idle opened)" % (ok, len(idle)))
    for s in idle:
        s.close()


def reload_traps(hwdb_parent):
    for kind in ("fifo", "deep"):
        with h.Daemon("--access-log", "off") as d:
            path = os.path.join(d.hwdb, "gpus", "zz.yaml")
            if kind == "fifo":
                os.mkfifo(path)
            else:
                with open(path, "w") as f:
                    f.write("[" * 100000 + "]" * 100000 + "\n")
            mark = d.log_mark()
            t0 = time.monotonic()
            d.signal(signal.SIGHUP)
            try:
                d.wait_log("reload failed", timeout=30, start=mark)
                rej = "%.2f s" % (time.monotonic() - t0)
            except AssertionError:
                rej = "not within 30 s"
            try:
                st, _ = d.get_json("/v1/gpus/h200-sxm")
            except Exception as e:
                st = repr(e)
            t0 = time.monotonic()
            d.signal(signal.SIGTERM)
            try:
                d.proc.wait(20)
                term = "%.2f s" % (time.monotonic() - t0)
            except Exception:
                term = "not within 20 s"
                if kind == "fifo":  # unblock it
                    try:
                        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                        os.close(fd)
                    except OSError:
                        pass
            say("reload with %s: rejected / old db / SIGTERM" % kind, "%s / %s / %s" % (rej, st, term))


def auth(workdir):
    tok = os.path.join(workdir, "tok")
    token = "redteam-token-0123456789abcdef"
    with open(tok, "w") as f:
        f.write(token + "\n")
    with h.Daemon("--token-file", tok, "--access-log", "off", workdir=workdir) as d:
        st, _, _ = d.request("GET", "/v1/gpus", headers={"Authorization": "bearer " + token})
        say("auth: 'bearer TOKEN'", st)
        st, _, _ = d.request("GET", "/v1/gpus", headers={"Authorization": "  Bearer   " + token + "  "})
        say("auth: '  Bearer   TOKEN  '", st)
        out = raw(d, b"POST /v1/occupancy HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n")
        say("auth: no token, 99999999-byte Content-Length", first_lines(out))
        st, _, _ = d.request("GET", "/")
        say("auth: GET / without a token", st)


def main():
    h.SIMTD = os.path.abspath(sys.argv[1])
    h.REPO = os.path.abspath(sys.argv[2])
    with h.Daemon("--access-log", "off") as d:
        gemm_overflow(d)
        http_cases(d)
        heavy(d)
    with h.Daemon("--access-log", "off", "--max-connections", "1024") as d:
        per_ip(d)
    reload_traps(None)
    auth(h.tempfile.mkdtemp(prefix="simtd-redteam-"))


if __name__ == "__main__":
    main()
