/**
 * Lua scripting for {@code EVAL} and its kin, and Redis 7's functions for {@code FCALL} (issue 37): the Lua
 * runtime (LuaJ, Lua 5.2, in a sandbox of the libraries Redis gives scripts, {@code cjson} included), the
 * script cache (bounded, by SHA-1), the function libraries ({@code FUNCTION LOAD}: registered in Redis's
 * bare load globals, bounded), Redis's conversions between Lua values and replies, and the state of the
 * one running script or function (how long it has run, whether it wrote, whether {@code SCRIPT KILL} or
 * {@code FUNCTION KILL} stopped it). Here rather than in {@code internal.resp} because none of it is
 * RESP: the port's {@code ScriptCommands} and {@code FunctionCommands} parse the commands, make a run
 * atomic (the EXEC barrier and a write unit) and run its {@code redis.call}s through {@link
 * dev.kvs.server.internal.script.ScriptCalls}, which this package defines so that it never depends on
 * the port.
 */
package dev.kvs.server.internal.script;
