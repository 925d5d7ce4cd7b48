package dev.kvs.core;

/**
 * A hash's, set's or list's members in canonical form, with the header of the record they were read from: what
 * replication ships when it sends a structure whole. Equal contents give equal bytes whatever their
 * history or layout in the store, so two nodes may compare images byte for byte, and {@link
 * KvStore#putImage} rebuilds the structure from them. The format: one format byte (1), then {@code
 * varint(count)}, then each member as {@code varint(length) | bytes | varint(valueLength) | value},
 * sorted by member bytes (unsigned): a list's
 * bounds first, then its elements in order ({@link ListLayout}). The array is not copied.
 *
 * @param header the record's header (a complete structure type); its
 *     TxId names the write the image belongs to
 * @param image the canonical image
 */
public record MembersImage(RecordHeader header, byte[] image) {
    public MembersImage {
        if (header == null) throw new NullPointerException("header == null");
        if (image == null) throw new NullPointerException("image == null");
        if (!header.type().isStructure()) throw new IllegalArgumentException("not a structure: " + header);
    }

    /** The image's CRC32C ({@link Checksums#crc32c}): what a shipped image is checked against. */
    public int checksum() {
        return Checksums.crc32c(image);
    }
}
