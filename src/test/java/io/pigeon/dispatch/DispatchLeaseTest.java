package io.pigeon.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.tenancy.ProviderDownDispatcherOffProfile;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The engine's taking discipline with many dispatchers at once, played by parallel takers on the store
 * (this application's own dispatcher is off): no group is ever held by two live leases, every item is
 * completed exactly once, and a lease that runs out without an answer gives the group to the next taker.
 */
@QuarkusTest
@TestProfile(ProviderDownDispatcherOffProfile.class)
class DispatchLeaseTest {

    @Inject
    DispatchStore store;

    @Inject
    Pool pool;

    private final String project = Api.newProject();

    private void pushDue(String mergeKey, String body) {
        store.enqueue(
                        pool,
                        new DispatchStore.Push(
                                project,
                                mergeKey,
                                new DispatchAddress("POST", URI.create("http://127.0.0.1:9/" + project)),
                                !mergeKey.startsWith("-"),
                                null,
                                false,
                                body,
                                null))
                .await()
                .indefinitely();
    }

    @Test
    void parallelDispatchersTakeEachGroupOnceAndCompleteEachItemOnce() throws Exception {
        int groups = 400;
        int itemsPerGroup = 3;
        for (int g = 0; g < groups; g++) {
            for (int i = 0; i < itemsPerGroup; i++) {
                pushDue("key-" + g, "{\"g\": " + g + ", \"i\": " + i + "}");
            }
        }
        Map<Long, AtomicInteger> takes = new ConcurrentHashMap<>();
        Set<Long> completedItems = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        ExecutorService dispatchers = Executors.newFixedThreadPool(8);
        List<Future<?>> running = new ArrayList<>();
        for (int d = 0; d < 8; d++) {
            running.add(dispatchers.submit(() -> {
                while (true) {
                    List<DispatchStore.TakenGroup> taken =
                            store.takeDue(pool, 5, 60_000, 100).await().indefinitely();
                    if (taken.isEmpty()) {
                        return null;
                    }
                    for (DispatchStore.TakenGroup group : taken) {
                        if (!group.target().endsWith(project)) {
                            // Another test's leftover in the shared database: finish it, do not count it.
                            store.complete(pool, group).await().indefinitely();
                            continue;
                        }
                        takes.computeIfAbsent(group.id(), id -> new AtomicInteger())
                                .incrementAndGet();
                        for (long item : group.itemIds()) {
                            if (!completedItems.add(item)) {
                                duplicates.incrementAndGet();
                            }
                        }
                        store.complete(pool, group).await().indefinitely();
                    }
                }
            }));
        }
        for (Future<?> future : running) {
            future.get();
        }
        dispatchers.shutdown();
        assertEquals(0, duplicates.get(), "items delivered twice");
        assertEquals(groups * itemsPerGroup, completedItems.size());
        assertTrue(takes.values().stream().allMatch(count -> count.get() == 1), "a group was taken twice");
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1", project));
        assertEquals(
                0,
                Db.count(
                        pool,
                        "SELECT count(*) FROM dispatch_items i JOIN dispatch_groups g ON g.id = i.group_id "
                                + "WHERE g.project = $1",
                        project));
    }

    @Test
    void aGroupWhoseLeaseRunsOutIsTakenAgainAndTheOldLeaseCanNoLongerFinishIt() {
        pushDue("crashed", "{\"n\": 1}");
        DispatchStore.TakenGroup first = takeOurs(60_000);
        assertEquals(1, first.attempts());
        // The lease lasts what was asked (milliseconds): 60 s from now, give or take the round trips.
        assertEquals(
                1,
                Db.count(
                        pool,
                        "SELECT count(*) FROM dispatch_groups WHERE id = $1 "
                                + "AND lease_until BETWEEN now() + interval '55 seconds' AND now() + interval '60 seconds'",
                        first.id()));
        // The first dispatcher "crashes": no answer. Nobody may take the group while the lease lasts.
        assertTrue(store.takeDue(pool, 100, 300, 100).await().indefinitely().stream()
                .noneMatch(group -> group.id() == first.id()));
        // The lease runs out: moved into the past here rather than waited for, so that a slow machine cannot
        // end a short real lease before the check above.
        Db.run(
                pool,
                "UPDATE dispatch_groups SET lease_until = now() - interval '1 millisecond', fire_at = now() "
                        + "WHERE id = $1",
                first.id());
        DispatchStore.TakenGroup second = takeOurs(60_000);
        assertEquals(first.id(), second.id());
        assertEquals(2, second.attempts());
        // The first dispatcher's late answer is void: the group and its item stay with the second lease.
        store.complete(pool, first).await().indefinitely();
        assertEquals(1, Db.count(pool, "SELECT count(*) FROM dispatch_items WHERE group_id = $1", second.id()));
        store.complete(pool, second).await().indefinitely();
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE id = $1", second.id()));
    }

    @Test
    void anItemPushedDuringACallStaysWhenTheCallSucceeds() {
        pushDue("busy", "{\"n\": 1}");
        DispatchStore.TakenGroup taken = takeOurs(60_000);
        pushDue("busy", "{\"n\": 2}");
        store.complete(pool, taken).await().indefinitely();
        List<String> left = new ArrayList<>();
        Db.run(pool, "SELECT i.body FROM dispatch_items i WHERE i.group_id = $1", taken.id())
                .forEach(row -> left.add(row.getString(0)));
        assertEquals(List.of("{\"n\": 2}"), left);
        // It keeps the time its push asked for (now), and fresh attempts.
        assertEquals(
                1,
                Db.count(
                        pool,
                        "SELECT count(*) FROM dispatch_groups WHERE id = $1 AND attempts = 0 "
                                + "AND fire_at <= now() AND lease_token IS NULL",
                        taken.id()));
    }

    private DispatchStore.TakenGroup takeOurs(long leaseMillis) {
        List<DispatchStore.TakenGroup> taken =
                store.takeDue(pool, 100, leaseMillis, 100).await().indefinitely();
        List<DispatchStore.TakenGroup> ours =
                taken.stream().filter(group -> group.target().endsWith(project)).toList();
        assertEquals(1, ours.size(), "expected exactly this test's group");
        // Give back any other test's group at once.
        taken.stream()
                .filter(group -> !ours.contains(group))
                .forEach(group ->
                        store.release(pool, group, "not this test's", 0).await().indefinitely());
        return ours.get(0);
    }
}
