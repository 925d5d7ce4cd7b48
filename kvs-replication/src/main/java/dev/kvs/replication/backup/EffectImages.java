package dev.kvs.replication.backup;

import dev.kvs.replication.wire.Frame;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.TreeMap;

/**
 * A structure's canonical image ({@code dev.kvs.core.MembersImage}: format byte 1, {@code varint(count)},
 * then each member {@code varint(length) | bytes | varint(valueLength) | value} sorted by member bytes,
 * unsigned LEB128 lengths) with an {@link Frame.Effect} applied: how a backup turns the image of the
 * effect's base into the image of its TxId, and hands it to {@code KvStore.putImage}, whose one step under
 * the key's lock is what makes the effect atomic and conditional on the base. Reading and rebuilding the
 * image costs O(size) on the backup; what the effect saves is the WAN's bytes.
 */
final class EffectImages {
    private static final byte FORMAT = 1;

    private EffectImages() {}

    /**
     * The image after {@code effect}: its members set (a name repeated: the last value wins), then its
     * removed members removed; or {@code null} if nothing is left (a write that empties a structure ships
     * as its key's delete, never as an effect: the caller asks for the whole value instead).
     *
     * @throws IllegalArgumentException if {@code image} is not an image in that format
     */
    static byte[] apply(byte[] image, Frame.Effect effect) {
        TreeMap<byte[], byte[]> members = decode(image);
        for (Frame.EffectMember m : effect.set()) members.put(m.name(), m.value());
        for (byte[] name : effect.removed()) members.remove(name);
        return members.isEmpty() ? null : encode(members);
    }

    private static TreeMap<byte[], byte[]> decode(byte[] image) {
        if (image.length == 0 || image[0] != FORMAT) throw new IllegalArgumentException("not an image");
        int[] at = {1};
        int count = readVarint(image, at);
        TreeMap<byte[], byte[]> members = new TreeMap<>(Arrays::compareUnsigned);
        for (int i = 0; i < count; i++) {
            byte[] name = readBytes(image, at);
            members.put(name, readBytes(image, at));
        }
        if (at[0] != image.length) throw new IllegalArgumentException("trailing bytes after image's members");
        return members;
    }

    private static byte[] encode(TreeMap<byte[], byte[]> members) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(FORMAT);
        writeVarint(out, members.size());
        members.forEach((name, value) -> {
            writeVarint(out, name.length);
            out.writeBytes(name);
            writeVarint(out, value.length);
            out.writeBytes(value);
        });
        return out.toByteArray();
    }

    private static byte[] readBytes(byte[] b, int[] at) {
        int n = readVarint(b, at);
        if (n < 0 || n > b.length - at[0]) throw new IllegalArgumentException("member outside image at " + at[0]);
        byte[] out = Arrays.copyOfRange(b, at[0], at[0] + n);
        at[0] += n;
        return out;
    }

    private static int readVarint(byte[] b, int[] at) {
        int v = 0;
        for (int shift = 0; ; shift += 7) {
            if (shift > 28 || at[0] >= b.length) throw new IllegalArgumentException("bad varint at " + at[0]);
            byte x = b[at[0]++];
            v |= (x & 0x7F) << shift;
            if (x >= 0) return v;
        }
    }

    private static void writeVarint(ByteArrayOutputStream out, int v) {
        while ((v & ~0x7F) != 0) {
            out.write((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }
}
