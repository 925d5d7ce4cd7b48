/**
 * Logging that an attacker or a broken peer cannot turn into a flood: {@link
 * dev.kvs.core.log.ThrottledLog} writes at most one line per interval for one kind of event and counts
 * the rest.
 */
package dev.kvs.core.log;
