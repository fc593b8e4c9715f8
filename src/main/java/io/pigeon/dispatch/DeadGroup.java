package io.pigeon.dispatch;

/** A dead /v3 group as it is listed: the group, when it died and was made (unix seconds), and its items. */
public record DeadGroup(ListedGroup group, double deadAt, double createdAt, long items) {

    public long id() {
        return group.id();
    }
}
