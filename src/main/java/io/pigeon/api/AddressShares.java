package io.pigeon.api;

import io.netty.util.NetUtil;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How much of a replica's room one client source may hold at once: its share of connections (HTTP, a gRPC port) or
 * of sockets, so that one source cannot take them all and lock every other client out. A source is an IPv4 address,
 * or an IPv6 /64 (one host is usually given a whole /64, so counting single IPv6 addresses would bound nothing).
 * Counted on the TCP peer, never on a forwarded header a client could write: behind a proxy every client is the
 * proxy's address, which is why a share of 0 turns the count off.
 */
public final class AddressShares {

    /** One place held by a source, given back once by {@link #release()}; a no-op when shares are off. */
    public interface Share {
        void release();
    }

    private static final Share UNCOUNTED = () -> {};

    private final int share;
    private final ConcurrentHashMap<Source, Integer> held = new ConcurrentHashMap<>();

    /** {@code share} places per source at once; 0: unbounded, nothing counted. */
    public AddressShares(int share) {
        if (share < 0) {
            throw new IllegalArgumentException("share " + share + " < 0");
        }
        this.share = share;
    }

    /** Whether sources are counted at all. */
    public boolean counted() {
        return share > 0;
    }

    /**
     * Takes one place for the source of {@code address}; null when it holds its whole share already (or the address
     * is none a TCP peer has, which is refused too: nothing can be counted for it).
     */
    public Share take(SocketAddress address) {
        if (share == 0) {
            return UNCOUNTED;
        }
        Source source = address instanceof InetSocketAddress inet ? Source.of(inet.getAddress()) : null;
        return source == null ? null : take(source);
    }

    /** {@link #take(SocketAddress)} for an address written as an IP literal (as Vert.x gives a peer's). */
    public Share take(String ipLiteral) {
        if (share == 0) {
            return UNCOUNTED;
        }
        InetAddress address = ipLiteral == null ? null : NetUtil.createInetAddressFromIpAddressString(ipLiteral);
        Source source = Source.of(address);
        return source == null ? null : take(source);
    }

    private Share take(Source source) {
        boolean[] taken = {false};
        held.compute(source, (key, count) -> {
            int now = count == null ? 0 : count;
            if (now >= share) {
                return count;
            }
            taken[0] = true;
            return now + 1;
        });
        if (!taken[0]) {
            return null;
        }
        AtomicBoolean released = new AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) {
                held.computeIfPresent(source, (key, count) -> count > 1 ? count - 1 : null);
            }
        };
    }

    /** Places the source of {@code ipLiteral} holds now (for tests and metrics). */
    public int held(String ipLiteral) {
        Source source = Source.of(NetUtil.createInetAddressFromIpAddressString(ipLiteral));
        return source == null ? 0 : held.getOrDefault(source, 0);
    }

    /** Sources holding at least one place. */
    public int sources() {
        return held.size();
    }

    /** An IPv4 address (an IPv4-mapped IPv6 one included), or the first 64 bits of an IPv6 address. */
    private record Source(long bits, boolean v6) {

        static Source of(InetAddress address) {
            if (address instanceof Inet4Address) {
                return new Source(Integer.toUnsignedLong(ipv4(address.getAddress(), 0)), false);
            }
            if (address instanceof Inet6Address) {
                byte[] bytes = address.getAddress();
                if (isMappedIpv4(bytes)) {
                    return new Source(Integer.toUnsignedLong(ipv4(bytes, 12)), false);
                }
                long prefix = 0;
                for (int i = 0; i < 8; i++) {
                    prefix = (prefix << 8) | (bytes[i] & 0xFF);
                }
                return new Source(prefix, true);
            }
            return null;
        }

        private static int ipv4(byte[] bytes, int at) {
            return ((bytes[at] & 0xFF) << 24)
                    | ((bytes[at + 1] & 0xFF) << 16)
                    | ((bytes[at + 2] & 0xFF) << 8)
                    | (bytes[at + 3] & 0xFF);
        }

        private static boolean isMappedIpv4(byte[] bytes) {
            for (int i = 0; i < 10; i++) {
                if (bytes[i] != 0) {
                    return false;
                }
            }
            return bytes[10] == (byte) 0xFF && bytes[11] == (byte) 0xFF;
        }
    }
}
