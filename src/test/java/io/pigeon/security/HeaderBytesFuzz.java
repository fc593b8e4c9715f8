package io.pigeon.security;

import io.pigeon.testing.RawHttp;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The fuzz shared by both auth modes: every protected endpoint, in a random spelling of its path, with a
 * project id (and sometimes other headers) holding bytes that no valid request has: control characters, DEL,
 * bytes above 0x7f, separators. Each request is invalid, so none may be served, none may answer 5xx, and every
 * refusal from Pigeon carries the error document.
 */
final class HeaderBytesFuzz {

    /** A request and what came back. */
    record Probe(String description, RawHttp.Answer answer) {}

    private final Random random;
    private final int port;

    HeaderBytesFuzz(long seed, int port) {
        this.random = new Random(seed);
        this.port = port;
    }

    /** Bytes that are never valid in a project id, as ISO-8859-1 characters (CR and LF excluded: they end a line). */
    private String badBytes() {
        StringBuilder bad = new StringBuilder();
        int count = 1 + random.nextInt(4);
        for (int i = 0; i < count; i++) {
            int b;
            do {
                b = random.nextBoolean() ? random.nextInt(0x20) : 0x7f + random.nextInt(0x81);
            } while (b == '\r' || b == '\n');
            bad.append((char) b);
        }
        return bad.toString();
    }

    private String project(String base) {
        String bad = badBytes();
        int at = random.nextInt(base.length() + 1);
        return base.substring(0, at) + bad + base.substring(at);
    }

    List<Probe> run(int requests, String targetProject, String clientId, String token) {
        List<Endpoints.Call> calls = Endpoints.protectedCalls();
        List<Probe> probes = new ArrayList<>();
        for (int n = 0; n < requests; n++) {
            Endpoints.Call call = calls.get(random.nextInt(calls.size()));
            List<String> spellings = Endpoints.spellings(call.path());
            String path = spellings.get(random.nextInt(spellings.size()));
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("X-Project-Id", project(targetProject));
            headers.put("Client-ID", random.nextInt(3) == 0 ? project(clientId) : clientId);
            headers.put("Accept", "application/json");
            headers.put("Content-Type", random.nextInt(4) == 0 ? "application/json" + badBytes() : "application/json");
            if (random.nextInt(3) == 0) {
                headers.put("X-Roles", "admin" + badBytes());
            }
            if (random.nextInt(4) == 0) {
                headers.put("X-Fuzz" + random.nextInt(10), badBytes());
            }
            if (token != null) {
                headers.put("Authorization", "Bearer " + (random.nextInt(5) == 0 ? token + badBytes() : token));
            }
            RawHttp.Answer answer = RawHttp.send(port, call.method(), path, headers, call.body());
            probes.add(new Probe(call.method() + " " + path + " " + printable(headers), answer));
        }
        return probes;
    }

    /** The bad answers: anything served, any 5xx, any refusal by Pigeon without the error document. */
    static List<String> failures(List<Probe> probes, Map<Integer, Integer> statuses) {
        List<String> failures = new ArrayList<>();
        for (Probe probe : probes) {
            int status = probe.answer().status();
            statuses.merge(status, 1, Integer::sum);
            if (status < 400 || status >= 500) {
                failures.add(status + " for " + probe.description() + ": " + probe.answer());
            } else if (!probe.answer().isErrorDocument() && !isHttpLayerRefusal(probe.answer())) {
                failures.add(status + " without the error document for " + probe.description() + ": " + probe.answer());
            }
        }
        return failures;
    }

    /**
     * The HTTP layer (Netty) refuses a request whose header bytes HTTP itself forbids before Pigeon sees it, with a
     * bare 400 and a closed connection: that answer is not Pigeon's to shape.
     */
    static boolean isHttpLayerRefusal(RawHttp.Answer answer) {
        return answer.status() == 400
                && answer.header("content-type") == null
                && answer.body().isEmpty();
    }

    static Map<Integer, Integer> statuses() {
        return new TreeMap<>();
    }

    /** How many requests the HTTP layer refused before Pigeon saw them. */
    static long httpLayerRefusals(List<Probe> probes) {
        return probes.stream()
                .filter(probe -> isHttpLayerRefusal(probe.answer()))
                .count();
    }

    private static String printable(Map<String, String> headers) {
        StringBuilder shown = new StringBuilder();
        headers.forEach((name, value) -> {
            shown.append(name).append('=');
            for (byte b : value.getBytes(StandardCharsets.ISO_8859_1)) {
                int c = b & 0xff;
                shown.append(c >= 0x20 && c < 0x7f ? String.valueOf((char) c) : String.format("\\x%02x", c));
            }
            shown.append(' ');
        });
        return shown.toString();
    }
}
