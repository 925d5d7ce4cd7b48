#!/usr/bin/env python3
"""Runs units of Redis's own test suite (tests/ of Redis 7.0.15) against redis-server 7.0.15 and against
a kvs node, and prints, per unit, how many tests pass on each and how many of Redis's passing tests also
pass on kvs.

Both servers are external to the suite (runtest --host/--port), with --singledb --ignore-encoding and
the tags that need what an external server cannot give excluded (replication, DEBUG, maxmemory, SAVE).
A unit stops at its first exception (e.g. an unknown command in a helper); the tests after it count as
not passed. The kvs run skips the tests listed in SKIPS (each with the reason kvs cannot pass it: a
command family it lacks), so that one such test does not stop the unit; they count as not passed.

Usage:
  scripts/redis-suite.py                                  # the default units
  scripts/redis-suite.py --units unit/type/hash,unit/multi
  scripts/redis-suite.py --kvs-port 6380                  # a kvs node already running there

The suite's source comes from Debian's source package of redis 7.0.15 (the version Debian installs),
downloaded once into ~/.cache/kvs/ without root (apt-get source into a private apt state), or from
--tests-dir, a Redis source tree at tag 7.0.15. Needs tclsh (apt-get install tcl), redis-server and
redis-cli on the PATH, and ./kvs (built on first use) unless --kvs-port is given. Logs go to --out
(default a new temporary directory), one file per unit and server, with the list of kvs's failures.
"""

