package io.pigeon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.claim.ClaimStore;
import io.pigeon.config.StatementCachePoolCreator;
import io.pigeon.dispatch.DispatchStore;
import io.pigeon.dispatch.NotificationFanOut;
import io.pigeon.maintenance.Sweeper;
import io.pigeon.message.MessageStatements;
import io.pigeon.message.MessageStore;
import io.pigeon.queue.QueueStore;
import io.pigeon.subscription.SubscriptionStore;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The session settings Pigeon's own connections must carry. */
@QuarkusTest
class DatabaseSessionTest {

    @Inject
    Pool pool;

    @Test
    void jitIsOffPlansAreGenericAndConnectionsAreNamed() {
        Api.newProject(); // the shared database resource is started through Api's annotation
        assertEquals(
                "off",
                Db.run(pool, "SELECT current_setting('jit')").iterator().next().getString(0));
        assertEquals(
                "pigeon",
                Db.run(pool, "SELECT current_setting('application_name')")
                        .iterator()
                        .next()
                        .getString(0));
        assertEquals(
                "force_generic_plan",
                Db.run(pool, "SELECT current_setting('plan_cache_mode')")
                        .iterator()
                        .next()
                        .getString(0));
    }

    @Test
    void longStatementsArePreparedOncePerConnection() {
        String project = Api.newProject();
        Api.as(project).put("/v1/queues/prepared").then().statusCode(201);
        // On one connection: run the longest store statement (over Vert.x's default cache limit of 2,048
        // characters) twice, then ask PostgreSQL which statements that session holds prepared. Without
        // the raised limit the client sends it unnamed and PostgreSQL plans it on every execution.
        List<String> prepared = pool.withConnection(connection -> connection
                        .preparedQuery(MessageStatements.POST_CREATING_QUEUE)
                        .execute(postParameters(project))
                        .chain(() -> connection
                                .preparedQuery(MessageStatements.POST_CREATING_QUEUE)
                                .execute(postParameters(project)))
                        .chain(() -> connection
                                .query("SELECT statement FROM pg_prepared_statements")
                                .execute()))
                .map(rows -> {
                    List<String> statements = new ArrayList<>();
                    rows.forEach(row -> statements.add(row.getString(0)));
                    return statements;
                })
                .await()
                .indefinitely();
        assertTrue(MessageStatements.POST_CREATING_QUEUE.length() > 2048);
        assertTrue(
                prepared.contains(MessageStatements.POST_CREATING_QUEUE),
                "prepared: " + prepared.size() + " statements");
        assertEquals(
                2,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id "
                                + "WHERE q.project = $1 AND q.name = 'prepared'",
                        project));
    }

    @Test
    void everyStoreStatementFitsTheStatementCache() throws IllegalAccessException {
        int checked = 0;
        for (Class<?> store : List.of(
                MessageStore.class,
                ClaimStore.class,
                QueueStore.class,
                DispatchStore.class,
                SubscriptionStore.class,
                Sweeper.class)) {
            for (Field field : store.getDeclaredFields()) {
                if (field.getType() == String.class && Modifier.isStatic(field.getModifiers())) {
                    field.setAccessible(true);
                    String sql = (String) field.get(null);
                    assertTrue(
                            sql.length() <= StatementCachePoolCreator.STATEMENT_CACHE_SQL_LIMIT,
                            store.getSimpleName() + "." + field.getName() + " is " + sql.length() + " characters");
                    checked++;
                }
            }
        }
        assertTrue(checked > 20, "checked " + checked);
    }

    private static Tuple postParameters(String project) {
        return Tuple.of(project, "prepared", UUID.fromString(Api.CLIENT_ID))
                .addArrayOfInteger(new Integer[] {3600})
                .addArrayOfInteger(new Integer[] {null})
                .addArrayOfString(new String[] {"{\"n\": 1}"})
                .addInteger(262144)
                .addInteger(3600)
                .addInteger(20)
                .addInteger(10000)
                .addString("queues quota")
                .addString("messages quota")
                .addInteger(20000)
                .addString("notifications quota")
                .addString("groups quota")
                .addBoolean(false)
                .addString(null)
                .addBoolean(false)
                .addString("bytes quota")
                .addInteger(NotificationFanOut.MAIL_OFF)
                .addArrayOfString(new String[0]) // no SQS attributes
                .addBoolean(true) // a post may create its queue
                .addArrayOfString(new String[] {null}) // no group
                .addArrayOfString(new String[] {null}) // no traceparent
                .addArrayOfString(new String[] {null}); // no tracestate
    }
}
