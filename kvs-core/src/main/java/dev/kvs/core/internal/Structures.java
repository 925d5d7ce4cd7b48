package dev.kvs.core.internal;

import dev.kvs.core.ByteKey;
import dev.kvs.core.Member;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.MembersImage;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.WrongTypeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

/**
 * The hash and set operations of {@link ChronicleKvStore}: a structure's record (in {@link
 * RecordMaps}) holds its {@link MembersHeader}, its members live in {@link MemberPages}, and this class
 * keeps the two and {@link Capacity} in step. Kept apart from the store so the store stays about
 * locking and strings.
 *
 * <p>Every method expects the caller to hold the key's stripe and to pass the key's current record
 * header ({@code null} if absent or hidden by a flush). A write reserves an upper bound of its growth
 * first (so a full store refuses it with nothing written), writes the pages, takes its TxId, writes the
 * record, and settles the reservation to the actual change. If a page or record write fails midway, the
 * members already written are put back as they were, so the structure is as before the call.
 *
 * <p>A crash (kill -9) between the page writes and the record write loses no member: the record is
 * the commit point and splits and merges keep every member readable under the header before it and
 * the one after it ({@link MemberPages}); the next open repairs the headers and pages ({@link
 * #repairAfterCrash}). Not done: such a write of several members may be found partly done, under the
 * TxId of the write before it (a write's members would need an intent record written before its pages
 * to be all or none).
 */
final class Structures {
    /** Stored pages one put can add: the page it lands in and one split. */
    private static final int PAGES_PER_PUT = 2;

    private static final Runnable NOTHING = () -> {};

    private final RecordMaps records;
    private final MemberPages pages;
    private final Capacity capacity;
    private final ExpiryIndex expiry;

    Structures(RecordMaps records, MemberPages pages, Capacity capacity, ExpiryIndex expiry) {
        this.records = records;
        this.pages = pages;
        this.capacity = capacity;
        this.expiry = expiry;
    }

    /**
     * After a crash (the data dir was not closed cleanly), before the store counts its room: makes each
     * complete structure whole from its pages below pageCount and writes its record again if its header
     * was behind them ({@link MemberPages#repair}: copies left by a split or merge cut short dropped;
     * count, bytes and digest of a write cut short between its pages and its record recounted; one left
     * with no member becomes a tombstone of the same TxId; one with a torn page, {@link
     * dev.kvs.core.RecordState#LOST}, fenced, and {@code fencedKeys} told), then removes every page no record covers.
     * A write cut short keeps the changes to members it made before its record: a write of several
     * members may so be found partly done, under the TxId of the write before it. Returns what it did.
     */
    Repaired repairAfterCrash(BiConsumer<byte[], Record> fencedKeys) {
        long[] rewritten = {0};
        long[] fenced = {0};
        records.forEachKey(key -> {
            Record r = records.header(key);
            if (r == null || r.members == null) return;
            MembersHeader h = pages.repair(key, r.members);
            if (h == null) { // a torn page: what the structure held is not known, so its key is fenced
                Record lost = r.fenced();
                records.put(key, lost);
                fencedKeys.accept(key, lost);
                rewritten[0]++;
                fenced[0]++;
                return;
            }
            if (h.equals(r.members)) return;
            Record next = h.isEmpty()
                    ? Record.inline(StoredValue.tombstone(r.header().txId()))
                    : Record.structure(r.header(), h);
            records.put(key, next);
            rewritten[0]++;
        });
        long dropped = pages.dropPages((key, page) -> {
            Record r = records.header(key);
            return r != null && r.members != null && page < r.members.pageCount();
        });
        return new Repaired(rewritten[0], dropped, fenced[0]);
    }

    /**
     * What {@link #repairAfterCrash} did: records rewritten, pages removed, and of those records the
     * structures fenced ({@link dev.kvs.core.RecordState#LOST}) for a torn page.
     */
    record Repaired(long records, long pages, long fenced) {}

