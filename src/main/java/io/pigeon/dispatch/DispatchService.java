package io.pigeon.dispatch;

import io.pigeon.pool.PoolClients;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.rules.Paging;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.DatabaseFailures;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

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
    /** Largest page of dead groups (the default is {@link Paging#DEFAULT_PAGE_SIZE}). */
    public static final int MAX_DEAD_PAGE = 100;
    /** Why a request carrying this deployment's {@link CallMarker} may not push or requeue. */
    static final String FROM_PIGEON = "The request carries " + CallMarker.HEADER + ", the mark of the calls this "
            + "deployment makes: a call Pigeon made cannot schedule another call (a relay would loop it through Pigeon).";

    private final DispatchStore store;
    private final QueueDatabases databases;
    private final PoolClients pools;
    private final Dispatcher dispatcher;
    private final AllowedTargets allowedTargets;
    private final DispatchSettings config;
    private final CallMarker marker;

    public DispatchService(
            DispatchStore store,
            QueueDatabases databases,
            PoolClients pools,
            Dispatcher dispatcher,
            AllowedTargets allowedTargets,
            DispatchSettings dispatchSettings,
            CallMarker marker) {
        this.store = store;
        this.databases = databases;
        this.pools = pools;
        this.dispatcher = dispatcher;
        this.allowedTargets = allowedTargets;
        this.config = dispatchSettings;
        this.marker = marker;
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
     * fire at unix time {@code ontime} (null: now). {@code callMarker} is the request's {@link CallMarker#HEADER}
     * (or null): a push carrying this deployment's marker is refused (a forged one means nothing).
     */
    public Uni<DispatchStore.Enqueued> enqueue(
            String project,
            String mergeKey,
            String method,
            String service,
            Double ontime,
            Update update,
            String json,
            String callMarker) {
        validateMergeKey(mergeKey);
        DispatchAddress address = DispatchAddress.parse(method, service);
        allowedTargets.check("service", address.target());
        if (ontime != null && (ontime < 0 || ontime > MAX_ONTIME)) {
            throw Rejection.invalidParameter(
                    "ontime", "The value must be a unix time in seconds from 0 to " + MAX_ONTIME + ".");
        }
        DispatchStore.Push push = new DispatchStore.Push(
                project,
                mergeKey,
                address,
                mergeable(mergeKey),
                ontime,
                update == Update.ALWAYS,
                json,
                announceWithin());
        return notFromPigeon(callMarker).chain(() -> push(push));
    }

    /**
     * Fails with a refusal when the request is a call this deployment made (it carries its marker). A message post
     * that comes back is stored and notifies nobody, which ends a loop after one hop; a push or a requeue exists only
     * to schedule a call, so one that came back is refused: otherwise a relay that pushes each call it gets would
     * keep calls going round at the per-host rate for ever.
     */
    private Uni<Void> notFromPigeon(String callMarker) {
        return marker.recognises(callMarker)
                .invoke(fromPigeon -> {
                    if (fromPigeon) {
                        throw new Rejection(Rejection.Reason.FORBIDDEN, FROM_PIGEON);
                    }
                })
                .replaceWithVoid();
    }

    /**
     * A call Pigeon itself sends (a subscription's confirmation request): one group of its own, due now, its body
     * sent as it is with the extra headers given (a JSON object, or null), and delivered and retried like any
     * other. The target must already have passed the allowed-targets check.
     */
    public Uni<Void> call(String project, String mergeKey, DispatchAddress address, String body, String headersJson) {
        return pathOf(project, "-" + mergeKey, address)
                .chain(path -> store.call(path, body, headersJson)
                        .invoke(due -> dispatcher.pushed(path.db(), due))
                        .call(due -> announceUnlessServing(path.db())))
                .replaceWithVoid();
    }

    private Uni<DispatchStore.Enqueued> push(DispatchStore.Push push) {
        return databaseOf(push.project(), push.mergeKey(), push.address())
                .chain(db -> store.enqueue(db, push).invoke(enqueued -> dispatcher.pushed(db, enqueued.dueAt())));
    }

    /**
     * The database a group lives on: the same for every push of one project, merge key and address (its items merge
     * there), spread over the pools by a stable hash.
     */
    private Uni<Pool> databaseOf(String project, String mergeKey, DispatchAddress address) {
        return databases.forKey(project + '\u0000' + mergeKey + '\u0000' + address.method() + ' ' + address.target());
    }

    /** The path on the database its groups live on (see {@link #databaseOf}), resolved once for a request. */
    private Uni<DispatchStore.Path> pathOf(String project, String mergeKey, DispatchAddress address) {
        return databaseOf(project, mergeKey, address).map(db -> new DispatchStore.Path(db, project, mergeKey, address));
    }

    private Long announceWithin() {
        return dispatcher.servesPushes() ? null : config.maxSleep().toMillis();
    }

    /**
     * A post on {@code db} (its queue's database) queued {@code count} subscription notifications there, due now or
     * when their messages' delays end.
     */
    public Uni<Void> notificationsQueued(SqlClient db, long count) {
        if (count == 0) {
            return Uni.createFrom().voidItem();
        }
        dispatcher.wake(db);
        return announceUnlessServing(db);
    }

    /** A replica that does not deliver itself tells the others (LISTEN/NOTIFY on {@code db}) that something is due. */
    private Uni<Void> announceUnlessServing(SqlClient db) {
        return dispatcher.servesPushes() ? Uni.createFrom().voidItem() : store.announce(db);
    }

    /** A page of a path's pending groups, with the address its method and service segments name. */
    public record PendingPath(DispatchAddress address, DispatchStore.PendingPage page) {}

    /**
     * The pending items of a path after item {@code marker} (0: from the start), at most {@code limit} (default
     * and largest {@link #MAX_ITEMS_SHOWN}) and {@link #MAX_BYTES_SHOWN} bytes of bodies a page.
     */
    public Uni<PendingPath> pending(
            String project, String mergeKey, String method, String service, long after, Integer limit) {
        validateMergeKey(mergeKey);
        DispatchAddress address = DispatchAddress.parse(method, service);
        int items = limit == null ? MAX_ITEMS_SHOWN : limit;
        if (items < 1 || items > MAX_ITEMS_SHOWN) {
            throw Rejection.invalidParameter("limit", "The value must be from 1 to " + MAX_ITEMS_SHOWN + ".");
        }
        return pathOf(project, mergeKey, address)
                .chain(path -> store.pending(path, after, items, MAX_BYTES_SHOWN))
                .map(page -> new PendingPath(address, page));
    }

    public Uni<Integer> deletePending(String project, String mergeKey, String method, String service) {
        validateMergeKey(mergeKey);
        DispatchAddress address = DispatchAddress.parse(method, service);
        return pathOf(project, mergeKey, address).chain(store::deletePending);
    }

    /** Pending groups one look at a project shows, and dead ones. */
    public static final int MAX_GROUPS_SHOWN = 20;

    /** The project's pending /v3 groups on every database, soonest due first, at most {@value #MAX_GROUPS_SHOWN}. */
    public Uni<List<DuePendingGroup>> pendingByDue(String project) {
        return pools.onEvery(database -> store.pendingByDue(database.client(), project, MAX_GROUPS_SHOWN))
                .map(pages -> pages.stream()
                        .flatMap(List::stream)
                        .sorted(Comparator.comparingDouble(DuePendingGroup::dueInSeconds)
                                .thenComparingLong(DuePendingGroup::id))
                        .limit(MAX_GROUPS_SHOWN)
                        .toList());
    }

    public Uni<List<DeadGroup>> dead(String project, long marker, Integer limitParam) {
        int limit = limitParam == null ? Paging.DEFAULT_PAGE_SIZE : limitParam;
        if (limit < 1 || limit > MAX_DEAD_PAGE) {
            throw Rejection.invalidParameter("limit", "The value must be from 1 to " + MAX_DEAD_PAGE + ".");
        }
        // Group ids are unique over every database (each pool's ids start in a block of their own), so the pages of
        // all merge into one id order.
        return pools.onEvery(database -> store.dead(database.client(), project, marker, limit))
                .map(pages -> pages.stream()
                        .flatMap(List::stream)
                        .sorted(Comparator.comparingLong(DeadGroup::id))
                        .limit(limit)
                        .toList());
    }

    /** Puts a dead group back; refused for a call Pigeon made, as a push is ({@code callMarker} as there). */
    public Uni<Boolean> requeue(String project, long groupId, String callMarker) {
        // A push may create a pending twin between the check and the update: then the items join it.
        return notFromPigeon(callMarker)
                .chain(() -> onTheDatabaseThatHasIt(db -> store.requeue(db, project, groupId)
                        .onFailure(DatabaseFailures::isUniqueViolation)
                        .retry()
                        .atMost(2)
                        .invoke(requeued -> {
                            if (requeued) {
                                dispatcher.wake(db);
                            }
                        })));
    }

    public Uni<Boolean> dropDead(String project, long groupId) {
        return onTheDatabaseThatHasIt(db -> store.dropDead(db, project, groupId));
    }

    /** Runs {@code change} on each database in turn until one finds what it changes (an id lives on one only). */
    private Uni<Boolean> onTheDatabaseThatHasIt(Function<Pool, Uni<Boolean>> change) {
        return pools.everyDatabase().chain(every -> {
            Uni<Boolean> tried = Uni.createFrom().item(false);
            for (PoolClients.Named database : every) {
                tried = tried.chain(done -> done ? Uni.createFrom().item(true) : change.apply(database.client()));
            }
            return tried;
        });
    }

    private static void validateMergeKey(String mergeKey) {
        if (mergeKey == null
                || mergeKey.isEmpty()
                || mergeKey.length() > MAX_MERGE_KEY_LENGTH
                || mergeKey.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw Rejection.invalidRequest("\"merge_key\" must be 1 to " + MAX_MERGE_KEY_LENGTH
                    + " characters, none of them a control character.");
        }
    }
}
