package io.pigeon.dispatch;

import io.pigeon.rules.Rejection;
import io.pigeon.config.PigeonConfig;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.pigeon.storage.DatabaseFailures;
import jakarta.enterprise.context.ApplicationScoped;
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

    private final DispatchStore store;
    private final Pool pool;
    private final Dispatcher dispatcher;
    private final AllowedTargets allowedTargets;
    private final PigeonConfig.Dispatch config;

    public DispatchService(DispatchStore store, Pool pool, Dispatcher dispatcher, AllowedTargets allowedTargets, PigeonConfig config) {
        this.store = store;
        this.pool = pool;
        this.dispatcher = dispatcher;
        this.allowedTargets = allowedTargets;
        this.config = config.dispatch();
    }

    /** How a push treats the fire time of a group that exists already. */
    public enum Update {
        /** Only a new group takes the push's time (the default). */
        ONCE,
        /** The push's time replaces the group's. */
        ALWAYS
    }

    /** The most bytes a push's body may have, before it is read. */
    public int maxBodySize() {
        return config.maxBodySize();
    }

    /** A merge key starting with '-' is never merged. */
    public static boolean mergeable(String mergeKey) {
        return !mergeKey.startsWith("-");
    }

    /**
     * Stores a push of {@code json} (a JSON document, read at the edge) for the group of the key and address, to
     * fire at unix time {@code ontime} (null: now).
     */
    public Uni<DispatchStore.Enqueued> enqueue(String project, String mergeKey, String method, String service,
            Double ontime, Update update, String json) {
        validateMergeKey(mergeKey);
        DispatchAddress address = DispatchAddress.parse(method, service);
        allowedTargets.check("service", address.target());
        if (ontime != null && (ontime < 0 || ontime > MAX_ONTIME)) {
            throw Rejection.invalidParameter("ontime", "The value must be a unix time in seconds from 0 to "
                    + MAX_ONTIME + ".");
        }
        return push(new DispatchStore.Push(project, mergeKey, address, mergeable(mergeKey), ontime,
                update == Update.ALWAYS, json, announceWithin()));
    }

    /**
     * A call Pigeon itself sends (a subscription's confirmation request): one group of its own, due now, its body
     * sent as it is with the extra headers given (a JSON object, or null), and delivered and retried like any
     * other. The target must already have passed the allowed-targets check.
     */
    public Uni<Void> call(String project, String mergeKey, DispatchAddress address, String body, String headersJson) {
        return store.call(pool, project, "-" + mergeKey, address, body, headersJson)
                .invoke(dispatcher::pushed)
                .call(due -> announceUnlessServing())
                .replaceWithVoid();
    }

    private Uni<DispatchStore.Enqueued> push(DispatchStore.Push push) {
        return store.enqueue(pool, push).invoke(enqueued -> dispatcher.pushed(enqueued.dueAt()));
    }

    private Long announceWithin() {
        return dispatcher.servesPushes() ? null : config.maxSleep().toMillis();
    }

    /** A post queued {@code count} subscription notifications, due now or when their messages' delays end. */
    public Uni<Void> notificationsQueued(long count) {
        if (count == 0) {
            return Uni.createFrom().voidItem();
        }
        dispatcher.wake();
        return announceUnlessServing();
    }

    /** A replica that does not deliver itself tells the others (LISTEN/NOTIFY) that something is due. */
    private Uni<Void> announceUnlessServing() {
        return dispatcher.servesPushes() ? Uni.createFrom().voidItem() : store.announce(pool);
    }

    /** A page of a path's pending groups, with the address its method and service segments name. */
    public record PendingPath(DispatchAddress address, DispatchStore.PendingPage page) {
    }

    /**
     * The pending items of a path after item {@code marker} (0: from the start), at most {@code limit} (default
     * and largest {@link #MAX_ITEMS_SHOWN}) and {@link #MAX_BYTES_SHOWN} bytes of bodies a page.
     */
    public Uni<PendingPath> pending(String project, String mergeKey, String method, String service, long after,
            Integer limit) {
        validateMergeKey(mergeKey);
        DispatchAddress address = DispatchAddress.parse(method, service);
        int items = limit == null ? MAX_ITEMS_SHOWN : limit;
        if (items < 1 || items > MAX_ITEMS_SHOWN) {
            throw Rejection.invalidParameter("limit", "The value must be from 1 to " + MAX_ITEMS_SHOWN + ".");
        }
        return store.pending(pool, project, mergeKey, address, after, items, MAX_BYTES_SHOWN)
                .map(page -> new PendingPath(address, page));
    }

    public Uni<Integer> deletePending(String project, String mergeKey, String method, String service) {
        validateMergeKey(mergeKey);
        return store.deletePending(pool, project, mergeKey, DispatchAddress.parse(method, service));
    }

    public Uni<List<DispatchStore.DeadGroup>> dead(String project, long marker, Integer limitParam) {
        int limit = limitParam == null ? DEFAULT_DEAD_PAGE : limitParam;
        if (limit < 1 || limit > MAX_DEAD_PAGE) {
            throw Rejection.invalidParameter("limit", "The value must be from 1 to " + MAX_DEAD_PAGE + ".");
        }
        return store.dead(pool, project, marker, limit);
    }

    public Uni<Boolean> requeue(String project, long groupId) {
        // A push may create a pending twin between the check and the update: then the items join it.
        return store.requeue(pool, project, groupId)
                .onFailure(DatabaseFailures::isUniqueViolation).retry().atMost(2)
                .invoke(requeued -> {
                    if (requeued) {
                        dispatcher.wake();
                    }
                });
    }

    public Uni<Boolean> dropDead(String project, long groupId) {
        return store.dropDead(pool, project, groupId);
    }

    private static void validateMergeKey(String mergeKey) {
        if (mergeKey == null || mergeKey.isEmpty() || mergeKey.length() > MAX_MERGE_KEY_LENGTH
                || mergeKey.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw Rejection.invalidRequest("\"merge_key\" must be 1 to " + MAX_MERGE_KEY_LENGTH
                    + " characters, none of them a control character.");
        }
    }
}
