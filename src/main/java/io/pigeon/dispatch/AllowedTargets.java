package io.pigeon.dispatch;

import io.pigeon.config.TargetSettings;
import io.pigeon.rules.Rejection;
import io.quarkus.vertx.http.HttpServerStart;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Where Pigeon may send a call (a /v3 target or a subscriber), checked twice: when the target is stored (its
 * name, port and, for an IP literal, its address) and again at connect time on the address the name resolved
 * to, which is then the address connected to (so a name that resolves elsewhere later, DNS rebinding, gains
 * nothing).
 *
 * <ul>
 * <li>{@code pigeon.dispatch.allowed-targets}: host names ({@code *} stands for any run of characters) and
 * CIDRs. When set, a target's host must match a name pattern, or be an IP literal inside a CIDR. Unset, any
 * host name passes this step.</li>
 * <li>Addresses that reach this machine or its private networks (loopback, link-local, private, shared,
 * unique-local, multicast, unspecified, reserved) are refused unless a CIDR of the list covers them: a name
 * pattern alone never opens them.</li>
 * <li>{@code pigeon.dispatch.allowed-ports}: ports and ranges (default 80, 443, 8080, 8443).</li>
 * <li>Pigeon's own HTTP port on any of this machine's addresses is always refused (a call to itself could
 * multiply messages without end).</li>
 * </ul>
 */
@ApplicationScoped
public class AllowedTargets {

    /**
     * A last label that makes a host an IPv4 address to URL parsers, curl and proxies (a number, decimal or 0x hex):
     * they read {@code 0177.0.0.1} as 127.0.0.1 (octal), {@code 127.1} and {@code 2130706433} too, where Java reads
     * 177.0.0.1 or a host name.
     */
    private static final Pattern NUMERIC_LABEL = Pattern.compile("0x[0-9a-f]*|\\d+");

    /** Networks a call never reaches unless a CIDR of the list names them. */
    private static final List<Network> SPECIAL = List.of(
            network("0.0.0.0/8"),
            network("10.0.0.0/8"),
            network("100.64.0.0/10"),
            network("127.0.0.0/8"),
            network("169.254.0.0/16"),
            network("172.16.0.0/12"),
            network("192.0.0.0/24"),
            network("192.0.2.0/24"),
            network("192.168.0.0/16"),
            network("198.18.0.0/15"),
            network("198.51.100.0/24"),
            network("203.0.113.0/24"),
            network("224.0.0.0/4"),
            network("240.0.0.0/4"),
            network("::/96"),
            network("::1/128"),
            network("64:ff9b::/96"),
            network("100::/64"),
            network("2001:db8::/32"),
            network("fc00::/7"),
            network("fe80::/10"),
            network("fec0::/10"),
            network("ff00::/8"),
            // Addresses that carry an IPv4 address inside and reach it through a translator or relay, which may be
            // on the inside: local-use NAT64, IPv4-translated (SIIT), 6to4 and Teredo. Whole, whatever IPv4 they carry.
            network("64:ff9b:1::/48"),
            network("::ffff:0:0:0/96"),
            network("2002::/16"),
            network("2001::/32"));

    record Network(byte[] address, int prefix) {
        boolean contains(byte[] candidate) {
            if (candidate.length != address.length) {
                return false;
            }
            int whole = prefix / 8;
            for (int i = 0; i < whole; i++) {
                if (candidate[i] != address[i]) {
                    return false;
                }
            }
            int rest = prefix % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (candidate[whole] & mask) == (address[whole] & mask);
        }
    }

    private record PortRange(int from, int to) {
        boolean contains(int port) {
            return port >= from && port <= to;
        }
    }

    private final boolean restricted;
    private final List<Pattern> hostPatterns = new ArrayList<>();
    private final List<Network> networks = new ArrayList<>();
    private final List<PortRange> ports = new ArrayList<>();
    private final String described;
    private final String describedPorts;
    private final OwnAddress own;

    public AllowedTargets(DispatchSettings dispatchSettings, OwnAddress own) {
        this.own = own;
        Optional<List<String>> entries = dispatchSettings.allowedTargets();
        restricted = entries.isPresent() && entries.get().stream().anyMatch(entry -> !entry.isBlank());
        described = entries.map(list -> String.join(", ", list)).orElse("");
        for (String entry : entries.orElse(List.of())) {
            String trimmed = entry.trim().toLowerCase(Locale.ROOT);
            if (trimmed.isEmpty()) {
                continue;
            }
            if (trimmed.contains("/")) {
                networks.add(network(trimmed));
            } else {
                hostPatterns.add(Pattern.compile(Pattern.quote(trimmed).replace("*", "\\E.*\\Q")));
            }
        }
        List<String> portEntries = dispatchSettings.allowedPorts();
        describedPorts = String.join(", ", portEntries);
        for (String entry : portEntries) {
            ports.add(portRange(entry.trim()));
        }
    }

    /**
     * Refuses, with 400 naming the field, a target whose host, port or literal address is not allowed. A host
     * name is not resolved here (its address is checked when it is called).
     */
    public void check(String field, URI target) {
        String refusal = refusal(target);
        if (refusal != null) {
            throw Rejection.invalidRequest("\"" + field + "\" " + refusal);
        }
    }

