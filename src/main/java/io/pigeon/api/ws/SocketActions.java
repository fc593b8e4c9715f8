package io.pigeon.api.ws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.ApiException;
import io.pigeon.api.ApiVersion;
import io.pigeon.api.ClientIds;
import io.pigeon.api.read.ClaimTermsReader;
import io.pigeon.api.read.JsonBodyReader;
import io.pigeon.api.read.MessageIdReader;
import io.pigeon.api.read.MessagePostReader;
import io.pigeon.api.read.PurgeReader;
import io.pigeon.api.read.QueueMetadataReader;
import io.pigeon.api.read.SubscriptionReader;
import io.pigeon.api.view.StatsView;
import io.pigeon.claim.ClaimService;
import io.pigeon.config.PigeonConfig;
import io.pigeon.json.StrictJson;
import io.pigeon.message.Message;
import io.pigeon.message.MessageDeletes;
import io.pigeon.message.MessageIds;
import io.pigeon.message.MessagePops;
import io.pigeon.message.MessageService;
import io.pigeon.message.RequestedIds;
import io.pigeon.purge.QueuePurge;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.QueueService;
import io.pigeon.rules.Rejection;
import io.pigeon.subscription.SocketSubscriptions;
import io.pigeon.subscription.Subscription;
import io.pigeon.subscription.SubscriptionService;
import io.pigeon.tenancy.Caller;
import io.pigeon.tenancy.Projects;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.UUID;
import java.util.stream.StreamSupport;

/**
 * The actions of Zaqar's websocket API, each answered by the services the v2 HTTP resources call, through the same
 * request readers: the rules (names, sizes, limits, quotas, pools, encryption, coalescing) are theirs. This class
 * only reads a frame's fields in place of a path, a query and a body, and writes the answer in Zaqar's websocket
 * shapes (which differ from HTTP v2's: no hrefs, a message's {@code claim_id}, plain-text success bodies).
 */
@ApplicationScoped
class SocketActions {

    private final QueueService queues;
    private final MessageService messages;
    private final MessageDeletes deletes;
    private final MessagePops pops;
    private final ClaimService claims;
    private final SubscriptionService subscriptions;
    private final QueuePurge purges;
    private final SocketSubscriptions socketSubscriptions;
    private final SocketAuthentication authentication;
    private final PigeonConfig config;

    SocketActions(
            QueueService queues,
            MessageService messages,
            MessageDeletes deletes,
            MessagePops pops,
            ClaimService claims,
            SubscriptionService subscriptions,
            QueuePurge purges,
            SocketSubscriptions socketSubscriptions,
            SocketAuthentication authentication,
            PigeonConfig config) {
        this.queues = queues;
        this.messages = messages;
        this.deletes = deletes;
        this.pops = pops;
        this.claims = claims;
        this.subscriptions = subscriptions;
        this.purges = purges;
        this.socketSubscriptions = socketSubscriptions;
        this.authentication = authentication;
        this.config = config;
    }

    /**
     * What the socket bounds say of a frame: admitted, or the socket is to be closed. A frame admitted by a pre-signed
     * grant ({@code grant}, its signature) counts against the grant's bound; any other against its project's.
     */
    interface ProjectAdmission {
        boolean admit(SocketSession session, String project, String grant);
    }

    /** A frame that would break the per-project or per-grant socket bound: its socket is closed (1008). */
    static final class TooManySockets extends RuntimeException {
        TooManySockets(SocketSession session, String project, String grant) {
            super(reason(session, project, grant), null, false, false);
        }

        private static String reason(SocketSession session, String project, String grant) {
            if (grant != null) {
                return session.actsUnderTooMany(grant)
                        ? "A socket may use at most " + SocketSession.MAX_GRANTS_PER_SOCKET + " pre-signed URLs."
                        : "Too many sockets use this pre-signed URL (pigeon.signed-url.max-sockets-per-grant).";
            }
            return session.actsForTooMany(project)
                    ? "A socket may act for at most " + SocketSession.MAX_PROJECTS_PER_SOCKET + " projects."
                    : "Too many sockets act for project " + (project.length() > 64 ? project.substring(0, 64) : project)
                            + ".";
        }
    }

