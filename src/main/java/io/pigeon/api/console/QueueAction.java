package io.pigeon.api.console;

import io.pigeon.queue.QueueName;
import io.pigeon.rules.Rejection;
import java.util.Set;

/**
 * What a queue's confirmation page and its form do: post a test message, purge, delete, or redrive its dead letters;
 * each named by the last segment of its path, with its question and its button, and the confirmation page as shown.
 */
enum QueueAction {
    POST("post", "Post a test message to queue %s.", "Post the message"),
    PURGE("purge", "Purge queue %s: delete every message it holds (its subscriptions stay).", "Purge the queue"),
    DELETE("delete", "Delete queue %s, its messages and its subscriptions.", "Delete the queue"),
    REDRIVE(
            "redrive",
            "Redrive queue %s: move its dead letters back to the queues they came from.",
            "Start the redrive");

    /** The fields an action's form sends (ConsoleFormBody drops any other). */
    static final Set<String> FIELDS = Set.of(ConsoleForms.FIELD, "body", "ttl", "delay", "rate");

    final String path;
    final String question;
    final String button;

    QueueAction(String path, String question, String button) {
        this.path = path;
        this.question = question;
        this.button = button;
    }

    static QueueAction of(String path) {
        for (QueueAction action : values()) {
            if (action.path.equals(path)) {
                return action;
            }
        }
        throw Rejection.notFound("The console has no action named \"" + path.replaceAll("[^\\x20-\\x7e]", "?")
                + "\"; it has post, purge, delete and redrive.");
    }

    /** What the form holds: as typed (null: blank), for a post's message and a redrive's rate. */
    record Typed(String body, String ttl, String delay, String rate) {}

    /** This action's confirmation page for queue {@code name}, with what was typed and a refusal (null: none). */
    ConsoleViews.Confirm confirmation(ConsolePages.Call call, QueueName name, String error, Typed typed) {
        String queueHref = call.frame().projectHref() + "/queues/" + name.value();
        return new ConsoleViews.Confirm(
                call.frame(),
                name.value(),
                queueHref,
                path,
                queueHref + "/" + path,
                question.formatted(name.value()),
                button,
                call.token(),
                error,
                this == POST,
                this == REDRIVE,
                typed.body() == null ? "" : typed.body(),
                typed.ttl() == null ? "" : typed.ttl(),
                typed.delay() == null ? "" : typed.delay(),
                typed.rate() == null ? "" : typed.rate());
    }
}
