package dev.kvs.core;

import java.util.List;

/**
 * What a structure write did, as Redis replies need it.
 *
 * @param header the key's header after the write: the one written, or the unchanged one if nothing
 *     changed (then no TxId was taken); {@code null} if the key holds nothing (a tombstone after the
 *     last member was removed is reported as its header)
 * @param written true if the structure changed and a TxId was taken for it
 * @param changed members added by a put, or removed by a remove
 * @param previous per member asked, in order, its value just before its own put or remove ({@code null}
 *     where it had none): a member asked twice has, at its second place, what its first put left;
 *     empty unless the caller asked for previous values
 */
public record MemberWrite(RecordHeader header, boolean written, int changed, List<byte[]> previous) {}
