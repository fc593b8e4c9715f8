package io.pigeon.dispatch;

/** A pending /v3 group as the console lists it: its path, attempts so far, items, and seconds until it is due. */
public record DuePendingGroup(ListedGroup group, int items, double dueInSeconds, boolean inFlight) {

    public long id() {
        return group.id();
    }
}
