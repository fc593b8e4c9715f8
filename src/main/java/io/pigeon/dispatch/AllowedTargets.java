package io.pigeon.dispatch;

import io.pigeon.api.ApiException;
import io.pigeon.config.PigeonConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code pigeon.dispatch.allowed-targets}: the hosts and networks Pigeon may call. A host name matches a
 * pattern ({@code *} stands for any run of characters, so {@code *.example.com} covers its subdomains); an
 * IP literal matches a CIDR. Unset, any target is allowed.
 *
 * <p>Host names are not resolved here: a name is allowed by a name pattern only, so a CIDR never lets a
 * name through whatever it resolves to.
 */
@ApplicationScoped
public class AllowedTargets {

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    private record Network(byte[] address, int prefix) {
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

    private final boolean restricted;
    private final List<Pattern> hostPatterns = new ArrayList<>();
    private final List<Network> networks = new ArrayList<>();
    private final String described;

    public AllowedTargets(PigeonConfig config) {
        Optional<List<String>> entries = config.dispatch().allowedTargets();
        restricted = entries.isPresent() && !entries.get().isEmpty();
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
    }

    /** Refuses a target outside the allowed list with 400, naming the field and the list. */
    public void check(String field, URI target) {
        if (!allows(target)) {
            throw ApiException.invalidRequest("\"" + field + "\" targets host \"" + target.getHost()
                    + "\", which is not in pigeon.dispatch.allowed-targets (" + described + ").");
        }
    }

    public boolean allows(URI target) {
        if (!restricted) {
            return true;
        }
        String host = target.getHost().toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        for (Pattern pattern : hostPatterns) {
            if (pattern.matcher(host).matches()) {
                return true;
            }
        }
        byte[] literal = ipLiteral(host);
        return literal != null && networks.stream().anyMatch(network -> network.contains(literal));
    }

    /** The address of an IP literal (never a DNS lookup), or null for a host name. */
    private static byte[] ipLiteral(String host) {
        if (IPV4.matcher(host).matches()) {
            String[] octets = host.split("\\.");
            byte[] address = new byte[4];
            for (int i = 0; i < 4; i++) {
                int octet = Integer.parseInt(octets[i]);
                if (octet > 255) {
                    return null;
                }
                address[i] = (byte) octet;
            }
            return address;
        }
        if (!host.contains(":")) {
            return null;
        }
        try {
            // With a colon, this parses an IPv6 literal; it never looks a name up.
            return InetAddress.getByName(host).getAddress();
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static Network network(String cidr) {
        String[] parts = cidr.split("/", 2);
        byte[] address = ipLiteral(parts[0]);
        int prefix;
        try {
            prefix = Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            prefix = -1;
        }
        if (address == null || prefix < 0 || prefix > address.length * 8) {
            throw new IllegalArgumentException("pigeon.dispatch.allowed-targets: \"" + cidr + "\" is not a CIDR");
        }
        return new Network(address, prefix);
    }
}
