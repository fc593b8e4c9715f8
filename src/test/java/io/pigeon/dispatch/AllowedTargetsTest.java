package io.pigeon.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pigeon.testing.TestConfig;
import java.net.InetAddress;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The outbound-call rules, table-driven, without a server: what is stored and what is connected to. */
class AllowedTargetsTest {

    private static final int OWN_PORT = 8080;

    static AllowedTargets targets(String allowedTargets, String allowedPorts) {
        Map<String, String> values = new HashMap<>();
        if (allowedTargets != null) {
            values.put("pigeon.dispatch.allowed-targets", allowedTargets);
        }
        if (allowedPorts != null) {
            values.put("pigeon.dispatch.allowed-ports", allowedPorts);
        }
        return new AllowedTargets(
                TestConfig.settings(DispatchSettings.class, values), new AllowedTargets.OwnAddress(OWN_PORT));
    }

    @ParameterizedTest(name = "default list: {0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "https://hooks.example.com/x           | allowed",
                "http://hooks.example.com:8443/x       | allowed",
                "http://hooks.example.com:6379/x       | port",
                "http://hooks.example.com:22/x         | port",
                "http://203.0.114.7/x                  | allowed",
                "http://127.0.0.1/x                    | address",
                "http://127.1.2.3:8080/x               | address",
                "http://10.1.2.3/x                     | address",
                "http://172.16.0.1/x                   | address",
                "http://172.31.255.255/x               | address",
                "http://192.168.1.1/x                  | address",
                "http://169.254.169.254/latest         | address",
                "http://100.64.0.1/x                   | address",
                "http://0.0.0.0/x                      | address",
                "http://224.0.0.1/x                    | address",
                "http://255.255.255.255/x              | address",
                "http://[::1]/x                        | address",
                "http://[::]/x                         | address",
                "http://[fd00::1]/x                    | address",
                "http://[fe80::1]/x                    | address",
                "http://[ff02::1]/x                    | address",
                "http://[::ffff:127.0.0.1]/x           | address",
                "http://[::ffff:169.254.169.254]/x     | address",
                "http://[64:ff9b::a9fe:a9fe]/x         | address",
                "http://[2001:4860:4860::8888]/x       | allowed",
                // Addresses that carry an IPv4 address to a translator or relay: local-use NAT64, SIIT, 6to4, Teredo.
                "http://[64:ff9b:1::7f00:1]/x          | address",
                "http://[::ffff:0:7f00:1]/x            | address",
                "http://[2002:7f00:1::]/x              | address",
                "http://[2002:cb00:7207::1]/x          | address",
                "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x | address",
                "http://[2001:1::1]/x                  | allowed",
                // IPv4 written other than plainly: curl and proxies read 0177 as octal, 2130706433 as one number.
                "http://0177.0.0.1/x                   | address",
                "http://1.2.3.04/x                     | address",
                "http://09.1.1.1/x                     | address",
                "http://203.0.114.007/x                | address",
                "http://2130706433/x                   | address",
                "http://0x7f000001/x                   | address",
                "http://017700000001/x                 | address",
                // A zone id makes a literal that no check can read: refused, never taken for a host name.
                "http://[fe80::1%25eth0]/x             | address",
                "http://[::ffff:127.0.0.1%25lo]/x      | address",
                "http://1.2.3.4.example.com/x          | allowed",
                "http://0x.example.com/x               | allowed",
                // A name is not resolved when stored: its address is checked when it is called.
                "http://localhost:8080/x               | allowed",
            })
    void theDefaultsRefuseInternalAddressesAndOddPorts(String target, String expected) {
        String refusal = targets(null, null).refusal(URI.create(target));
        assertEquals(expected, kind(refusal), target + ": " + refusal);
    }

    @ParameterizedTest(name = "list {0}: {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "*.svc.cluster.local               | http://receiver.team.svc.cluster.local/x | allowed",
                "*.svc.cluster.local               | http://evil.example.com/x                | host",
                "*.svc.cluster.local               | http://10.0.0.1/x                        | host",
                "receiver,10.0.0.0/8               | http://10.0.0.1/x                        | allowed",
                "receiver,10.0.0.0/8               | http://11.0.0.1/x                        | host",
                "localhost,127.0.0.0/8             | http://127.0.0.1:9000/x                  | allowed",
                "localhost,127.0.0.0/8             | http://127.0.0.1:8080/x                  | address",
                "localhost,127.0.0.0/8             | http://[::1]/x                           | host",
                "localhost,::1/128                 | http://[::1]/x                           | allowed",
                "localhost,127.0.0.0/8             | http://0177.0.0.1:9000/x                 | address",
                "localhost,127.0.0.0/8             | http://127.000.000.001:9000/x            | address",
            })
    void aListNarrowsHostsAndItsCidrsOpenInternalAddresses(String list, String target, String expected) {
        String refusal = targets(list, "*").refusal(URI.create(target));
        assertEquals(expected, kind(refusal), target + ": " + refusal);
    }

    @Test
    void resolvedAddressesAreCheckedAtConnectTime() throws Exception {
        AllowedTargets defaults = targets(null, null);
        // A public-looking name that resolves inside (DNS rebinding, or an internal record) is not connected to.
        InetAddress[] rebinding = {InetAddress.getByName("169.254.169.254"), InetAddress.getByName("10.0.0.5")};
        assertNull(defaults.choose(rebinding, 80));
        // Of several addresses, an allowed one is chosen, and that is the one connected to.
        InetAddress[] mixed = {InetAddress.getByName("127.0.0.1"), InetAddress.getByName("203.0.114.7")};
        assertEquals(InetAddress.getByName("203.0.114.7"), defaults.choose(mixed, 80));
        // Pigeon itself, on any local address, is refused even where loopback is allowed.
        AllowedTargets local = targets("localhost,127.0.0.0/8", "*");
        assertNull(local.choose(new InetAddress[] {InetAddress.getByName("127.0.0.1")}, OWN_PORT));
        assertNotNull(local.choose(new InetAddress[] {InetAddress.getByName("127.0.0.1")}, OWN_PORT + 1));
    }

    @Test
    void badSettingsStopTheStart() {
        assertThrows(IllegalArgumentException.class, () -> targets("10.0.0.0/33", null));
        assertThrows(IllegalArgumentException.class, () -> targets(null, "0"));
        assertThrows(IllegalArgumentException.class, () -> targets(null, "90-80"));
        assertThrows(IllegalArgumentException.class, () -> targets(null, "http"));
    }

    private static String kind(String refusal) {
        if (refusal == null) {
            return "allowed";
        }
        if (refusal.contains("allowed-ports")) {
            return "port";
        }
        if (refusal.contains("not in pigeon.dispatch.allowed-targets")) {
            return "host";
        }
        return "address";
    }
}
