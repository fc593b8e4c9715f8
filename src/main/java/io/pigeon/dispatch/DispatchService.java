package io.pigeon.dispatch;

import io.pigeon.rules.Rejection;
import io.pigeon.api.JsonBodies;
import io.pigeon.config.PigeonConfig;
import io.smallrye.mutiny.Uni;
import io.pigeon.health.DatabaseFailures;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The rules of the delayed-dispatch queue: what an enqueue must carry, when its group fires, and who may
 * see and change pending and dead groups (the calling project only).
 */
@ApplicationScoped
public class DispatchService {

    /** Longest merge key. */
    public static final int MAX_MERGE_KEY_LENGTH = 256;
    /** Latest accepted {@code ontime}: the last second of year 9999. */
    public static final long MAX_ONTIME = 253402300799L;
    /** Most items a GET on a path shows in one page. */
    public static final int MAX_ITEMS_SHOWN = 1000;
    /** Most bytes of bodies one page shows (one item always goes): a page never loads a whole backlog. */
    public static final int MAX_BYTES_SHOWN = 1024 * 1024;
    /** Default and largest page of dead groups. */
    public static final int DEFAULT_DEAD_PAGE = 10;
    public static final int MAX_DEAD_PAGE = 100;

    private static final java.util.regex.Pattern UNIX_SECONDS = java.util.regex.Pattern.compile("\\d{1,12}(\\.\\d{1,9})?");

    private final DispatchStore store;
    private final Dispatcher dispatcher;
    private final AllowedTargets allowedTargets;
    private final PigeonConfig.Dispatch config;

    public DispatchService(DispatchStore store, Dispatcher dispatcher, AllowedTargets allowedTargets, PigeonConfig config) {
        this.store = store;
        this.dispatcher = dispatcher;
        this.allowedTargets = allowedTargets;
        this.config = config.dispatch();
    }

    /** How a push treats the fire time of a group that exists already. */
    public enum Update {
        /** Only a new group takes the push's time (the default). */
        ONCE,
        /** The push's time replaces the group's. */
        ALWAYS;

        public static Update parse(String value) {
            if (value == null || value.equals("once")) {
                return ONCE;
            }
            if (value.equals("always")) {
                return ALWAYS;
            }
            throw Rejection.invalidParameter("update", "The value must be \"once\" (the default) or \"always\".");
        }
    }

    /** A merge key starting with '-' is never merged. */
    public static boolean mergeable(String mergeKey) {
        return !mergeKey.startsWith("-");
    }

    public Uni<DispatchStore.Enqueued> enqueue(String project, String mergeKey, String method, String service,
            String ontimeParam, String updateParam, byte[] body) {
        validateMergeKey(mergeKey);
        DispatchAddress address = DispatchAddress.parse(method, service);
        allowedTargets.check("service", address.target());
        Double ontime = ontime(ontimeParam);
        Update update = Update.parse(updateParam);
        if (body != null && body.length > config.maxBodySize()) {
            throw Rejection.invalidBody("The body is " + body.length + " bytes; it may not exceed "
                    + config.maxBodySize() + " bytes (pigeon.dispatch.max-body-size).");
        }
        JsonBodies.parse(body);
        String json = new String(body, StandardCharsets.UTF_8);
        Long announceWithin = dispatcher.servesPushes() ? null : config.maxSleep().toMillis();
        return store.enqueue(project, mergeKey, mergeable(mergeKey), address, ontime, update == Update.ALWAYS, json,
                        announceWithin)
                .invoke(enqueued -> dispatcher.pushed(enqueued.dueAt()));
    }

    /** A post queued {@code count} subscription notifications, due now or when their messages' delays end. */
    public Uni<Void> notificationsQueued(long count) {
        if (count == 0) {
            return Uni.createFrom().voidItem();
        }
        dispatcher.wake();
        return dispatcher.servesPushes() ? Uni.createFrom().voidItem() : store.announce();
    }

    /** A page of a path's pending groups, with the address its method and service segments name. */
    public record PendingPath(DispatchAddress address, DispatchStore.PendingPage page) {
    }

    /**
     * The pending items of a path after item {@code marker} (0: from the start), at most {@code limit} (default
     * and largest {@link #MAX_ITEMS_SHOWN}) and {@link #MAX_BYTES_SHOWN} bytes of bodies a page.
     */
    public Uni<PendingPath> pending(String project, String mergeKey, String method, String service, String marker,
            Integer limit) {
        validateMergeKey(mergeKey);
        DispatchAddress address = DispatchAddress.parse(method, service);
        long after = marker == null || marker.isEmpty() ? 0 : id("marker", marker, "an item id");
        int items = limit == null ? MAX_ITEMS_SHOWN : limit;
        if (items < 1 || items > MAX_ITEMS_SHOWN) {
            throw Rejection.invalidParameter("limit", "The value must be from 1 to " + MAX_ITEMS_SHOWN + ".");
        }
        return store.pending(project, mergeKey, address, after, items, MAX_BYTES_SHOWN)
                .map(page -> new PendingPath(address, page));
    }

    public Uni<Integer> deletePending(String project, String mergeKey, String method, String service) {
        validateMergeKey(mergeKey);
        return store.deletePending(project, mergeKey, DispatchAddress.parse(method, service));
    }

    public Uni<List<DispatchStore.DeadGroup>> dead(String project, String markerParam, Integer limitParam) {
        long marker = markerParam == null || markerParam.isEmpty() ? 0 : groupId("marker", markerParam);
        int limit = limitParam == null ? DEFAULT_DEAD_PAGE : limitParam;
        if (limit < 1 || limit > MAX_DEAD_PAGE) {
            throw Rejection.invalidParameter("limit", "The value must be from 1 to " + MAX_DEAD_PAGE + ".");
        }
        return store.dead(project, marker, limit);
    }

    public Uni<Boolean> requeue(String project, String id) {
        long groupId = groupId("group id", id);
        // A push may create a pending twin between the check and the update: then the items join it.
        return store.requeue(project, groupId)
                .onFailure(DatabaseFailures::isUniqueViolation).retry().atMost(2)
                .invoke(requeued -> {
                    if (requeued) {
                        dispatcher.wake();
                    }
                });
    }

    public Uni<Boolean> dropDead(String project, String id) {
        return store.dropDead(project, groupId("group id", id));
    }

    private static long groupId(String name, String value) {
        return id(name, value, "a group id");
    }

    private static long id(String name, String value, String what) {
        try {
            long id = Long.parseLong(value);
            if (id >= 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw Rejection.invalidParameter(name, "The value must be " + what + " (a non-negative integer).");
    }

    private static void validateMergeKey(String mergeKey) {
        if (mergeKey == null || mergeKey.isEmpty() || mergeKey.length() > MAX_MERGE_KEY_LENGTH
                || mergeKey.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw Rejection.invalidRequest("\"merge_key\" must be 1 to " + MAX_MERGE_KEY_LENGTH
                    + " characters, none of them a control character.");
        }
    }

    private static Double ontime(String value) {
        if (value == null) {
            return null;
        }
        // Digits with an optional fraction only: Java would also read "1e3", "Infinity" or "1d".
        double seconds = UNIX_SECONDS.matcher(value).matches() ? Double.parseDouble(value) : Double.NaN;
        if (Double.isNaN(seconds) || seconds > MAX_ONTIME) {
            throw Rejection.invalidParameter("ontime", "The value must be a unix time in seconds from 0 to "
                    + MAX_ONTIME + ".");
        }
        return seconds;
    }
}