    /**
     * The members header of {@code old} if it is a {@code type}; {@link MembersHeader#EMPTY} if the key
     * holds nothing (absent or a tombstone).
     *
     * @throws WrongTypeException if the key holds another type
     * @throws IllegalStateException if it holds a {@code type} whose members have not arrived or are lost
     */
    static MembersHeader membersOf(Record old, ValueType type) {
        if (old == null || !old.isLive()) return MembersHeader.EMPTY;
        if (old.type != type) throw new WrongTypeException(type, old.type);
        if (old.members == null) {
            throw new IllegalStateException("the " + type + "'s record is " + old.state + ": its members are unknown");
        }
        return old.members;
    }

    /** {@link dev.kvs.core.KvStore#membersFingerprint}: 0 unless {@code old} is a complete structure. */
    static int fingerprint(Record old) {
        if (old == null || old.state != RecordState.COMPLETE || old.members == null) return 0;
        return fingerprint(old.members.digest());
    }

    /** A structure's digest folded to the 32 bits of {@link dev.kvs.core.KvStore#membersFingerprint}. */
    static int fingerprint(long digest) {
        return (int) (digest ^ (digest >>> 32));
    }

    /** {@link MemberPages#holdsAll}: whether every member has its value, marking in {@code seen} where each was found. */
    boolean holdsAll(byte[] key, MembersHeader h, List<Member> members, Object[] seen) {
        return pages.holdsAll(key, h, members, seen);
    }

    MemberWrite put(
            byte[] key, Record old, ValueType type, List<Member> members, boolean wantPrevious, Supplier<TxId> txId) {
        return put(key, old, type, members, wantPrevious, null, txId);
    }

    /** {@link #put}, skipping each member {@code seen} marks, as found by {@link #holdsAll}, if its page is unchanged since. */
    MemberWrite put(
            byte[] key,
            Record old,
            ValueType type,
            List<Member> members,
            boolean wantPrevious,
            Object[] seen,
            Supplier<TxId> txId) {
        requireStructure(type);
        MembersHeader h0 = membersOf(old, type);
        boolean live = old != null && old.isLive();
        long growth = (live ? 0 : MembersHeader.BYTES) + growthOf(key, members);
        Delta reserved = new Delta(old == null ? 1 : 0, live ? 0 : 1, old == null ? key.length : 0, growth);
        return putReserved(
                key, old, type, h0, members, wantPrevious, seen, txId, new LazyReservation(capacity, reserved));
    }

    /**
     * Room reserved by the first page write that needs it ({@link MemberPages#put}'s {@code beforeWrite}),
     * so a put that changes nothing (HSET of the value a field has, SADD of a member there) touches no
     * shared counter of {@link Capacity}, which every writing thread updates; a full store still refuses
     * before any page is written.
     */
    private static final class LazyReservation implements Runnable {
        private final Capacity capacity;
        private final Delta delta;
        private boolean taken;

        LazyReservation(Capacity capacity, Delta delta) {
            this.capacity = capacity;
            this.delta = delta;
        }

        @Override
        public void run() {
            if (taken) return;
            capacity.reserve(delta);
            taken = true;
        }

        /** What is reserved now: the delta once a page write took it, else nothing. */
        Delta held() {
            return taken ? delta : Delta.NONE;
        }
    }