    /**
     * The answer to one decoded request frame. Never fails: every refusal and failure is an answer (the socket
     * stays usable), except {@link TooManySockets}, which closes it.
     */
    Uni<SocketAnswer> answer(SocketSession session, SocketRequest request, ProjectAdmission admission) {
        return Uni.createFrom()
                .deferred(() -> dispatch(session, request, admission))
                .onFailure(failure -> !(failure instanceof TooManySockets))
                .recoverWithItem(SocketActions::refusal);
    }

    private static SocketAnswer refusal(Throwable failure) {
        if (failure instanceof SocketAuthentication.NotAuthenticated) {
            return SocketAnswer.error(403, "Not authentified.");
        }
        if (failure instanceof Refused refused) {
            return refused.answer;
        }
        return SocketErrors.of(failure);
    }

    /** A refusal whose answer is not a rule's (a schema failure, a bad action, a Zaqar-specific error text). */
    private static final class Refused extends RuntimeException {
        private final transient SocketAnswer answer;

        Refused(SocketAnswer answer) {
            super(null, null, false, false);
            this.answer = answer;
        }
    }

    private static Refused schemaFailure() {
        return new Refused(SocketAnswer.error(400, "Schema validation failed."));
    }

    private Uni<SocketAnswer> dispatch(SocketSession session, SocketRequest request, ProjectAdmission admission) {
        String action = request.actionName();
        if (FrameSchema.AUTHENTICATE.equals(action)) {
            // Zaqar's schema: the token and the project (which the token must grant).
            if (!FrameSchema.hasHeaders(request, FrameSchema.AUTH_TOKEN, FrameSchema.PROJECT_ID)) {
                throw schemaFailure();
            }
            return authentication.authenticate(session, request);
        }
        if (action == null || !(FrameSchema.SERVED.containsKey(action) || FrameSchema.UNSERVED.contains(action))) {
            throw new Refused(SocketAnswer.error(400, request.actionAsPython() + " is not a valid action"));
        }
        if (FrameSchema.UNSERVED.contains(action)) {
            // Token mode: refused before authentication, as every action; then not served, for anyone.
            authentication.callerFor(session, request);
            return Uni.createFrom().item(unserved(action));
        }
        // Zaqar's order: the schema, then who is calling (a grant is read on the frame's action and queue_name).
        if (!FrameSchema.valid(
                request, FrameSchema.SERVED.get(action), authentication.projectHeaderRequired(session))) {
            throw schemaFailure();
        }
        Caller caller = authentication.callerFor(session, request);
        String project = Projects.required(caller.project());
        String grant = caller.grantSignature().orElse(null);
        if (!admission.admit(session, project, grant)) {
            throw new TooManySockets(session, project, grant);
        }
        Call call = new Call(session, request, project);
        return switch (action) {
            case "queue_list" -> queueList(call);
            case "queue_create" -> queueCreate(call);
            case "queue_get" -> queueGet(call);
            case "queue_delete" -> queueDelete(call);
            case "queue_get_stats" -> queueStats(call);
            case "queue_purge" -> queuePurge(call);
            case "message_post" -> messagePost(call);
            case "message_list" -> messageList(call);
            case "message_get" -> messageGet(call);
            case "message_get_many" -> messageGetMany(call);
            case "message_delete" -> messageDelete(call);
            case "message_delete_many" -> messageDeleteMany(call);
            case "claim_create" -> claimCreate(call);
            case "claim_get" -> claimGet(call);
            case "claim_update" -> claimUpdate(call);
            case "claim_delete" -> claimDelete(call);
            case "subscription_create" -> subscriptionCreate(call);
            case "subscription_get" -> subscriptionGet(call);
            case "subscription_list" -> subscriptionList(call);
            case "subscription_delete" -> subscriptionDelete(call);
            default -> throw new IllegalStateException("an action without its handler: " + action);
        };
    }

