/**
 * Lua scripting for {@code EVAL} and its kin (issue 37): the Lua runtime (LuaJ, Lua 5.2, in a sandbox of
 * the libraries Redis gives scripts), the script cache (bounded, by SHA-1), Redis's conversions between
 * Lua values and replies, and the state of the one running script (how long it has run, whether it
 * wrote, whether {@code SCRIPT KILL} stopped it). Here rather than in {@code internal.resp} because
 * none of it is RESP: the port's {@code ScriptCommands} parse the commands, make a script atomic (the
 * EXEC barrier and a write unit) and run its {@code redis.call}s through {@link
 * dev.kvs.server.internal.script.ScriptCalls}, which this package defines so that it never depends on
 * the port.
 */
package dev.kvs.server.internal.script;