    /** {@link #put} reserving its room as {@code reserved} says: settled to the actual change, or given back. */
    private MemberWrite putReserved(
            byte[] key,
            Record old,
            ValueType type,
            MembersHeader h0,
            List<Member> members,
            boolean wantPrevious,
            Object[] seen,
            Supplier<TxId> txId,
            LazyReservation reserved) {
        boolean live = old != null && old.isLive();
        List<Undo> done = new ArrayList<>(members.size());
        MemberPages.Pending pending = new MemberPages.Pending();
        MembersHeader h = h0;
        int added = 0;
        try {
            for (int i = 0; i < members.size(); i++) {
                Member m = members.get(i);
                MemberPages.Write w =
                        pages.put(key, h, m.name(), m.value(), true, reserved, pending, seen == null ? null : seen[i]);
                done.add(new Undo(
                        m.name(), w.existed() ? w.previous() : null, !w.header().equals(h)));
                if (!w.existed()) added++;
                h = w.header();
            }
            if (h.equals(h0)) {
                capacity.cancel(reserved.held());
                return new MemberWrite(headerOf(old), false, 0, previous(done, wantPrevious));
            }
            long expireAt = live ? old.expireAt : RecordHeader.NO_EXPIRY;
            RecordHeader header = RecordHeader.structure(RecordState.COMPLETE, txId.get(), type, expireAt);
            writeRecord(key, old, Record.structure(header, h), reserved.held());
            pages.settle(key, h, pending);
            return new MemberWrite(header, true, added, previous(done, wantPrevious));
        } catch (RuntimeException e) {
            rollBack(key, old, h, done, reserved.held(), pending, e);
            throw e;
        }
    }

    MemberWrite update(
            byte[] key, Record old, ValueType type, byte[] name, UnaryOperator<byte[]> fn, Supplier<TxId> txId) {
        MembersHeader h0 = membersOf(old, type);
        byte[] current = h0.isEmpty() ? null : pages.get(key, h0, name);
        byte[] next = fn.apply(current);
        if (next == null || (current != null && Arrays.equals(current, next))) {
            return new MemberWrite(headerOf(old), false, 0, Collections.singletonList(current));
        }
        return put(key, old, type, List.of(new Member(name, next)), true, txId);
    }

    MemberWrite remove(
            byte[] key, Record old, ValueType type, List<byte[]> names, boolean wantPrevious, Supplier<TxId> txId) {
        requireStructure(type);
        MembersHeader h0 = membersOf(old, type);
        List<Undo> done = new ArrayList<>(names.size());
        if (h0.isEmpty()) {
            for (byte[] name : names) done.add(new Undo(name, null, false));
            return new MemberWrite(headerOf(old), false, 0, previous(done, wantPrevious));
        }
        MemberPages.Pending pending = new MemberPages.Pending();
        MembersHeader h = h0;
        int removed = 0;
        try {
            for (byte[] name : names) {
                MemberPages.Write w = pages.remove(key, h, name, true, pending);
                done.add(new Undo(name, w.previous(), w.existed()));
                if (w.existed()) removed++;
                h = w.header();
            }
            if (removed == 0) return new MemberWrite(headerOf(old), false, 0, previous(done, wantPrevious));
            TxId tx = txId.get();
            // the last member gone: the key is deleted, ordered like any delete by a tombstone
            Record next = h.isEmpty()
                    ? Record.inline(StoredValue.tombstone(tx))
                    : Record.structure(RecordHeader.structure(RecordState.COMPLETE, tx, type, old.expireAt), h);
            writeRecord(key, old, next, Delta.NONE);
            pages.settle(key, h, pending);
            return new MemberWrite(next.header(), true, removed, previous(done, wantPrevious));
        } catch (RuntimeException e) {
            rollBack(key, old, h, done, Delta.NONE, pending, e);
            throw e;
        }
    }

