#!/usr/bin/env python3
"""server_time.py - the time a server takes to answer, one request at a
time on one keep-alive connection over loopback: for each request the wall
time from the first byte sent to the first byte of the answer (the server's
time plus one loopback round trip) and to its last byte. Bodies cycle
through a file (one JSON object a line).

    server_time.py HOST:PORT PATH BODIES_FILE COUNT

Prints "median_first_ms p90_first_ms median_last_ms p90_last_ms answer_bytes
statuses". Standard library only; a raw socket, so the client's own cost is
a few microseconds (python3's http.client adds about 50)."""
import socket
import statistics
import sys
import time


def read_answer(sock, buf):
    """One HTTP answer from sock: (status, body length, time of first byte, rest of buffer)."""
    first = None
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(1 << 20)
        if first is None:
            first = time.perf_counter()
        if not chunk:
            raise RuntimeError("connection closed")
        buf += chunk
    if first is None:
        first = time.perf_counter()
    head, _, buf = buf.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(buf) < length:
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise RuntimeError("connection closed")
        buf += chunk
    return status, length, first, buf[length:]


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    host, port = sys.argv[1].rsplit(":", 1)
    path, count = sys.argv[2], int(sys.argv[4])
    bodies = [line.strip().encode() for line in open(sys.argv[3]) if line.strip()]
    requests = [b"POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                % (path.encode(), host.encode(), len(b), b) for b in bodies]
    sock = socket.create_connection((host, int(port)))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    firsts, lasts, statuses, size = [], [], {}, 0
    buf = b""
    for i in range(count):
        req = requests[i % len(requests)]
        start = time.perf_counter()
        sock.sendall(req)
        status, size, first, buf = read_answer(sock, buf)
        end = time.perf_counter()
        firsts.append(first - start)
        lasts.append(end - start)
        statuses[status] = statuses.get(status, 0) + 1

    def p90(v):
        return sorted(v)[int(0.9 * (len(v) - 1))]
    print("%.3f %.3f %.3f %.3f %d %s" % (statistics.median(firsts) * 1e3, p90(firsts) * 1e3,
                                         statistics.median(lasts) * 1e3, p90(lasts) * 1e3, size,
                                         ",".join("%d:%d" % kv for kv in sorted(statuses.items()))))


if __name__ == "__main__":
    main()
