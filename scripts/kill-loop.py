#!/usr/bin/env python3
"""Kills a kvs node with SIGKILL in the middle of its writes, again and again, and checks after each
restart that every acknowledged write is there.

    scripts/kill-loop.py KVS_JAR [rounds] [seed]

Each round starts the node on the same data dir (--data-dir), writes for a random 0.3-1.5 s, then kills
it with SIGKILL while writes are under way. The writes are pipelined batches of 16 over one
connection: SETs of 300 string keys (values of 100-3,000 bytes, so most overwrite a record in place)
and HSETs of fields of 5 hashes (each grows to thousands of fields, so pages split). A batch whose
replies arrived is acknowledged; one cut by the kill is not. After the restart every key and field
must hold its last acknowledged value, or a value of a write sent after it; none may be missing
or fenced. Prints each round and a summary; exits 1 on any loss. Needs python3's redis module.
"""
import os
import random
import signal
import subprocess
import sys
import threading
import time

import redis

PORT = int(os.environ.get("PORT", "16540"))
DIR = os.environ.get("DIR", "target/kill-loop")
STRINGS = 300
HASHES = 5
BATCH = 16


def jvm_flags():
    flags = []
    with open("kvs") as f:
        inside = False
        for line in f:
            if line.startswith("flags=("):
                inside = True
            if inside:
                flags += [w.strip("'\"") for w in line.split() if w.strip("'\"").startswith("--add-")]
                if line.rstrip().endswith(")"):
                    break
    return flags


def start(jar, log):
    node = subprocess.Popen(
        ["java", "-Xmx512m", *jvm_flags(), "-jar", jar, "server", "--port", str(PORT), "--admin-port", "0",
         "--repl-port", "0", "--data-dir", DIR + "/data"],
        stdout=log, stderr=subprocess.STDOUT)
    for _ in range(1200):
        try:
            if redis.Redis(port=PORT, socket_timeout=1).ping():
                return node
        except redis.exceptions.ConnectionError:
            pass
        if node.poll() is not None:
            sys.exit(f"the node exited with {node.returncode}: see {DIR}/node.log")
        time.sleep(0.1)
    sys.exit("the node did not answer PING")


def main():
    jar = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else int(time.time())
    print(f"seed {seed}")
    rnd = random.Random(seed)
    os.makedirs(DIR, exist_ok=True)
    subprocess.run(["rm", "-rf", DIR + "/data"], check=True)
    acked = {}      # (kind, key, field) -> last acknowledged value
    pending = {}    # (kind, key, field) -> values sent after it, not acknowledged
    counter = 0
    lost_total = 0
    with open(DIR + "/node.log", "ab") as log:
        for r in range(1, rounds + 1):
            node = start(jar, log)
            # check what the last kill left
            c = redis.Redis(port=PORT)
            lost = []
            for item, value in acked.items():
                kind, key, field = item
                try:
                    got = c.get(key) if kind == "s" else c.hget(key, field)
                except redis.exceptions.ResponseError as e:
                    lost.append((item, "error " + str(e)))
                    continue
                if got != value and got not in pending.get(item, ()):
                    lost.append((item, f"{len(got) if got else got} bytes, acknowledged {len(value)}"))
            lost_total += len(lost)
            checked = len(acked)
            for item, why in lost[:5]:
                print(f"  LOST {item}: {why}")
            # pending writes are settled by what the node now holds: acknowledge it
            for item in list(pending):
                kind, key, field = item
                got = c.get(key) if kind == "s" else c.hget(key, field)
                if got is not None:
                    acked[item] = got
            pending.clear()
            # write until the kill
            stop = threading.Event()
            killed_after = rnd.uniform(0.3, 1.5)
            threading.Timer(killed_after, lambda: (node.send_signal(signal.SIGKILL), stop.set())).start()
            writes = 0
            try:
                while not stop.is_set():
                    p = c.pipeline(transaction=False)
                    batch = []
                    for _ in range(BATCH):
                        counter += 1
                        if rnd.random() < 0.5:
                            item = ("s", f"s{rnd.randrange(STRINGS)}", None)
                            value = (f"{counter}:" * 4000)[: rnd.randrange(100, 3000)].encode()
                            p.set(item[1], value)
                        else:
                            h = rnd.randrange(HASHES)
                            item = ("h", f"h{h}", f"f{rnd.randrange(20000)}")
                            value = f"v{counter}".encode() * rnd.randrange(1, 8)
                            p.hset(item[1], item[2], value)
                        batch.append((item, value))
                        pending.setdefault(item, []).append(value)
                    p.execute()
                    for item, value in batch:
                        acked[item] = value
                        pending[item].remove(value)
                        if not pending[item]:
                            del pending[item]
                    writes += len(batch)
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                pass
            node.wait()
            print(f"round {r}: {len(lost)} of {checked} keys and fields lost by the kill before;"
                  f" killed after {killed_after:.2f} s and {writes} acknowledged writes")
        node = start(jar, log)
        c = redis.Redis(port=PORT)
        lost = 0
        for item, value in acked.items():
            kind, key, field = item
            try:
                got = c.get(key) if kind == "s" else c.hget(key, field)
            except redis.exceptions.ResponseError:
                got = None
            if got != value and got not in pending.get(item, ()):
                lost += 1
        lost_total += lost
        print(f"after the last kill: {lost} of {len(acked)} lost")
        node.send_signal(signal.SIGTERM)
        node.wait()
    print(f"{rounds} kills, {len(acked)} keys and fields checked after each: {lost_total} lost")
    sys.exit(1 if lost_total else 0)


if __name__ == "__main__":
    main()