import argparse
from collections import Counter
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERSION = "7.0.15"
DEFAULT_UNITS = [
    "unit/type/string",
    "unit/type/incr",
    "unit/keyspace",
    "unit/expire",
    "unit/type/hash",
    "unit/type/set",
    "unit/multi",
    "unit/protocol",
    "unit/scripting",
    "unit/functions",
    "unit/pubsub",
]
TAGS = "-needs:repl -needs:debug -needs:config-maxmemory -needs:save"
# Tests the kvs run skips (runtest --skipfile), each for what kvs lacks: without the skip, the unit
# stops at the test's first unknown command and every later test counts as failed. A skipped test
# counts as not passed on kvs; the reason is listed with the failures. An entry starting with / is a
# regular expression (runtest's rule), for the tests a loop names (BLPOP, BLMPOP_LEFT, ...).
BLOCKING = "needs the blocking list commands (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP): kvs has no machinery that parks a client until a push"
SORT = "needs SORT: not in kvs yet"
SKIPS = {
    "unit/type/list": [
        ("/^(BLPOP|BRPOP|BLMOVE|BRPOPLPUSH|BLMPOP)", BLOCKING),
        ("/^(Linked LMOVEs|Circular BRPOPLPUSH|Self-referential BRPOPLPUSH|PUSH resulting from BRPOPLPUSH)", BLOCKING),
        ("/^(DEL a list|Regression for bug 593|client unblock tests|SWAPDB .*blocked client)", BLOCKING),
        ("/^MULTI(/EXEC is isolated| \\+ LPUSH \\+ EXPIRE)", BLOCKING),
        ("/LMPOP", "needs LMPOP: not in kvs yet"),
        ("/plain node|Test LSET with packed|^Crash due to", "needs DEBUG quicklist-packed-threshold (plain quicklist nodes)"),
        ("/^Check if list is still ok after a DEBUG RELOAD", "needs DEBUG RELOAD"),
        ("/^List ziplist of various encodings", "needs DUMP/RESTORE"),
    ],
    "unit/pubsub": [
        ("Keyspace notifications: zset events test", "needs sorted sets (ZADD): not in kvs"),
        ("Keyspace notifications: stream events test", "needs streams (XADD): not in kvs"),
    ],
    "unit/keyspace": [
        ("/^COPY basic usage for", "needs OBJECT REFCOUNT (assert_refcount), and sorted sets and streams for four of them"),
    ],
    "unit/type/hash": [
        ("Hash ziplist of various encodings", "sets a 64 KiB field value: kvs takes at most 16 KiB per field"),
        ("Hash ziplist of various encodings - sanitize dump", "needs DUMP/RESTORE"),
    ],
    "unit/type/set": [
        ("SMISMEMBER requires one or more members", "needs sorted sets (ZADD): not in kvs yet"),
    ],
    "unit/protocol": [
        ("Regression for a crash with blocking ops and pipelining", "needs blocking lists (BLPOP, RPUSH)"),
    ],
    "unit/scripting": [
                ("EVAL - Scripts can't run XREAD and XREADGROUP with BLOCK option", "needs streams (XADD): not in kvs"),
        ("EVAL - JSON numeric decoding", "LuaJ prints a fraction as Java does (0.0003 as 3.0E-4), not as Lua 5.1's %.14g"),
        ("SORT is normally not alpha re-ordered for the scripting engine", SORT),
        ("SORT BY <constant> output gets ordered for scripting", SORT),
        ("SORT BY <constant> with GET gets ordered for scripting", SORT),
                ("Script with RESP3 map", "needs RESP3 (HELLO 3) in scripts: issue #37"),
        ("Timedout scripts and unblocked command", BLOCKING),
        ("CLUSTER RESET can not be invoke from within a script", "kvs's CLUSTER has no RESET; in a script it is"
         " refused as any CLUSTER subcommand kvs lacks, with another error"),
        ("Script ACL check", "needs ACL SETUSER: kvs's users come from its settings file"),
        ("not enough good replicas", "needs CONFIG SET min-replicas-to-write: kvs replicates to its backup"
         " in its own modes"),
        ("not enough good replicas state change during long script", "needs CONFIG SET min-replicas-to-write"),
        ("reject script do not cause a Lua stack leak", "needs CONFIG SET maxmemory: kvs takes it from its settings"),
        ("Consistent eval error reporting", "needs CONFIG SET maxmemory: kvs takes it from its settings"),
        ("LUA redis.error_reply API", "needs CONFIG RESETSTAT (and INFO errorstats after it)"),
        ("LUA redis.error_reply API with empty string", "needs CONFIG RESETSTAT (and INFO errorstats after it)"),
        ("LUA redis.status_reply API", "needs CONFIG RESETSTAT (and INFO errorstats after it)"),
        ("LUA test pcall", "needs CONFIG RESETSTAT (and INFO errorstats after it)"),
        ("LUA test pcall with error", "needs CONFIG RESETSTAT (and INFO errorstats after it)"),
        ("LUA test pcall with non string/integer arg", "needs CONFIG RESETSTAT (and INFO errorstats after it)"),
    ],
    "unit/functions": [
        ("/^FUNCTION - test command get keys on fcall", "needs COMMAND GETKEYS: not in kvs"),
    ],
    "unit/multi": [
        ("EXEC fail on WATCHed key modified by SORT with STORE even if the result is empty", SORT),
        ("Blocking commands ignores the timeout", "needs streams and blocking lists (XGROUP, BLPOP)"),
    ],
}
# Units the kvs run takes in part, from a copy of the unit with one line changed (written next to it as
# <unit>.kvs.tcl): the part left out counts as not passed, for the reason given.
PARTS = {
}
ANSI = re.compile(r"\x1b\[[0-9;]*m")
RESULT = re.compile(r"^\[(ok|err|exception|skip|ignore)\]:?\s*(.*?)(?:\s+\(\d+ ms\))?$")
UNIT_TIMEOUT_S = 600


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_ping(port, timeout_s, what):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(64).startswith(b"+PONG"):
                    return
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit(f"redis-suite: {what} on port {port} did not answer PING within {timeout_s} s")