    /** One frame being answered: its socket, the request, and the project it acts for. */
    private record Call(SocketSession session, SocketRequest request, String project) {

        QueueName queue() {
            return QueueName.of(request.text("queue_name"));
        }

        String text(String field) {
            return request.text(field);
        }

        JsonNode field(String name) {
            return request.fields().get(name);
        }

        /** An integer field (the schema made sure it is one); beyond int's range it is clamped, so its bound names it. */
        Integer integer(String name) {
            JsonNode value = field(name);
            return value == null ? null : JsonBodyReader.integerField(name, value);
        }

        boolean flag(String name) {
            JsonNode value = field(name);
            return value != null && value.booleanValue();
        }

        /** The frame's fields named, as one JSON document: what the HTTP readers read from a request body. */
        byte[] document(String... names) {
            ObjectNode document = FrameCodec.object();
            for (String name : names) {
                JsonNode value = field(name);
                if (value != null) {
                    document.set(name, value);
                }
            }
            return FrameCodec.jsonBytes(document);
        }

        /** Zaqar requires a UUID Client-ID to post and to list messages. */
        UUID clientId() {
            return ClientIds.require(request.header(FrameSchema.CLIENT_ID));
        }
    }

    // ---- the actions Zaqar declares but does not serve

    private static SocketAnswer unserved(String action) {
        return SocketAnswer.error(
                501,
                action + " is not served over the websocket (Zaqar 15 declares it without serving it); "
                        + "use the HTTP API for it.");
    }

    // ---- queues

    private Uni<SocketAnswer> queueList(Call call) {
        boolean detailed = call.flag("detailed");
        return queues.list(call.project(), false, call.text("marker"), call.integer("limit"), detailed, null)
                .map(page -> {
                    ArrayNode listed = FrameCodec.array();
                    page.forEach(queue -> {
                        ObjectNode entry = listed.addObject().put("name", queue.name());
                        if (detailed) {
                            entry.set(
                                    "metadata",
                                    queue.metadataJson() == null
                                            ? FrameCodec.object()
                                            : StrictJson.readStoredObject(queue.metadataJson()));
                        }
                    });
                    ObjectNode body = FrameCodec.object();
                    body.set("queues", listed);
                    return new SocketAnswer(200, body);
                });
    }

    private Uni<SocketAnswer> queueCreate(Call call) {
        QueueName queue = call.queue();
        // The metadata document as HTTP reads a PUT's body: bounded (on its compact JSON), then checked by the service.
        ObjectNode metadata = call.field("metadata") == null
                ? FrameCodec.object()
                : QueueMetadataReader.metadata(FrameCodec.jsonBytes(call.field("metadata")), config.maxQueueMetadata());
        return queues.create(call.project(), queue, metadata)
                .map(created -> SocketAnswer.text(created ? 201 : 204, "Queue " + queue + " created."));
    }

    private Uni<SocketAnswer> queueGet(Call call) {
        return queues.metadata(call.project(), call.queue())
                .map(found -> new SocketAnswer(
                        200, found.<JsonNode>map(StrictJson::readStoredObject).orElseGet(FrameCodec::object)));
    }

    private Uni<SocketAnswer> queueDelete(Call call) {
        QueueName queue = call.queue();
        return queues.delete(call.project(), queue)
                .map(deleted -> SocketAnswer.text(204, "Queue " + queue + " removed."));
    }

    /** Counts, and the newest and oldest messages; a queue that does not exist: 404 with zero counts, as Zaqar. */
    private Uni<SocketAnswer> queueStats(Call call) {
        return messages.stats(call.project(), call.queue()).map(found -> {
            ObjectNode counts = FrameCodec.object();
            StatsView.Counts view = found.map(stats -> StatsView.of(stats, MessageIds::format))
                    .orElseGet(StatsView::empty)
                    .messages();
            counts.put("claimed", view.claimed());
            counts.put("free", view.free());
            counts.put("total", view.total());
            if (view.newest() != null) {
                counts.set("newest", edge(view.newest()));
                counts.set("oldest", edge(view.oldest()));
            }
            ObjectNode body = FrameCodec.object();
            body.set("messages", counts);
            return new SocketAnswer(found.isPresent() ? 200 : 404, body);
        });
    }

