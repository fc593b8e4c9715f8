package io.pigeon.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An HTTP receiver inside the test: it records every call it gets and answers as each path is scripted
 * (a list of answers, the last repeated; by default 200 at once). Each test uses paths of its own. A test
 * class holds one in a static {@code @RegisterExtension} field; it stops after the class's tests.
 */
public final class Receiver implements AutoCloseable, AfterAllCallback {

    /** One recorded call. {@code at} is the wall clock in seconds when it arrived. */
    public record Call(String method, String path, String body, Map<String, List<String>> headers, double at) {
        public String header(String name) {
            List<String> values = headers.get(name);
            return values == null ? null : values.get(0);
        }
    }

    /**
     * An answer: a status, after a pause; with {@code trickleMillis}, the status at once and then a body of one
     * byte every half second for that long (a target that is slow on purpose).
     */
    public record Answer(int status, long delayMillis, long trickleMillis) {
        public Answer(int status, long delayMillis) {
            this(status, delayMillis, 0);
        }

        public static Answer status(int status) {
            return new Answer(status, 0);
        }

        public static Answer trickle(long millis) {
            return new Answer(200, 0, millis);
        }
    }

    private final HttpServer server;
    private final List<Call> calls = new ArrayList<>();
    private final Map<String, List<Answer>> scripts = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> served = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> open = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> mostOpen = new ConcurrentHashMap<>();

    public Receiver() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(Executors.newFixedThreadPool(96));
        server.createContext("/", this::handle);
        server.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    /** The service segment of a /v3/queue path for {@code path} here, in URL-safe base64 without padding. */
    public String service(String path) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(url(path).getBytes(StandardCharsets.UTF_8));
    }

    public void script(String path, Answer... answers) {
        scripts.put(path, List.of(answers));
    }

    /** The most calls to {@code path} this receiver was answering at the same time. */
    public int mostConcurrent(String path) {
        AtomicInteger most = mostOpen.get(path);
        return most == null ? 0 : most.get();
    }

    /** The calls to paths starting with {@code prefix} being answered now. */
    public int openNow(String prefix) {
        return open.entrySet().stream()
                .filter(e -> e.getKey().startsWith(prefix))
                .mapToInt(e -> e.getValue().get())
                .sum();
    }

    public List<Call> calls(String path) {
        synchronized (calls) {
            return calls.stream().filter(call -> call.path().equals(path)).toList();
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        String body;
        try (InputStream in = exchange.getRequestBody()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        double at = System.currentTimeMillis() / 1000.0;
        List<Answer> script = scripts.getOrDefault(path, List.of(Answer.status(200)));
        int index = served.computeIfAbsent(path, p -> new AtomicInteger()).getAndIncrement();
        Answer answer = script.get(Math.min(index, script.size() - 1));
        synchronized (calls) {
            Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            headers.putAll(exchange.getRequestHeaders());
            calls.add(new Call(exchange.getRequestMethod(), path, body, headers, at));
        }
        int now = open.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
        mostOpen.computeIfAbsent(path, p -> new AtomicInteger()).accumulateAndGet(now, Math::max);
        try {
            if (answer.delayMillis() > 0) {
                Thread.sleep(answer.delayMillis());
            }
            if (answer.trickleMillis() > 0) {
                exchange.sendResponseHeaders(answer.status(), 0);
                long until = System.currentTimeMillis() + answer.trickleMillis();
                while (System.currentTimeMillis() < until) {
                    exchange.getResponseBody().write('.');
                    exchange.getResponseBody().flush();
                    Thread.sleep(500);
                }
            } else {
                exchange.sendResponseHeaders(answer.status(), -1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // The caller gave up (a timeout): nothing to answer.
        } finally {
            open.get(path).decrementAndGet();
            exchange.close();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
