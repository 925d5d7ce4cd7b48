#!/usr/bin/env python3
"""Writes kvs-cluster's golden file of hash slots as a real Redis computes them.

Starts redis-server (cluster mode, in a temporary directory, on a free loopback port), asks it
CLUSTER KEYSLOT for seeded random keys (binary bytes, many braces, empty tags, nested and unclosed
tags), and writes one "hex-of-key slot" line per key. HashSlotsTest reads the file, so the Java code is
checked against Redis itself on every build without needing redis-server there.

usage: scripts/redis-keyslot-golden.py [seed] [count]   (defaults: 33 4096)
"""
import os, random, socket, subprocess, sys, tempfile, time

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 33
count = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
out = os.path.join(os.path.dirname(__file__), "..", "kvs-cluster", "src", "test", "resources",
                   "dev", "kvs", "cluster", "keyslots-redis.txt")

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def key(rnd):
    alphabet = [b"{", b"}", b"a", b"b", b"user", b"1000", b"", b"\x00", b"\xff", b".", b"{}"]
    kind = rnd.randrange(4)
    if kind == 0:  # arbitrary bytes
        return bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 24)))
    parts = [rnd.choice(alphabet) if rnd.random() < 0.7 else bytes([rnd.randrange(256)])
             for _ in range(rnd.randrange(1, 10))]
    return b"".join(parts)

def command(sock, *args):
    req = b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)
    sock.sendall(req)

def read_line(f):
    line = f.readline()
    if not line.endswith(b"\r\n"):
        raise RuntimeError("short reply: %r" % line)
    return line[:-2]

def main():
    port = free_port()
    with tempfile.TemporaryDirectory() as d:
        proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                                 "--cluster-enabled", "yes", "--cluster-config-file",
                                 os.path.join(d, "nodes.conf"), "--dir", d, "--save", "",
                                 "--appendonly", "no"], stdout=subprocess.DEVNULL)
        try:
            for _ in range(100):
                try:
                    sock = socket.create_connection(("127.0.0.1", port)); break
                except OSError:
                    time.sleep(0.05)
            else:
                raise RuntimeError("redis-server did not start")
            f = sock.makefile("rb")
            command(sock, b"INFO", b"server")
            n = int(read_line(f)[1:]); info = f.read(n + 2)
            version = [l for l in info.split(b"\r\n") if l.startswith(b"redis_version:")][0].split(b":")[1]
            rnd = random.Random(seed)
            keys = [b"", b"foo", b"{user1000}.following", b"{user1000}.followers", b"foo{}{bar}",
                    b"foo{{bar}}zap", b"foo{bar}{zap}", b"{}", b"{", b"}", b"123456789"]
            keys += [key(rnd) for _ in range(count - len(keys))]
            lines = []
            for k in keys:
                command(sock, b"CLUSTER", b"KEYSLOT", k)
                reply = read_line(f)
                if not reply.startswith(b":"):
                    raise RuntimeError("unexpected reply %r for %r" % (reply, k))
                lines.append("%s %d" % (k.hex() or "-", int(reply[1:])))
            with open(out, "w") as o:
                o.write("# CLUSTER KEYSLOT of redis-server %s; scripts/redis-keyslot-golden.py %d %d\n"
                        % (version.decode(), seed, count))
                o.write("# hex of the key (- for the empty key), then its slot\n")
                o.write("\n".join(lines) + "\n")
            print("wrote %d keys from redis %s to %s" % (len(lines), version.decode(), os.path.normpath(out)))
        finally:
            proc.terminate(); proc.wait()

main()