    /** The newest or oldest message: its id (the view's "href" was made from the id alone), age and creation. */
    private static ObjectNode edge(StatsView.Edge edge) {
        ObjectNode node = FrameCodec.object();
        node.put("id", edge.href());
        node.put("age", edge.age());
        node.put("created", edge.created());
        return node;
    }

    private Uni<SocketAnswer> queuePurge(Call call) {
        PurgeReader.Purge purge = PurgeReader.read(call.request().fields());
        return purges.purge(call.project(), call.queue(), purge.messages(), purge.subscriptions())
                .map(purged -> SocketAnswer.empty(204));
    }

    // ---- messages

    private Uni<SocketAnswer> messagePost(Call call) {
        UUID clientId = call.clientId();
        byte[] document = call.document("messages");
        // The document in v2's shape: each message's ttl, delay (honoured, as HTTP v2 does) and body, bounded as there.
        var posted = MessagePostReader.read(document, ApiVersion.V2, messages.bounds());
        QueueName queue = call.queue();
        return messages.postCreatingQueue(call.project(), queue, clientId, posted, document.length, true, "")
                .map(ids -> {
                    ObjectNode body = FrameCodec.object();
                    ArrayNode listed = body.putArray("message_ids");
                    for (long id : ids) {
                        listed.add(MessageIds.format(id));
                    }
                    return new SocketAnswer(201, body);
                });
    }

    /**
     * A page of messages; unlike Zaqar 15 (which drops the store's marker) the answer names where the next page
     * starts, in {@code "marker"} beside {@code "messages"}, when there may be one.
     */
    private Uni<SocketAnswer> messageList(Call call) {
        UUID clientId = call.clientId();
        QueueName queue = call.queue();
        long after = MessageIdReader.after(call.text("marker"));
        return messages.page(
                        call.project(),
                        queue,
                        clientId,
                        after,
                        call.integer("limit"),
                        call.flag("echo"),
                        call.flag("include_claimed"),
                        false)
                .map(found -> {
                    if (found.isEmpty()) {
                        throw Rejection.notFound("Queue " + queue + " does not exist for project " + call.project());
                    }
                    ObjectNode body = FrameCodec.object();
                    body.set("messages", documents(found.get().messages(), null));
                    if (!found.get().last()) {
                        body.put("marker", MessageIds.format(found.get().nextAfter()));
                    }
                    return new SocketAnswer(200, body);
                });
    }

    private Uni<SocketAnswer> messageGet(Call call) {
        QueueName queue = call.queue();
        String id = call.text("message_id");
        long rowId = MessageIds.parse(id).orElseThrow(() -> MessageService.messageNotFound(call.project(), queue, id));
        return messages.get(call.project(), queue, rowId).map(found -> {
            ObjectNode body = FrameCodec.object();
            body.set(
                    "messages",
                    document(found.orElseThrow(() -> MessageService.messageNotFound(call.project(), queue, id)), null));
            return new SocketAnswer(200, body);
        });
    }

    private Uni<SocketAnswer> messageGetMany(Call call) {
        List<String> ids = texts(call.field("message_ids"));
        if (ids.isEmpty()) {
            // An empty list asks for nothing: Zaqar's bound text, as for too many ids.
            throw Rejection.invalidRequest(
                    "Limit must be at least 1 and may not be greater than " + config.maxMessagesPerPage() + ".");
        }
        return messages.getByIds(call.project(), call.queue(), RequestedIds.of(ids))
                .map(found -> {
                    ObjectNode body = FrameCodec.object();
                    body.set("messages", documents(found, null));
                    return new SocketAnswer(200, body);
                });
    }

