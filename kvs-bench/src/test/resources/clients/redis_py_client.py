"""redis-py with its defaults against a kvs node (issue 37): PING, strings, pipeline(), Lock, and a
command kvs lacks failing once. Run by kvs-bench's RedisPyClientTest: python3 redis_py_client.py HOST PORT.
Prints one line per check; any failure raises, ending the run with a non-zero status."""
import sys
import time

import redis


def check(name, got, expected):
    if got != expected:
        raise AssertionError(f"{name}: expected {expected!r}, got {got!r}")
    print(f"ok {name}")


def errors(r):
    return r.info("stats")["total_error_replies"]


def main(host, port):
    r = redis.Redis(host=host, port=port)
    print(f"redis-py {redis.__version__}")
    check("ping", r.ping(), True)
    check("set", r.set("py:s", "v"), True)
    check("get", r.get("py:s"), b"v")
    check("get missing", r.get("py:missing"), None)
    check("set nx ex", r.set("py:s", "w", nx=True, ex=100), None)
    check("incr", r.incr("py:n", 5), 5)
    check("mget", r.mget("py:s", "py:missing", "py:n"), [b"v", None, b"5"])

    pipe = r.pipeline()  # transaction=True: MULTI ... EXEC
    pipe.set("py:p", "1").incr("py:p").hset("py:h", mapping={"a": "1", "b": "2"}).hgetall("py:h")
    check("pipeline", pipe.execute(), [True, 2, 2, {b"a": b"1", b"b": b"2"}])
    plain = r.pipeline(transaction=False)
    plain.sadd("py:set", "x", "y").smembers("py:set").get("py:p")
    check("pipeline without transaction", plain.execute(), [2, {b"x", b"y"}, b"2"])

    lock = r.lock("py:lock", timeout=30)  # acquire: SET NX PX; release: a Lua script by EVALSHA
    check("lock acquire", lock.acquire(blocking=False), True)
    check("lock held", r.lock("py:lock").acquire(blocking=False), False)
    check("lock owned", lock.owned(), True)
    lock.extend(10)
    lock.release()
    check("lock released", r.exists("py:lock"), 0)
    check("lock again", r.lock("py:lock", timeout=30).acquire(blocking=False), True)

    before = errors(r)
    started = time.monotonic()
    try:
        r.zadd("py:z", {"m": 1})
        raise AssertionError("zadd: expected an error")
    except redis.exceptions.ResponseError as e:
        check("unknown command error", str(e).startswith("unknown command 'ZADD'"), True)
    check("unknown command answered once", errors(r) - before, 1)
    check("unknown command failed at once", time.monotonic() - started < 2, True)
    check("still serving", r.ping(), True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
