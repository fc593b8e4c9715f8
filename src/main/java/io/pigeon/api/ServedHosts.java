package io.pigeon.api;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The hosts this Pigeon answers for, whatever the port: a request naming any other ({@code Host}, or an absolute
 * request target) is refused by {@link MisdirectedRequests}. That is what stops DNS rebinding: a page on
 * {@code http://evil.example} whose name the attacker then points at Pigeon's address makes the browser send
 * {@code Host: evil.example}, a name Pigeon does not serve.
 *
 * <p>Always served: {@code localhost}, every IP address, and {@code quarkus.http.host} when it is a name. A name that
 * resolves to loopback by itself, and an address, cannot be pointed elsewhere by an attacker's DNS, so a browser
 * sending them is talking to the address it means; Kubernetes probes ({@code Host: <pod IP>:<port>}) and clients that
 * call a Service's cluster IP are served without a list. Further names come from {@value #SETTING}: exact names,
 * {@code *.example.com} for every name below {@code example.com}, or {@code *} alone for any host (behind an ingress
 * that checks the host itself). Entries are checked when the application starts; a bad one stops it with a line naming
 * the setting.
 */
public final class ServedHosts {

    public static final String SETTING = "pigeon.http.allowed-hosts";

    private final boolean anyHost;
    private final Set<String> names;
    /** {@code .example.com} for the entry {@code *.example.com}. */
    private final List<String> suffixes;

    private ServedHosts(boolean anyHost, Set<String> names, List<String> suffixes) {
        this.anyHost = anyHost;
        this.names = Set.copyOf(names);
        this.suffixes = List.copyOf(suffixes);
    }

    /**
     * The hosts served given the setting's entries and the address HTTP is bound to.
     *
     * @throws IllegalArgumentException naming the setting, for an entry that is not a host name, {@code *.name} or
     *     {@code *} alone
     */
    public static ServedHosts of(Optional<List<String>> configured, String boundHost) {
        Set<String> names = new HashSet<>();
        names.add("localhost");
        Authority.parseHost(boundHost).filter(bound -> !bound.ipLiteral()).ifPresent(bound -> names.add(bound.host()));
        List<String> suffixes = new ArrayList<>();
        AllowListSetting setting = AllowListSetting.of(SETTING, configured, "any host");
        if (setting.any()) {
            return new ServedHosts(true, names, suffixes);
        }
        for (String entry : setting.entries()) {
            boolean wildcard = entry.startsWith("*.");
            Authority host = Authority.parseHost(wildcard ? entry.substring(2) : entry)
                    .filter(read -> !wildcard || !read.ipLiteral())
                    .orElseThrow(() -> new IllegalArgumentException(SETTING + ": '" + ErrorDocument.printable(entry)
                            + "' is not a host name (a name such as queues.example.com, *.example.com for the names"
                            + " below example.com, or * alone; no scheme, port or path)"));
            if (wildcard && !host.host().contains(".")) {
                // *.com or *.localhost would serve every name under a top-level name: DNS rebinding for all of them.
                throw new IllegalArgumentException(SETTING + ": '" + ErrorDocument.printable(entry)
                        + "' covers every name under one label; a wildcard needs at least two labels after the star"
                        + " (*.example.com)");
            }
            if (wildcard) {
                suffixes.add("." + host.host());
            } else {
                names.add(host.host());
            }
        }
        return new ServedHosts(false, names, suffixes);
    }

    /** Whether {@code authority}'s host is one this Pigeon serves (its port is not looked at). */
    public boolean serves(Authority authority) {
        if (anyHost || authority.ipLiteral() || names.contains(authority.host())) {
            return true;
        }
        for (String suffix : suffixes) {
            if (authority.host().endsWith(suffix)) {
                return true;
            }
        }
        return false;
    }
}