    /**
     * Removes {@code names}, then puts {@code members}, as one write with one TxId (see {@link
     * dev.kvs.core.StructureChange#edit}): room reserved as for {@link #put}, every member changed put
     * back if a page or record write fails.
     */
    MemberWrite edit(
            byte[] key, Record old, ValueType type, List<byte[]> names, List<Member> members, Supplier<TxId> txId) {
        requireStructure(type);
        MembersHeader h0 = membersOf(old, type);
        boolean live = old != null && old.isLive();
        long growth = (live ? 0 : MembersHeader.BYTES) + growthOf(key, members);
        Delta reserved = new Delta(old == null ? 1 : 0, live ? 0 : 1, old == null ? key.length : 0, growth);
        capacity.reserve(reserved);
        List<Undo> done = new ArrayList<>(names.size() + members.size());
        MemberPages.Pending pending = new MemberPages.Pending();
        MembersHeader h = h0;
        int changed = 0;
        try {
            for (byte[] name : names) {
                if (h.isEmpty()) break;
                MemberPages.Write w = pages.remove(key, h, name, true, pending);
                done.add(new Undo(name, w.previous(), w.existed()));
                if (w.existed()) changed++;
                h = w.header();
            }
            for (Member m : members) {
                MemberPages.Write w = pages.put(key, h, m.name(), m.value(), true, NOTHING, pending, null);
                done.add(new Undo(
                        m.name(), w.existed() ? w.previous() : null, !w.header().equals(h)));
                if (!w.existed()) changed++;
                h = w.header();
            }
            if (h.equals(h0)) {
                capacity.cancel(reserved);
                return new MemberWrite(headerOf(old), false, 0, List.of());
            }
            TxId tx = txId.get();
            long expireAt = live ? old.expireAt : RecordHeader.NO_EXPIRY;
            Record next = h.isEmpty()
                    ? Record.inline(StoredValue.tombstone(tx))
                    : Record.structure(RecordHeader.structure(RecordState.COMPLETE, tx, type, expireAt), h);
            writeRecord(key, old, next, reserved);
            pages.settle(key, h, pending);
            return new MemberWrite(next.header(), true, changed, List.of());
        } catch (RuntimeException e) {
            rollBack(key, old, h, done, reserved, pending, e);
            throw e;
        }
    }

    List<Member> pop(byte[] key, Record old, ValueType type, int count, RandomGenerator random, Supplier<TxId> txId) {
        MembersHeader h0 = membersOf(old, type);
        // while more than two members are left, random() draws one member with pages.random: popEach makes
        // the same draws, one at a time, as that many SPOPs without a count would
        if (count >= 1 && h0.count() > (long) count + 1) return popEach(key, old, type, h0, count, random, txId);
        List<Member> picked = random(key, old, type, count, true, random);
        if (picked.isEmpty()) return picked;
        List<byte[]> names = new ArrayList<>(picked.size());
        for (Member m : picked) names.add(m.name());
        remove(key, old, type, names, false, txId);
        return picked;
    }

    /**
     * SPOP of {@code count} members of a structure that keeps more than one: each member picked and
     * removed in one lookup of its page ({@link MemberPages#pop}), where {@link #random} then {@link
     * #remove} read each page twice; one TxId and one record written for all, as {@link #remove} writes
     * them. A pipelined run of SPOPs is one such pop.
     */
    private List<Member> popEach(
            byte[] key,
            Record old,
            ValueType type,
            MembersHeader h0,
            int count,
            RandomGenerator random,
            Supplier<TxId> txId) {
        requireStructure(type);
        List<Member> popped = new ArrayList<>(count);
        List<Undo> done = new ArrayList<>(count);
        MemberPages.Pending pending = new MemberPages.Pending();
        MembersHeader h = h0;
        try {
            for (int i = 0; i < count; i++) {
                MemberPages.Popped p = pages.pop(key, h, random, pending);
                done.add(new Undo(p.member().name(), p.member().value(), true));
                popped.add(convert(p.member()));
                h = p.header();
            }
            TxId tx = txId.get();
            Record next = h.isEmpty()
                    ? Record.inline(StoredValue.tombstone(tx))
                    : Record.structure(RecordHeader.structure(RecordState.COMPLETE, tx, type, old.expireAt), h);
            writeRecord(key, old, next, Delta.NONE);
            pages.settle(key, h, pending);
        } catch (RuntimeException e) {
            rollBack(key, old, h, done, Delta.NONE, pending, e);
            throw e;
        }
        return popped;
    }

    List<byte[]> get(byte[] key, Record old, ValueType type, List<byte[]> names) {
        MembersHeader h = membersOf(old, type);
        List<byte[]> out = new ArrayList<>(names.size());
        for (byte[] name : names) out.add(h.isEmpty() ? null : pages.get(key, h, name));
        return out;
    }