def suite_source(cache):
    """A Redis 7.0.15 source tree with tests/, from Debian's source package, cached."""
    tree = cache / f"redis-{VERSION}"
    if (tree / "tests" / "test_helper.tcl").exists():
        return tree
    cache.mkdir(parents=True, exist_ok=True)
    state = cache / "apt"
    for d in ("lists/partial", "archives/partial"):
        (state / d).mkdir(parents=True, exist_ok=True)
    sources = state / "redis-src.sources"
    sources.write_text(
        "Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\n"
    )
    opts = [
        f"-o Dir::Etc::sourcelist={sources}",
        "-o Dir::Etc::sourceparts=/dev/null",
        f"-o Dir::State={state}",
        f"-o Dir::State::Lists={state / 'lists'}",
        f"-o Dir::Cache={state}",
        "-o Debug::NoLocking=1",
    ]
    print(f"redis-suite: downloading Debian's source of redis {VERSION} into {cache}", file=sys.stderr)
    subprocess.run(" ".join(["apt-get", *opts, "-qq", "update"]), shell=True, check=True)
    subprocess.run(
        " ".join(["apt-get", *opts, "-qq", "source", "--download-only", "redis"]),
        shell=True,
        check=True,
        cwd=cache,
    )
    orig = cache / f"redis_{VERSION}.orig.tar.gz"
    if not orig.exists():
        sys.exit(f"redis-suite: {orig} was not downloaded; give --tests-dir, a Redis {VERSION} source tree")
    subprocess.run(["tar", "xzf", orig.name], cwd=cache, check=True)
    return tree


def prepare(tree):
    """runtest starts src/redis-server and src/redis-cli for some helpers: the installed ones."""
    src = tree / "src"
    src.mkdir(exist_ok=True)
    for tool in ("redis-server", "redis-cli", "redis-benchmark"):
        found = shutil.which(tool)
        if found is None:
            sys.exit(f"redis-suite: {tool} is not on the PATH (apt-get install redis-server redis-tools)")
        link = src / tool
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(found)
    if shutil.which("tclsh") is None:
        sys.exit("redis-suite: tclsh is not on the PATH (apt-get install tcl)")


def run_unit(tree, unit, port, log, skipfile=None):
    cmd = [
        "./runtest", "--host", "127.0.0.1", "--port", str(port), "--singledb", "--ignore-encoding",
        "--tags", TAGS, "--single", unit, "--clients", "1", "--timeout", "60",
    ]
    if skipfile is not None:
        cmd += ["--skipfile", str(skipfile)]
    try:
        out = subprocess.run(
            cmd, cwd=tree, capture_output=True, text=True, errors="replace", timeout=UNIT_TIMEOUT_S
        ).stdout
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        out += f"\n[exception]: unit timed out after {UNIT_TIMEOUT_S} s\n"
    log.write_text(out)
    passed, failed, exception = [], [], None
    for line in out.splitlines():
        m = RESULT.match(ANSI.sub("", line).strip())
        if not m:
            continue
        kind, name = m.groups()
        if kind == "ok":
            passed.append(name)
        elif kind == "err":
            failed.append(name)
        elif kind == "exception" and exception is None:
            exception = name or next_line_after(out, line)
    return passed, failed, exception


def skipped_in(log):
    """The tests a run's log reports skipped (its --skipfile matched them)."""
    names = []
    for line in log.read_text().splitlines():
        m = RESULT.match(ANSI.sub("", line).strip())
        if m and m.group(1) == "skip":
            names.append(m.group(2))
    return names


def skip_reason(name, skips):
    """The reason of the SKIPS entry matching test {name}: an exact name, or a /regex as runtest reads it."""
    for pattern, reason in skips:
        if pattern.startswith("/") and re.search(pattern[1:], name):
            return reason
        if pattern == name:
            return reason
    return None


def next_line_after(out, line):
    lines = out.splitlines()
    i = lines.index(line)
    return ANSI.sub("", lines[i + 1]).strip() if i + 1 < len(lines) else "exception"


def start_redis(workdir):
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no", "--dir", str(workdir)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_ping(port, 20, "redis-server")
    return port, proc