    /** Why a target may not be stored: its name, port or literal address; null when it may. */
    String refusal(URI target) {
        String host = host(target);
        byte[] literal = ipLiteral(host);
        int port = port(target);
        String listed = listRefusal(host, literal, port);
        if (listed != null) {
            return listed;
        }
        if (literal != null) {
            try {
                if (!mayConnect(InetAddress.getByAddress(literal), port)) {
                    return "targets address " + host + ": loopback, private, link-local and other internal addresses "
                            + "(and Pigeon itself) are refused unless a CIDR of pigeon.dispatch.allowed-targets names them.";
                }
            } catch (UnknownHostException e) {
                return "targets an invalid address.";
            }
        }
        return null;
    }

    /**
     * Why a target's host and port are outside the configured lists, or null. Its address is not looked at: at
     * call time that is {@link #choose}'s to check, for the address actually connected to.
     */
    String listRefusal(URI target) {
        String host = host(target);
        return listRefusal(host, ipLiteral(host), port(target));
    }

    private String listRefusal(String host, byte[] literal, int port) {
        if (literal == null && (host.contains(":") || host.contains("%"))) {
            return "targets host \"" + host + "\", which is not an address Pigeon can check (an IPv6 literal with a "
                    + "zone id, or a malformed one): write the address without a zone, or use a host name.";
        }
        if (literal == null && readsAsIpv4(host)) {
            return "targets host \"" + host + "\", which other programs read as an IPv4 address written in another "
                    + "form than four decimal parts of 0 to 255 without leading zeros (0177.0.0.1 is 127.0.0.1 to curl "
                    + "and proxies): write the address plainly.";
        }
        if (restricted
                && hostPatterns.stream()
                        .noneMatch(pattern -> pattern.matcher(host).matches())
                && (literal == null || networks.stream().noneMatch(network -> network.contains(literal)))) {
            return "targets host \"" + host + "\", which is not in pigeon.dispatch.allowed-targets (" + described
                    + ").";
        }
        if (ports.stream().noneMatch(range -> range.contains(port))) {
            return "targets port " + port + ", which is not in pigeon.dispatch.allowed-ports (" + describedPorts + ").";
        }
        return null;
    }

    /**
     * Whether a call may connect to {@code address} (one that the target's host resolved to) on {@code port}.
     * May consult the machine's interfaces: call it off the event loop.
     */
    public boolean mayConnect(InetAddress address, int port) {
        byte[] bytes = address.getAddress();
        boolean listed = networks.stream().anyMatch(network -> network.contains(bytes));
        if (!listed && SPECIAL.stream().anyMatch(network -> network.contains(bytes))) {
            return false;
        }
        return !own.isSelf(address, port);
    }

    /** The first of the resolved addresses a call may connect to, or null when none may. */
    public InetAddress choose(InetAddress[] resolved, int port) {
        for (InetAddress address : resolved) {
            if (mayConnect(address, port)) {
                return address;
            }
        }
        return null;
    }

    /** A host that URL parsers, curl and proxies take for an IPv4 address: its last label is a number. */
    static boolean readsAsIpv4(String host) {
        if (host.contains(":")) {
            return false;
        }
        String name = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        return NUMERIC_LABEL.matcher(name.substring(name.lastIndexOf('.') + 1)).matches();
    }

    static String host(URI target) {
        String host = target.getHost().toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return host;
    }

    static int port(URI target) {
        if (target.getPort() >= 0) {
            return target.getPort();
        }
        return "https".equalsIgnoreCase(target.getScheme()) ? 443 : 80;
    }

    /** The address of an IP literal (never a DNS lookup), or null for a host name. */
    static byte[] ipLiteral(String host) {
        return TargetSettings.ipLiteral(host);
    }

    static Network network(String cidr) {
        TargetSettings.Cidr parsed = TargetSettings.cidr(cidr);
        return new Network(parsed.address(), parsed.prefix());
    }

    private static PortRange portRange(String entry) {
        TargetSettings.Ports parsed = TargetSettings.ports(entry);
        return new PortRange(parsed.from(), parsed.to());
    }

    /** This machine's own HTTP endpoint, which calls may never reach. */
    @ApplicationScoped
    public static class OwnAddress {

        private volatile int port;

        public OwnAddress(@ConfigProperty(name = "quarkus.http.port", defaultValue = "8080") int configuredPort) {
            this.port = configuredPort;
        }

        void started(@Observes HttpServerStart start) {
            int actual = start.options().getPort();
            if (actual > 0) {
                port = actual;
            }
        }

        /** Tests that start the server on a random port set it here too (Quarkus records it as a property). */
        int port() {
            String tested = System.getProperty("quarkus.http.test-port");
            if (tested != null && !tested.equals("0")) {
                try {
                    return Integer.parseInt(tested);
                } catch (NumberFormatException e) {
                    return port;
                }
            }
            return port;
        }

        boolean isSelf(InetAddress address, int targetPort) {
            if (targetPort != port()) {
                return false;
            }
            if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
                return true;
            }
            try {
                return NetworkInterface.getByInetAddress(address) != null;
            } catch (SocketException e) {
                return true;
            }
        }
    }
}