    long count(Record old, ValueType type) {
        return membersOf(old, type).count();
    }

    long scan(byte[] key, Record old, ValueType type, long cursor, int count, BiConsumer<byte[], byte[]> visitor) {
        return pages.scan(key, membersOf(old, type), cursor, count, visitor);
    }

    List<Member> all(byte[] key, Record old, ValueType type) {
        MembersHeader h = membersOf(old, type);
        List<Member> out = new ArrayList<>((int) Math.min(h.count(), 1 << 20));
        pages.forEach(key, h, (name, value) -> out.add(new Member(name, value)));
        return out;
    }

    /**
     * {@code count} members picked at random: with repeats unless {@code distinct}; a distinct pick of
     * at least half the structure shuffles all of it, a smaller one draws until it has enough.
     */
    List<Member> random(byte[] key, Record old, ValueType type, int count, boolean distinct, RandomGenerator random) {
        if (count < 0) throw new IllegalArgumentException("count < 0: " + count);
        MembersHeader h = membersOf(old, type);
        if (h.isEmpty() || count == 0) return List.of();
        if (distinct && 2L * count >= h.count()) {
            List<Member> all = all(key, old, type);
            for (int i = all.size() - 1; i > 0; i--) Collections.swap(all, i, random.nextInt(i + 1));
            return all.subList(0, Math.min(count, all.size()));
        }
        if (!distinct) {
            List<Member> out = new ArrayList<>(count);
            for (int i = 0; i < count; i++) out.add(convert(pages.random(key, h, random)));
            return out;
        }
        Map<ByteKey, Member> picked = new LinkedHashMap<>();
        while (picked.size() < count) {
            Member m = convert(pages.random(key, h, random));
            picked.putIfAbsent(new ByteKey(m.name()), m);
        }
        return new ArrayList<>(picked.values());
    }

    /**
     * Rewrites {@code old}'s TxId and expiry to those of {@code fn}'s header, its value, blob or members
     * kept: for EXPIRE and PERSIST on a key of any type, without reading or copying its value.
     *
     * @return the header written, or {@code old}'s if {@code fn} returned null or the same header
     */
    RecordHeader restamp(byte[] key, Record old, UnaryOperator<RecordHeader> fn) {
        RecordHeader before = headerOf(old);
        RecordHeader after = fn.apply(before);
        if (after == null || after.equals(before)) return before;
        if (before == null
                || !after.withTxId(before.txId())
                        .withExpireAt(before.expireAtMillis())
                        .equals(before)) {
            throw new IllegalArgumentException("header " + after + " changes more than TxId and expiry of " + before);
        }
        Record full = old.isChunked() || old.isStructure() ? old : records.get(key);
        records.put(key, full.restamped(after.txId(), after.expireAtMillis()));
        expiry.remove(key, old.expireAt);
        expiry.add(key, after.expireAtMillis());
        return after;
    }

    // -- a key's whole content replaced: the *STORE commands (KvStore#updateStructures)

    /**
     * Makes {@code key} a {@code type} of exactly {@code members}, whatever {@code old} held (see {@link
     * dev.kvs.core.StructureChange#replace}). Room for the members is reserved as if the key were new
     * before {@code writer} frees the old record with its pages or chunks, so a full store refuses with
     * nothing changed; a page write failing after that leaves the key deleted.
     */
    MemberWrite replace(
            byte[] key, Record old, ValueType type, List<Member> members, Supplier<TxId> txId, RecordWriter writer) {
        requireStructure(type);
        if (members.isEmpty()) {
            if (old == null || !old.isLive()) return new MemberWrite(headerOf(old), false, 0, List.of());
            StoredValue tombstone = StoredValue.tombstone(txId.get());
            writer.put(key, tombstone);
            return new MemberWrite(tombstone.header(), true, 0, List.of());
        }
        Delta reserved = new Delta(1, 1, key.length, MembersHeader.BYTES + growthOf(key, members));
        capacity.reserve(reserved);
        try {
            writer.remove(key, old);
        } catch (RuntimeException e) {
            capacity.cancel(reserved);
            throw e;
        }
        LazyReservation taken = new LazyReservation(capacity, reserved);
        taken.taken = true; // above: before the old record is freed
        return putReserved(key, null, type, MembersHeader.EMPTY, members, false, null, txId, taken);
    }

