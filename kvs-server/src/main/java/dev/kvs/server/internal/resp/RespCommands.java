package dev.kvs.server.internal.resp;

import java.util.ArrayList;
import java.util.List;

/**
 * The commands one decode of a read yielded, two or more, passed on as one message ({@link
 * RespCommandDecoder#decode}); a read of one command passes the {@link RespCommand} alone.
 *
 * <p>Why not each command on its own: Netty's decoder collects what a decode yields in a list it reuses
 * for the connection's life, so that list is in the old generation, and with G1 every store of a new
 * object into an old one takes the collector's slow barrier (a memory fence, then a card check). One such
 * store a read instead of one a command: that store was 3% of a profile of 16 pipelined SETs of one key
 * (issue 36). The commands are gathered in this list, new with each decode, whose stores take the
 * barrier's fast path.
 */
final class RespCommands extends ArrayList<Object> {
    /** Commands a pipelined read usually holds ({@code redis-benchmark -P 16}); the list grows past it. */
    private static final int USUAL = 16;

    RespCommands() {
        super(USUAL);
    }

    /** Passes what was gathered on to {@code out}: nothing, the one command, or this batch of them. */
    void passOn(List<Object> out) {
        int n = size();
        if (n > 0) out.add(n == 1 ? get(0) : this);
    }

    /** The {@code i}th command. */
    RespCommand command(int i) {
        return (RespCommand) get(i);
    }
}
