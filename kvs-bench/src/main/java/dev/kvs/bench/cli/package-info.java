/**
 * {@code kvs wan}, the WAN link emulator as a command, and what the drill and benchmark commands
 * share on the command line: the {@code --delay-ms} option and the progress line on stderr.
 */
package dev.kvs.bench.cli;