    /**
     * Deletes one message. A claim refusal says what Zaqar's does: the message (or claim) in {@code exception}, the
     * rule's own words in {@code error}.
     */
    private Uni<SocketAnswer> messageDelete(Call call) {
        QueueName queue = call.queue();
        String id = call.text("message_id");
        String claimId = call.text("claim_id");
        return deletes.deleteNamed(call.project(), queue, id, MessageIdReader.claimIfNamed(claimId))
                .map(deleted -> SocketAnswer.empty(204))
                .onFailure(Rejection.class)
                .recoverWithItem(failure -> {
                    Rejection refused = (Rejection) failure;
                    return switch (refused.reason()) {
                        case CLAIM_REQUIRED -> SocketAnswer.exception(
                                403, "Message " + id + " is claimed", refused.description());
                        case CLAIM_MISMATCH -> SocketAnswer.exception(
                                400,
                                claimId != null && refused.description().startsWith("A claim was specified")
                                        ? "Message " + id + " is no longer claimed"
                                        : "Claim " + claimId + " does not exist in queue " + queue + " for project "
                                                + call.project(),
                                refused.description());
                        default -> SocketErrors.of(refused);
                    };
                });
    }

    private Uni<SocketAnswer> messageDeleteMany(Call call) {
        JsonNode ids = call.field("message_ids");
        Integer pop = call.integer("pop");
        QueueName queue = call.queue();
        boolean withClaimIds = deletes.deleteNeedsClaimIds();
        List<String> claimIds = withClaimIds && call.field("claim_ids") != null ? texts(call.field("claim_ids")) : null;
        if (ids != null && pop != null) {
            throw Rejection.invalidRequest("pop and id params cannot be present together in the delete request.");
        }
        if (pop != null) {
            if (claimIds != null) {
                throw Rejection.invalidRequest("The request should have both \"ids\" and \"claim_ids\" parameter "
                        + "in the request when message_delete_with_claim_id is True.");
            }
            return pops.pop(call.project(), queue, pop).map(popped -> {
                ObjectNode body = FrameCodec.object();
                body.set("messages", poppedDocuments(popped, UUID.randomUUID()));
                return new SocketAnswer(200, body);
            });
        }
        if (ids == null) {
            throw Rejection.invalidRequest(
                    "The request should have either \"ids\" or \"pop\" parameter in the request, to be able to delete.");
        }
        RequestedIds requested = RequestedIds.of(texts(ids));
        if (withClaimIds) {
            if (claimIds == null) {
                throw Rejection.invalidRequest("The request should have both \"ids\" and \"claim_ids\" parameter "
                        + "in the request when message_delete_with_claim_id is True.");
            }
            return deletes.deleteByIdsWithClaims(
                            call.project(),
                            queue,
                            requested,
                            claimIds.stream().map(MessageIdReader::claim).toList())
                    .map(deleted -> SocketAnswer.empty(204));
        }
        return deletes.deleteByIds(call.project(), queue, requested).map(deleted -> SocketAnswer.empty(204));
    }

    // ---- claims

    private Uni<SocketAnswer> claimCreate(Call call) {
        QueueName queue = call.queue();
        var terms = claims.terms(ClaimTermsReader.claim(call.document("ttl", "grace"), ApiVersion.V2));
        return claims.take(call.project(), queue, call.integer("limit"), terms).map(taken -> {
            ObjectNode body = FrameCodec.object();
            if (taken.isEmpty() || taken.get().messages().isEmpty()) {
                // Zaqar names a claim that holds nothing (204); so does Pigeon, a new id that holds nothing.
                body.put(
                        "claim_id",
                        (taken.isEmpty() ? UUID.randomUUID() : taken.get().id()).toString());
                return new SocketAnswer(204, body);
            }
            UUID claimId = taken.get().id();
            body.put("claim_id", claimId.toString());
            body.set("messages", documents(taken.get().messages(), claimId));
            return new SocketAnswer(201, body);
        });
    }

