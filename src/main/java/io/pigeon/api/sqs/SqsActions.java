package io.pigeon.api.sqs;

import io.pigeon.sqs.Printable;
import io.pigeon.sqs.SqsRefusal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.util.HashMap;
import java.util.Map;

/** The dispatch table: every action's name to its handler, from every {@link SqsActionSet} bean. */
@ApplicationScoped
public class SqsActions {

    private final Map<String, SqsAction> byName;

    SqsActions(Instance<SqsActionSet> sets) {
        Map<String, SqsAction> table = new HashMap<>();
        for (SqsActionSet set : sets) {
            Map<String, SqsAction> own = new HashMap<>();
            set.register(own);
            own.forEach((name, action) -> {
                if (table.putIfAbsent(name, action) != null) {
                    throw new IllegalStateException("two SQS handlers for the action " + name);
                }
            });
        }
        this.byName = Map.copyOf(table);
    }

    /** The action's handler; {@code InvalidAction} for a name SQS has not, or Pigeon does not serve. */
    SqsAction find(String name) {
        SqsAction action = byName.get(name);
        if (action == null) {
            throw new SqsRefusal(
                    SqsRefusal.Reason.INVALID_ACTION,
                    "The action " + Printable.of(name) + " is not valid for this endpoint.");
        }
        return action;
    }
}
