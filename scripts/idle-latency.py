#!/usr/bin/env python3
"""One client, one SET every interval (open loop: the next SET is due interval after the last one was due,
whatever the reply time): prints p50/p90/p99 round-trip latency in ms. Needs only the standard library.

    scripts/idle-latency.py PORT [count=200] [interval_ms=50] [value_bytes=100]
"""
import socket, sys, time

port = int(sys.argv[1])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
interval = (float(sys.argv[3]) if len(sys.argv) > 3 else 50.0) / 1000
size = int(sys.argv[4]) if len(sys.argv) > 4 else 100

s = socket.create_connection(("127.0.0.1", port))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
value = b"x" * size
lat = []
due = time.perf_counter()
for i in range(count):
    key = b"idle:%d" % (i % 1000)
    req = b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(key), key, len(value), value)
    now = time.perf_counter()
    if now < due:
        time.sleep(due - now)
    t0 = time.perf_counter()
    s.sendall(req)
    buf = b""
    while not buf.endswith(b"\r\n"):
        chunk = s.recv(4096)
        if not chunk:
            sys.exit("connection closed")
        buf += chunk
    lat.append((time.perf_counter() - t0) * 1000)
    if buf != b"+OK\r\n":
        sys.exit("unexpected reply %r" % buf)
    due += interval
lat.sort()
pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
print("p50=%.3f p90=%.3f p99=%.3f ms (%d SETs of %d B, one every %.0f ms)" % (pick(0.5), pick(0.9), pick(0.99), count, size, interval * 1000))