    private Uni<SocketAnswer> claimGet(Call call) {
        QueueName queue = call.queue();
        String claimId = call.text("claim_id");
        // The service refuses a malformed id before asking the database (thrown, not a failed Uni): deferred, so
        // that both refusals get Zaqar's friendly text.
        return Uni.createFrom()
                .deferred(() -> claims.getNamed(call.project(), queue, claimId))
                .map(claim -> {
                    ObjectNode body = FrameCodec.object();
                    body.put("age", claim.age());
                    body.put("ttl", claim.ttl());
                    body.set("messages", documents(claim.messages(), claim.id()));
                    return new SocketAnswer(200, body);
                })
                .onFailure(Rejection.class)
                .recoverWithItem(failure -> claimMissing((Rejection) failure, claimId));
    }

    private Uni<SocketAnswer> claimUpdate(Call call) {
        QueueName queue = call.queue();
        String claimId = call.text("claim_id");
        // As HTTP v2: a renewal that names no ttl or grace takes the defaults.
        ClaimService.RequestedTerms terms =
                claims.withDefaults(ClaimTermsReader.renewal(call.document("ttl", "grace"), ApiVersion.V2));
        return Uni.createFrom()
                .deferred(() -> claims.renewNamed(call.project(), queue, claimId, terms))
                .map(renewed -> SocketAnswer.text(204, "Claim " + claimId + " updated."))
                .onFailure(Rejection.class)
                .recoverWithItem(failure -> claimMissing((Rejection) failure, claimId));
    }

    /** A claim lookup that found none: Zaqar adds its friendly text; any other refusal as usual. */
    private static SocketAnswer claimMissing(Rejection refused, String claimId) {
        if (refused.reason() == Rejection.Reason.NOT_FOUND) {
            return SocketAnswer.exception(404, refused.description(), "Claim " + claimId + " does not exist.");
        }
        return SocketErrors.of(refused);
    }

    private Uni<SocketAnswer> claimDelete(Call call) {
        String claimId = call.text("claim_id");
        return claims.releaseNamed(call.project(), call.queue(), claimId)
                .map(released -> SocketAnswer.text(204, "Claim " + claimId + " deleted."));
    }

    // ---- subscriptions

    /**
     * Subscribes a subscriber, or, without one (or with an empty one), this socket itself: it then receives Zaqar's
     * notification of every message posted to the queue afterwards, in the encoding of this request frame.
     */
    private Uni<SocketAnswer> subscriptionCreate(Call call) {
        QueueName queue = call.queue();
        String subscriber = call.text("subscriber");
        Uni<Long> created;
        if (subscriber == null || subscriber.isEmpty()) {
            ObjectNode document = FrameCodec.object();
            copy(call, document, "ttl");
            copy(call, document, "options");
            SubscriptionService.Fields read = document.isEmpty()
                    ? new SubscriptionService.Fields(null, null, null)
                    : SubscriptionReader.fields(document);
            SocketSession session = call.session();
            session.subscribing();
            created = socketSubscriptions
                    .subscribe(
                            call.project(),
                            queue,
                            new SubscriptionService.Fields(null, read.ttl(), read.options()),
                            session.inbox())
                    .invoke(id -> session.subscribed(call.request().binary()));
        } else {
            ObjectNode document = FrameCodec.object();
            copy(call, document, "subscriber");
            copy(call, document, "ttl");
            copy(call, document, "options");
            created = subscriptions.create(call.project(), queue, SubscriptionReader.fields(document));
        }
        return created.map(id -> {
                    ObjectNode body = FrameCodec.object();
                    body.put("subscription_id", MessageIds.format(id));
                    body.put("message", "Subscription " + queue + " created.");
                    return new SocketAnswer(201, body);
                })
                .onFailure(failure ->
                        failure instanceof Rejection refused && refused.reason() == Rejection.Reason.DUPLICATE)
                .recoverWithItem(() -> SocketAnswer.text(409, "Subscription " + queue + " not created."));
    }

    private static void copy(Call call, ObjectNode document, String name) {
        JsonNode value = call.field(name);
        if (value != null) {
            document.set(name, value);
        }
    }

