package io.pigeon.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.mutiny.Uni;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The call slots' own rules, with calls that end when the test says: the bound over reservations and calls, each
 * project's share as the take is told it, and a slot freed however its call ends. That the take leaves out a
 * saturated project's groups is tested against PostgreSQL in {@code DispatcherResilienceTest}.
 */
class CallSlotsTest {

    private final AtomicInteger freed = new AtomicInteger();

    /** A call of {@code project} in a reserved slot, started at once; it ends when {@code end} completes. */
    private CompletableFuture<String> call(CallSlots slots, String project, CompletableFuture<String> end) {
        return slots.fill(project, Uni.createFrom().completionStage(end), freed::incrementAndGet)
                .subscribeAsCompletionStage();
    }

    @Test
    void aLaneReservesOnlyTheFreeSlotsAndGivesBackThoseItDidNotFill() {
        CallSlots slots = new CallSlots(4, 4);
        assertEquals(4, slots.reserve(), "every slot is free");
        assertEquals(0, slots.reserve(), "a second lane asking meanwhile finds none free");
        assertTrue(slots.callsBelowBound(), "a reservation is not a call: a push is still served here");

        call(slots, "a", new CompletableFuture<>());
        call(slots, "a", new CompletableFuture<>());
        assertTrue(slots.endReservation(4, 2), "two reserved slots were not filled and are given back");
        assertEquals(2, slots.reserve(), "the two given back, not the two calls' slots");
        call(slots, "b", new CompletableFuture<>());
        call(slots, "b", new CompletableFuture<>());
        assertFalse(slots.endReservation(2, 0), "every reserved slot was filled: nothing given back");

        assertFalse(slots.callsBelowBound(), "four calls in flight: the bound");
        assertEquals(0, slots.reserve());
        assertEquals(0, freed.get());
    }

    @Test
    void aProjectAtItsShareIsSaturatedAndTheOthersStillFindSlots() {
        CallSlots slots = new CallSlots(4, 2);
        assertEquals(4, slots.reserve());
        call(slots, "a", new CompletableFuture<>());
        assertEquals(Map.of("a", 1), slots.callsByProject());
        assertEquals(Set.of(), slots.saturatedProjects(), "one call of two: below the share");
        call(slots, "a", new CompletableFuture<>());
        slots.endReservation(4, 2);

        assertEquals(Map.of("a", 2), slots.callsByProject());
        assertEquals(Set.of("a"), slots.saturatedProjects(), "two calls of two: the take leaves the project out");
        // No starvation: the first project's share does not take the slots a second project needs.
        assertEquals(2, slots.reserve(), "the slots beyond the first project's share are free");
        call(slots, "b", new CompletableFuture<>());
        slots.endReservation(2, 1);
        assertEquals(Map.of("a", 2, "b", 1), slots.callsByProject());
        assertEquals(Set.of("a"), slots.saturatedProjects(), "the second project is not held back by the first");
    }

    @Test
    void aCallFreesItsSlotAndItsShareWhenItEndsHoweverItEnds() {
        CallSlots slots = new CallSlots(2, 2);
        assertEquals(2, slots.reserve());
        CompletableFuture<String> succeeds = new CompletableFuture<>();
        CompletableFuture<String> fails = new CompletableFuture<>();
        CompletableFuture<String> delivered = call(slots, "a", succeeds);
        CompletableFuture<String> failed = call(slots, "a", fails);
        slots.endReservation(2, 0);
        assertEquals(Set.of("a"), slots.saturatedProjects());
        assertFalse(slots.callsBelowBound());

        succeeds.complete("delivered");
        assertEquals("delivered", delivered.join(), "the call's own item passes through");
        assertEquals(1, freed.get(), "the lanes were told once");
        assertEquals(Map.of("a", 1), slots.callsByProject(), "one call of the project ended, one still runs");
        assertEquals(Set.of(), slots.saturatedProjects());
        assertTrue(slots.callsBelowBound());

        fails.completeExceptionally(new IllegalStateException("the outcome could not be stored"));
        Throwable failure = failed.handle((item, error) -> error).join();
        assertInstanceOf(
                IllegalStateException.class,
                failure.getCause() == null ? failure : failure.getCause(),
                "the call's own failure passes through");
        assertEquals(2, freed.get(), "a failed call frees its slot too");
        assertEquals(Map.of(), slots.callsByProject(), "a project with no call left is forgotten");
        assertEquals(2, slots.reserve(), "both slots are free again");
    }
}
