package io.pigeon.dispatch;

import io.smallrye.mutiny.Uni;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * This replica's call slots, over all its lanes: at most {@code maxCalls} calls in flight, and each project's calls
 * counted for its share ({@code perProject}, so that one project's slow targets cannot take every slot).
 *
 * <p>A lane reserves the slots it may fill before it asks its database for due groups, so that lanes asking at
 * once never take more groups than there are slots; the groups it took fill some of them, and the rest are given
 * back when its take ends. A call then holds its slot until it has ended, however it ends.
 *
 * <p>The share itself is applied by the take (the database leaves out or limits the groups of a busy project):
 * this class tells it each project's calls in flight ({@link #callsByProject}) and which projects have reached
 * their share ({@link #saturatedProjects}), and frees a project's part of it as its calls end.
 */
final class CallSlots {

    private final int maxCalls;
    private final int perProject;
    /** Call slots taken: calls in flight, and slots a lane reserved while it asks its database for due groups. */
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Of {@link #inFlight}, the slots reserved by lanes asking their databases (not calls). */
    private final AtomicInteger reserved = new AtomicInteger();
    /** Calls in flight per project, for the per-project share. */
    private final Map<String, Integer> inFlightByProject = new ConcurrentHashMap<>();

    CallSlots(int maxCalls, int perProject) {
        this.maxCalls = maxCalls;
        this.perProject = perProject;
    }

    /** Calls in flight at once for one project. */
    int perProject() {
        return perProject;
    }

    /**
     * Whether fewer calls than the bound are in flight. A lane's reservation is not a call: its pass will see a
     * group stored meanwhile (or the next pass will).
     */
    boolean callsBelowBound() {
        return inFlight.get() - reserved.get() < maxCalls;
    }

    /** The slots a lane may fill now, taken from the free ones (0 when none is free). */
    int reserve() {
        while (true) {
            int taken = inFlight.get();
            int room = maxCalls - taken;
            if (room <= 0) {
                return 0;
            }
            if (inFlight.compareAndSet(taken, taken + room)) {
                reserved.addAndGet(room);
                return room;
            }
        }
    }

    /**
     * Ends a reservation of {@code room} slots, of which {@code unused} were not filled with calls: those are given
     * back. Whether any were (then the lanes that found none free should look again).
     */
    boolean endReservation(int room, int unused) {
        reserved.addAndGet(-room);
        if (unused > 0) {
            inFlight.addAndGet(-unused);
            return true;
        }
        return false;
    }

    /**
     * Fills a reserved slot with {@code call}, a call for {@code project}: counted in that project's share at once,
     * and until the call ends, however it ends (an item, a failure); then its slot is free and {@code freed} runs.
     */
    <T> Uni<T> fill(String project, Uni<T> call, Runnable freed) {
        inFlightByProject.merge(project, 1, Integer::sum);
        return call.onTermination().invoke(() -> {
            inFlight.decrementAndGet();
            inFlightByProject.computeIfPresent(project, (busy, calls) -> calls <= 1 ? null : calls - 1);
            freed.run();
        });
    }

    /** Each project's calls in flight now (projects with none are absent), for the take's share. */
    Map<String, Integer> callsByProject() {
        return Map.copyOf(inFlightByProject);
    }

    /** The projects whose calls in flight have reached their share: no group of theirs is due for this replica. */
    Set<String> saturatedProjects() {
        return DispatchStore.saturated(inFlightByProject, perProject);
    }
}