    /** The image of {@code old}'s members with its header, or null if it is no complete structure. */
    MembersImage image(byte[] key, Record old) {
        if (old == null || !old.isStructure() || old.members == null) return null;
        return new MembersImage(old.header(), pages.image(key, old.members));
    }

    /**
     * Replaces {@code old} with the structure of {@code image} if {@code decide} returns a header for it
     * (see {@link dev.kvs.core.KvStore#putImage}).
     */
    boolean putImage(
            byte[] key, Record old, byte[] image, Function<RecordHeader, RecordHeader> decide, RecordWriter writer) {
        RecordHeader header = decide.apply(headerOf(old));
        if (header == null) return false;
        if (!header.type().isStructure() || header.state() != RecordState.COMPLETE) {
            throw new IllegalArgumentException("not a complete structure's header: " + header);
        }
        int count = StructureImage.decodeCount(image); // a corrupt image is refused before anything changes
        long pagesNeeded = MemberPages.pagesFor(count, image.length) + 2;
        long room = MembersHeader.BYTES + image.length + pagesNeeded * pageOverhead(key);
        writer.replaceWithStructure(key, old, header, room, () -> pages.build(key, image));
        return true;
    }

    /**
     * Writes {@code from}'s members (the source's record, a complete structure) as {@code dst}'s, with
     * {@code header}, replacing {@code to} ({@code dst}'s record, or null): both stripes held. A member
     * lives in the page its hash names whatever the key, so the copy is page by page and the members
     * header is the source's. {@code to}'s pages are overwritten or removed here; a chunked value's blob
     * is left to the caller to free once this returns. Room is reserved first: a full store refuses
     * with nothing written. If a page write fails midway, the pages written are removed again, and a
     * structure that was at {@code dst} (its pages partly overwritten) is removed with its record.
     *
     * @throws IllegalArgumentException if {@code from} is not a complete structure of {@code header}'s type
     */
    void copy(byte[] src, Record from, byte[] dst, Record to, RecordHeader header) {
        if (from == null || !from.isLive() || from.members == null || from.type != header.type()) {
            throw new IllegalArgumentException(
                    "the source is not a complete " + header.type() + ": " + (from == null ? null : from.header()));
        }
        MembersHeader members = from.members;
        Delta reserved = Delta.ofLive(
                dst.length,
                to != null,
                to != null && to.isLive(),
                to == null ? 0 : to.storedValueBytes(dst.length),
                MembersHeader.BYTES + members.footprint(dst.length));
        capacity.reserve(reserved);
        int oldPages = to != null && to.members != null ? to.members.pageCount() : 0;
        int written = 0;
        try {
            for (; written < members.pageCount(); written++) {
                pages.store(dst, written, pages.readOwn(src, written, members.pageCount()));
            }
            for (int p = members.pageCount(); p < oldPages; p++) pages.store(dst, p, MemberPage.EMPTY);
            records.put(dst, Record.structure(header, members));
        } catch (RuntimeException e) {
            undoCopy(dst, to, Math.max(written, oldPages), reserved, e);
            throw e;
        }
        capacity.commit(reserved);
        if (to != null) expiry.remove(dst, to.expireAt);
        expiry.add(dst, header.expireAtMillis());
    }

