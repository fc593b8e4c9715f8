package io.pigeon.dispatch;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The call rate to each target address, per replica: at most {@code perSecond} calls start in any second to one
 * address (a burst of {@code perSecond}, then one every {@code 1/perSecond} s), whichever projects ask for them.
 * The key is the address connected to, not the name in the URL: many names (or subscriptions, or projects) for
 * one receiver share its rate.
 *
 * <p>A call that finds no room is not made: {@link #admit} tells how long it should wait, and those waits are
 * spread one call interval apart per address, so that calls put back come due one by one at the rate, not all
 * together. Each address's state is two times; when many are remembered, those with full room again are forgotten.
 *
 * <p>{@code K} is what a target is known by: an {@link java.net.InetAddress} for calls, a recipient's mail domain for
 * mail ({@link MailDelivery}). The same pacing, over a minute, bounds the mails of each project ({@link MailDelivery}).
 */
final class HostRates<K> {

    /** Addresses remembered at most; past it the idle ones are forgotten first (an idle one has full room anyway). */
    private static final int MAX_REMEMBERED = 10_000;

    private final long intervalNanos;
    private final long burstNanos;
    private final LongSupplier clock;
    private final Map<K, Host> hosts = new HashMap<>();

    /** Per address: the theoretical arrival time of the next call (GCRA), and the end of the waits handed out. */
    private static final class Host {
        long nextAt;
        long waitsUntil;
    }

    HostRates(int perSecond, LongSupplier nanoClock) {
        this(perSecond, 1_000_000_000L, "pigeon.dispatch.max-calls-per-host-per-second", nanoClock);
    }

    /**
     * At most {@code count} calls per {@code periodNanos} to one key (a burst of {@code count}, then one every
     * {@code periodNanos / count}); {@code setting} names the setting {@code count} comes from.
     */
    HostRates(int count, long periodNanos, String setting, LongSupplier nanoClock) {
        if (count < 1) {
            throw new IllegalArgumentException(setting + " must be at least 1");
        }
        this.intervalNanos = periodNanos / count;
        this.burstNanos = intervalNanos * count;
        this.clock = nanoClock;
    }

    /**
     * 0 when a call to {@code address} may start now (and counts it), else the milliseconds it should wait before it
     * is tried again (at least 1).
     */
    synchronized long admit(K address) {
        long now = clock.getAsLong();
        if (hosts.size() >= MAX_REMEMBERED) {
            forgetIdle(now);
        }
        Host host = hosts.computeIfAbsent(address, key -> {
            Host fresh = new Host();
            fresh.nextAt = now;
            fresh.waitsUntil = now;
            return fresh;
        });
        long nextAt = Math.max(host.nextAt, now);
        if (nextAt - now < burstNanos) {
            host.nextAt = nextAt + intervalNanos;
            return 0;
        }
        // Room comes back when nextAt - burst is reached; the calls already told to wait come first.
        long roomAt = nextAt - burstNanos + intervalNanos;
        host.waitsUntil = Math.max(host.waitsUntil, roomAt) + intervalNanos;
        return Math.max(1, (host.waitsUntil - now) / 1_000_000);
    }

    private void forgetIdle(long now) {
        for (Iterator<Host> it = hosts.values().iterator(); it.hasNext(); ) {
            Host host = it.next();
            if (host.nextAt <= now && host.waitsUntil <= now) {
                it.remove();
            }
        }
        if (hosts.size() >= MAX_REMEMBERED) {
            hosts.clear();
        }
    }
}
