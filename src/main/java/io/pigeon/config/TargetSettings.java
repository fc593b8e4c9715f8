package io.pigeon.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * The syntax of the target lists ({@code pigeon.dispatch.allowed-targets} and {@code allowed-ports}), in one place:
 * the start-time check ({@link SettingsCheck}) refuses an entry the delivery engine could not read before anything
 * starts, and the delivery engine reads the entries through the same methods.
 */
public final class TargetSettings {

    /** An IPv4 address in its one plain form: four decimal parts of 0 to 255, without leading zeros. */
    private static final Pattern IPV4 =
            Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");

    /** A CIDR of {@code allowed-targets}: the network's address and its prefix length. */
    public record Cidr(byte[] address, int prefix) {}

    /** A range of {@code allowed-ports}, both ends included. */
    public record Ports(int from, int to) {}

    private TargetSettings() {}

    /** The address of an IP literal (IPv4 in its plain form, or IPv6), or null when {@code host} is not one. */
    public static byte[] ipLiteral(String host) {
        if (IPV4.matcher(host).matches()) {
            String[] octets = host.split("\\.");
            byte[] address = new byte[4];
            for (int i = 0; i < 4; i++) {
                address[i] = (byte) Integer.parseInt(octets[i]);
            }
            return address;
        }
        if (!host.contains(":")) {
            return null;
        }
        try {
            // With a colon, this parses an IPv6 literal (an IPv4-mapped one comes back as IPv4); no lookup.
            return InetAddress.getByName(host).getAddress();
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** An entry of {@code allowed-targets} that holds a {@code /}; an {@link IllegalArgumentException} if not a CIDR. */
    public static Cidr cidr(String cidr) {
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
        return new Cidr(address, prefix);
    }

    /** An entry of {@code allowed-ports} (trimmed); an {@link IllegalArgumentException} naming the setting if wrong. */
    public static Ports ports(String entry) {
        try {
            if (entry.equals("*")) {
                return new Ports(1, 65535);
            }
            int dash = entry.indexOf('-');
            Ports range = dash < 0
                    ? new Ports(Integer.parseInt(entry), Integer.parseInt(entry))
                    : new Ports(
                            Integer.parseInt(entry.substring(0, dash)), Integer.parseInt(entry.substring(dash + 1)));
            if (range.from() >= 1 && range.to() <= 65535 && range.from() <= range.to()) {
                return range;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(
                "pigeon.dispatch.allowed-ports: \"" + entry + "\" is not a port (1-65535), a range (8000-8999) or *");
    }
}