    private void undoCopy(byte[] dst, Record to, int pageCount, Delta reserved, RuntimeException cause) {
        try {
            for (int p = 0; p < pageCount; p++) pages.store(dst, p, MemberPage.EMPTY);
            if (to != null && to.members != null) {
                records.remove(dst);
                expiry.remove(dst, to.expireAt);
                capacity.commit(Delta.of(dst.length, true, to.isLive(), to.storedValueBytes(dst.length), null));
            }
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        } finally {
            capacity.cancel(reserved);
        }
    }

    /**
     * Frees the pages of a structure whose record was replaced or removed (stripe held). O(pages) under
     * the key's lock; a very large structure should later be unlinked at once and swept page by page
     * by a background task, like the tombstone sweep.
     */
    void release(byte[] key, Record old) {
        if (old != null && old.members != null) pages.deleteAll(key, old.members);
    }

    private void writeRecord(byte[] key, Record old, Record next, Delta reserved) {
        records.put(key, next);
        Delta actual = new Delta(
                reserved.entries(),
                (next.isLive() ? 1 : 0) - (old != null && old.isLive() ? 1 : 0),
                reserved.keyBytes(),
                next.storedValueBytes(key.length) - (old == null ? 0 : old.storedValueBytes(key.length)));
        capacity.settle(reserved, actual);
        if (old != null) expiry.remove(key, old.expireAt);
        expiry.add(key, next.expireAt);
    }

    /**
     * Puts back the members {@code done} changed, last first, and gives back the reservation. Undoing a
     * split does not merge it back, so the structure may end with more pages than {@code old} said:
     * then {@code old} is written again with the header of the pages as they are (same TxId and
     * members, its room counted).
     */
    private void rollBack(
            byte[] key,
            Record old,
            MembersHeader h,
            List<Undo> done,
            Delta reserved,
            MemberPages.Pending pending,
            RuntimeException cause) {
        try {
            for (int i = done.size() - 1; i >= 0; i--) {
                Undo u = done.get(i);
                if (!u.changed) continue;
                h = u.previous == null
                        ? pages.remove(key, h, u.name, false, pending).header()
                        : pages.put(key, h, u.name, u.previous, false, NOTHING, pending, null)
                                .header();
            }
            MembersHeader was = old == null || old.members == null ? MembersHeader.EMPTY : old.members;
            if (!h.equals(was) && old != null && old.members != null) {
                Record again = Record.structure(old.header(), h);
                records.put(key, again);
                capacity.commit(
                        new Delta(0, 0, 0, again.storedValueBytes(key.length) - old.storedValueBytes(key.length)));
            }
            pages.settle(key, h, pending);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        } finally {
            capacity.cancel(reserved);
        }
    }

    /** An upper bound of the room {@code members} take when put; checks each one's size. */
    private static long growthOf(byte[] key, List<Member> members) {
        long growth = 0;
        for (Member m : members) {
            MemberPages.checkSize(m.name().length, m.value().length);
            growth +=
                    MemberPage.entrySize(m.name().length, m.value().length) + (long) PAGES_PER_PUT * pageOverhead(key);
        }
        return growth;
    }

    private static List<byte[]> previous(List<Undo> done, boolean wanted) {
        if (!wanted) return List.of();
        List<byte[]> out = new ArrayList<>(done.size());
        for (Undo u : done) out.add(u.previous);
        return Collections.unmodifiableList(out);
    }

    private static RecordHeader headerOf(Record r) {
        return r == null ? null : r.header();
    }

    private static int pageOverhead(byte[] key) {
        return key.length + MemberPages.PAGE_KEY_EXTRA + MembersHeader.PAGE_OVERHEAD;
    }

    private static Member convert(MemberPages.Member m) {
        return new Member(m.name(), m.value());
    }

    private static void requireStructure(ValueType type) {
        if (!Objects.requireNonNull(type, "type == null").isStructure()) {
            throw new IllegalArgumentException("not a structure type: " + type);
        }
    }

    /** A member a write met: its value before ({@code null}: absent) and whether the write changed it. */
    private record Undo(byte[] name, byte[] previous, boolean changed) {}
}