def start_kvs(workdir):
    port, admin, repl = free_port(), free_port(), free_port()
    log = open(workdir / "kvs-node.log", "w")
    proc = subprocess.Popen(
        [str(ROOT / "kvs"), "server", "--name", "redis-suite", "--port", str(port),
         "--admin-port", str(admin), "--repl-port", str(repl)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    wait_for_ping(port, 300, "the kvs node")  # the first ./kvs builds the jar
    return port, proc


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--units", default=",".join(DEFAULT_UNITS), help="comma-separated units")
    p.add_argument("--tests-dir", help=f"a Redis {VERSION} source tree (default: Debian's, cached)")
    p.add_argument("--cache", default=str(Path.home() / ".cache" / "kvs"))
    p.add_argument("--kvs-port", type=int, help="a running kvs node (default: start one)")
    p.add_argument("--out", help="where the logs go (default: a new temporary directory)")
    a = p.parse_args()

    tree = Path(a.tests_dir) if a.tests_dir else suite_source(Path(a.cache))
    prepare(tree)
    out = Path(a.out) if a.out else Path(tempfile.mkdtemp(prefix="kvs-redis-suite-"))
    out.mkdir(parents=True, exist_ok=True)
    units = [u.strip() for u in a.units.split(",") if u.strip()]

    procs = []
    try:
        redis_port, redis = start_redis(out)
        procs.append(redis)
        if a.kvs_port:
            kvs_port = a.kvs_port
        else:
            kvs_port, kvs = start_kvs(out)
            procs.append(kvs)
        rows = []
        for unit in units:
            name = unit.replace("/", "_")
            r_ok, r_err, r_exc = run_unit(tree, unit, redis_port, out / f"{name}.redis.log")
            subprocess.run(["redis-cli", "-p", str(redis_port), "flushall"], capture_output=True)
            skips = SKIPS.get(unit, [])
            skipfile = out / f"{name}.kvs-skips.txt"
            skipfile.write_text("".join(f"{t}\n" for t, _ in skips))
            kvs_unit = unit
            if unit in PARTS:
                old, new, _ = PARTS[unit]
                source = (tree / "tests" / f"{unit}.tcl").read_text()
                (tree / "tests" / f"{unit}.kvs.tcl").write_text(source.replace(old, new, 1))
                kvs_unit = f"{unit}.kvs"
            k_ok, k_err, k_exc = run_unit(tree, kvs_unit, kvs_port, out / f"{name}.kvs.log", skipfile)
            subprocess.run(["redis-cli", "-p", str(kvs_port), "flushall"], capture_output=True)
            both = [t for t in r_ok if t in set(k_ok)]
            missing = [t for t in r_ok if t not in set(k_ok)]
            skipped = set(skipped_in(out / f"{name}.kvs.log"))
            # names repeat within a unit (unit/scripting runs its tests twice): matched as a multiset
            k_left = Counter(k_ok)
            both, missing = [], []
            for t in r_ok:
                if k_left[t] > 0:
                    k_left[t] -= 1
                    both.append(t)
                else:
                    missing.append(t)
            reasons = dict(skips)
            (out / f"{name}.kvs-failures.txt").write_text(
                "".join(
                    f"{t}" + (f"  -- skipped: {skip_reason(t, skips)}" if t in skipped else "") + "\n"
                    for t in missing
                )
                + (f"# stopped at: {k_exc}\n" if k_exc else "")
                + (f"# kvs ran {PARTS[unit][2]}\n" if unit in PARTS else "")
            )
            rows.append((unit, len(r_ok), len(k_ok), len(both), k_exc, r_exc, len(skipped)))
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()

    print(f"Redis {VERSION}'s test suite, tags {TAGS}, --singledb --ignore-encoding")
    print(f"{'unit':<22} {'redis ok':>8} {'kvs ok':>7} {'both':>5} {'share':>6} {'skipped':>7}  kvs stopped at")
    for unit, r, k, both, k_exc, r_exc, skipped in rows:
        share = f"{100 * both / r:.0f}%" if r else "-"
        stop = (k_exc or "")[:70]
        if r_exc:
            stop += f"  (redis stopped too: {r_exc[:40]})"
        print(f"{unit:<22} {r:>8} {k:>7} {both:>5} {share:>6} {skipped:>7}  {stop}")
    print(f"logs and kvs's failures per unit: {out}")


if __name__ == "__main__":
    main()