    private Uni<SocketAnswer> subscriptionGet(Call call) {
        QueueName queue = call.queue();
        String id = call.text("subscription_id");
        Refused missing = new Refused(SocketAnswer.exception(
                404,
                "Subscription " + id + " does not exist",
                "Subscription " + id + " for queue " + queue + " does not exist."));
        long subscriptionId = MessageIds.parse(id).orElseThrow(() -> missing);
        return subscriptions
                .get(call.project(), queue, subscriptionId)
                .map(found -> new SocketAnswer(200, subscription(found.orElseThrow(() -> missing), queue)));
    }

    private Uni<SocketAnswer> subscriptionList(Call call) {
        QueueName queue = call.queue();
        String marker = call.text("marker");
        long after = marker == null || marker.isEmpty()
                ? 0
                : MessageIds.parse(marker)
                        .orElseThrow(() -> ApiException.invalidParameter(
                                "marker", "The value must be a subscription id from a previous page."));
        return subscriptions
                .list(call.project(), queue, after, call.integer("limit"))
                .map(page -> {
                    ObjectNode body = FrameCodec.object();
                    ArrayNode listed = body.putArray("subscriptions");
                    page.forEach(found -> listed.add(subscription(found, queue)));
                    return new SocketAnswer(200, body);
                });
    }

    private Uni<SocketAnswer> subscriptionDelete(Call call) {
        QueueName queue = call.queue();
        String id = call.text("subscription_id");
        Uni<Void> deleted = MessageIds.parse(id)
                .map(subscriptionId -> {
                    // Unrouted first: a subscription its own client deleted is not stored again after an outage.
                    socketSubscriptions.unsubscribing(call.session().inbox(), call.project(), queue, subscriptionId);
                    return subscriptions.delete(call.project(), queue, subscriptionId);
                })
                .orElseGet(() -> Uni.createFrom().voidItem());
        return deleted.map(done -> SocketAnswer.text(204, "Subscription " + id + " removed."));
    }

    /** Zaqar's subscription document: id, source, subscriber, ttl, age, options, confirmed. */
    private static ObjectNode subscription(Subscription subscription, QueueName queue) {
        ObjectNode document = FrameCodec.object();
        document.put("id", MessageIds.format(subscription.id()));
        document.put("source", queue.name());
        document.put("subscriber", subscription.subscriber());
        document.put("ttl", subscription.ttl());
        document.put("age", subscription.age());
        document.set("options", StrictJson.readStoredObject(subscription.optionsJson()));
        document.put("confirmed", subscription.confirmed());
        return document;
    }

    // ---- message documents

    /**
     * Zaqar's websocket message document: id, claim_id, ttl, age, body. The claim is named where the answer is about
     * one (claim_create, claim_get); elsewhere it is null (Pigeon's readers do not tell which claim holds a message).
     */
    private static ObjectNode document(Message message, UUID claimId) {
        ObjectNode document = FrameCodec.object();
        document.put("id", MessageIds.format(message.id()));
        document.put("claim_id", claimId == null ? null : claimId.toString());
        document.put("ttl", message.ttl());
        document.put("age", message.age());
        document.set("body", FrameCodec.readStored(message.body()));
        return document;
    }

    private static ArrayNode documents(List<Message> messages, UUID claimId) {
        ArrayNode listed = FrameCodec.array();
        messages.forEach(message -> listed.add(document(message, claimId)));
        return listed;
    }

    /**
     * Popped messages as Zaqar's socket answers them: each names the claim that took it and counts it. Pigeon pops
     * with no claim: {@code popId} is an id made for the answer (as the HTTP pop's), naming no claim that can be read.
     * Only pops carry {@code claim_count}: Zaqar's other socket documents have none, and they stay Zaqar's.
     */
    private static ArrayNode poppedDocuments(List<Message> messages, UUID popId) {
        ArrayNode listed = FrameCodec.array();
        messages.forEach(message -> listed.add(document(message, popId).put("claim_count", message.claimCount())));
        return listed;
    }

    private static List<String> texts(JsonNode array) {
        return array == null
                ? List.of()
                : StreamSupport.stream(array.spliterator(), false)
                        .map(JsonNode::asText)
                        .toList();
    }
}
