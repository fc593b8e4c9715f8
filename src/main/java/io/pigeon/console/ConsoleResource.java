package io.pigeon.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.ApiVersion;
import io.pigeon.api.Public;
import io.pigeon.api.Rejections;
import io.pigeon.api.read.JsonBodyReader;
import io.pigeon.api.read.MessagePostReader;
import io.pigeon.api.read.PurgeReader;
import io.pigeon.api.read.QueueMetadataReader;
import io.pigeon.api.read.RedriveReader;
import io.pigeon.claim.ClaimService;
import io.pigeon.claim.ClaimStore;
import io.pigeon.config.PigeonConfig;
import io.pigeon.dispatch.DispatchService;
import io.pigeon.health.StorageHealth;
import io.pigeon.json.StrictJson;
import io.pigeon.message.Message;
import io.pigeon.message.MessageIds;
import io.pigeon.message.MessagePage;
import io.pigeon.message.MessageService;
import io.pigeon.message.NewMessage;
import io.pigeon.pool.FlavorService;
import io.pigeon.pool.PoolService;
import io.pigeon.pool.StoragePool;
import io.pigeon.purge.QueuePurge;
import io.pigeon.queue.ClaimWaitSettings;
import io.pigeon.queue.IdempotencySettings;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.QueueService;
import io.pigeon.queue.ReservedAttributes;
import io.pigeon.queuemetrics.QueueMetricsStore;
import io.pigeon.queuemetrics.QueueOverview;
import io.pigeon.redrive.RedriveService;
import io.pigeon.redrive.RedriveTask;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.DatabaseFailures;
import io.pigeon.subscription.Subscription;
import io.pigeon.subscription.SubscriptionService;
import io.pigeon.tenancy.AuthSettings;
import io.pigeon.tenancy.Callers;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The web console (docs/console.md): server-rendered pages over the same services the HTTP API calls, with no rule of
 * its own. Every value a page shows is escaped by Qute; every page forbids inline script and style and any origin but
 * its own (Content-Security-Policy); every change is a POST form behind a confirmation page, checked against a
 * cross-site token ({@link ConsoleForms}) and read by the API's own readers, so a bad value is refused with the same
 * words (and status) as through the API, shown on the page.
 */
@Path("/console")
@Produces(MediaType.TEXT_HTML)
// Open to the API's bearer-token check: the console's own sign-in decides who acts (ConsoleSignIn, ConsoleIdentity).
@Public
@ConsoleSignedIn
public class ConsoleResource {

    /** Pages are never framed, never cached, and run nothing that is not a file of this origin. */
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    private static final Pattern INTEGER = Pattern.compile("-?[0-9]{1,9}");
    private static final Map<String, String> NOTICES = Map.of(
            "posted", "The test message was posted.",
            "purged", "The queue's messages were purged.",
            "redrive", "A redrive of this queue's dead letters started: its progress is listed below.",
            "requeued", "The dead group was requeued: it is called again at once.",
            "dropped", "The dead group was dropped with its items.",
            "metadata", "The queue's metadata was replaced.");
    private static final int TASKS_SHOWN = 10;

    @CheckedTemplate(basePath = "console")
    static class Templates {
        static native TemplateInstance chooser(ConsoleViews.Chooser view);

        static native TemplateInstance queues(ConsoleViews.Queues view);

        static native TemplateInstance queue(ConsoleViews.QueuePage view);

        static native TemplateInstance confirm(ConsoleViews.Confirm view);

        static native TemplateInstance failure(ConsoleViews.Failure view);

        static native TemplateInstance dispatch(ConsoleViews.Dispatch view);

        static native TemplateInstance metadata(ConsoleViews.MetadataForm view);

        static native TemplateInstance operator(ConsoleViews.Operator view);

        static native TemplateInstance newQueue(ConsoleViews.NewQueue view);
    }

    /** How a reserved attribute's field is read: a number, a boolean, or text (a queue's name). */
    private enum Kind {
        NUMBER,
        BOOLEAN,
        TEXT
    }

    private record ReservedField(String name, Kind kind) {}

    /**
     * The reserved attributes the metadata form gives a field of its own, as docs/api/v2.md lists them: the scalar
     * ones. The structured ones ({@code _retry_policy}, {@code _flavor}) stay in the JSON text, as the API takes them.
     */
    private static final List<ReservedField> RESERVED_FIELDS = List.of(
            new ReservedField(ReservedAttributes.MAX_MESSAGES_POST_SIZE, Kind.NUMBER),
            new ReservedField(ReservedAttributes.DEFAULT_MESSAGE_TTL, Kind.NUMBER),
            new ReservedField(ReservedAttributes.DEFAULT_MESSAGE_DELAY, Kind.NUMBER),
            new ReservedField(ReservedAttributes.MAX_CLAIM_COUNT, Kind.NUMBER),
            new ReservedField(ReservedAttributes.DEAD_LETTER_QUEUE, Kind.TEXT),
            new ReservedField(ReservedAttributes.DEAD_LETTER_QUEUE_MESSAGES_TTL, Kind.NUMBER),
            new ReservedField(ReservedAttributes.ENABLE_ENCRYPT_MESSAGES, Kind.BOOLEAN),
            new ReservedField(ReservedAttributes.CLAIM_WAIT_SECONDS, Kind.NUMBER),
            new ReservedField(ReservedAttributes.DEDUP_WINDOW_SECONDS, Kind.NUMBER));

    /** The fields each form of the console sends (ConsoleFormBody drops any other). */
    private static final Set<String> TOKEN_FIELD = Set.of(ConsoleForms.FIELD);

    private static final Set<String> NEW_QUEUE_FIELDS = Set.of(ConsoleForms.FIELD, "name", "metadata");

    private static final Set<String> ACTION_FIELDS = Set.of(ConsoleForms.FIELD, "body", "ttl", "delay", "rate");

    private static final Set<String> METADATA_FIELDS = Stream.concat(
                    Stream.of(ConsoleForms.FIELD, "metadata"),
                    RESERVED_FIELDS.stream().map(ReservedField::name))
            .collect(Collectors.toUnmodifiableSet());

    /** Longest value a reserved attribute's field passes on: past it, no valid value exists (a queue name is 64). */
    private static final int RESERVED_FIELD_CHARS = 128;

    /** What a confirmation page and its form do. */
    private enum Action {
        POST("post", "Post a test message to queue %s.", "Post the message"),
        PURGE("purge", "Purge queue %s: delete every message it holds (its subscriptions stay).", "Purge the queue"),
        DELETE("delete", "Delete queue %s, its messages and its subscriptions.", "Delete the queue"),
        REDRIVE(
                "redrive",
                "Redrive queue %s: move its dead letters back to the queues they came from.",
                "Start the redrive");

        final String path;
        final String question;
        final String button;

        Action(String path, String question, String button) {
            this.path = path;
            this.question = question;
            this.button = button;
        }

        static Action of(String path) {
            for (Action action : values()) {
                if (action.path.equals(path)) {
                    return action;
                }
            }
            throw Rejection.notFound("The console has no action named \"" + path.replaceAll("[^\\x20-\\x7e]", "?")
                    + "\"; it has post, purge, delete and redrive.");
        }
    }

    private final PigeonConfig config;
    private final IdempotencySettings idempotencySettings;
    private final ClaimWaitSettings claimWaitSettings;
    private final AuthSettings authSettings;
    private final ConsoleSettings consoleSettings;
    private final QueueOverview overview;
    private final QueueService queues;
    private final MessageService messages;
    private final ClaimService claims;
    private final SubscriptionService subscriptions;
    private final RedriveService redrive;
    private final QueuePurge purge;
    private final DispatchService dispatch;
    private final ConsoleIdentity identity;
    private final PoolService pools;
    private final FlavorService flavors;
    private final StorageHealth health;

    public ConsoleResource(
            PigeonConfig config,
            IdempotencySettings idempotencySettings,
            ClaimWaitSettings claimWaitSettings,
            AuthSettings authSettings,
            ConsoleSettings consoleSettings,
            QueueOverview overview,
            QueueService queues,
            MessageService messages,
            ClaimService claims,
            SubscriptionService subscriptions,
            RedriveService redrive,
            QueuePurge purge,
            DispatchService dispatch,
            ConsoleIdentity identity,
            PoolService pools,
            FlavorService flavors,
            StorageHealth health) {
        this.config = config;
        this.idempotencySettings = idempotencySettings;
        this.claimWaitSettings = claimWaitSettings;
        this.authSettings = authSettings;
        this.consoleSettings = consoleSettings;
        this.overview = overview;
        this.queues = queues;
        this.messages = messages;
        this.claims = claims;
        this.subscriptions = subscriptions;
        this.redrive = redrive;
        this.purge = purge;
        this.dispatch = dispatch;
        this.identity = identity;
        this.pools = pools;
        this.flavors = flavors;
        this.health = health;
    }

    @GET
    public Uni<Response> chooser(
            @QueryParam("project") String project, @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return serve(null, "/console", cookie, null, call -> {
            if (project != null) {
                // The project's page decides whether it may be shown, as it does for a link followed or typed.
                return Uni.createFrom().item(redirect(projectHref(project)));
            }
            return page(
                    Templates.chooser(new ConsoleViews.Chooser(
                            call.frame(),
                            identity.projects().stream()
                                    .map(one -> new ConsoleViews.ProjectLink(one, projectHref(one)))
                                    .toList(),
                            identity.anyProject(),
                            null)),
                    200,
                    call.token());
        });
    }

    /**
     * The operator's view of pools and flavors, for the operator as the API decides it ({@link
     * ConsoleIdentity#operator}).
     */
    @GET
    @Path("/operator")
    public Uni<Response> operator(
            @HeaderParam(Callers.ROLES_HEADER) String roles, @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return serve(null, "/console", cookie, null, call -> operatorView(call, identity.operator(roles)));
    }

    /**
     * The operator view for a caller whose operator role is already decided ({@code operator}); 403 for anyone else,
     * before anything is read. Pools, flavors and counts are read through the services of /v2/pools, /v2/flavors and
     * the storage health check, at most {@value PoolService#MAX_PAGE_SIZE} of each.
     */
    Uni<Response> operatorView(Call call, boolean operator) {
        if (!operator) {
            throw new Rejection(
                    Rejection.Reason.FORBIDDEN,
                    "The operator view is the operator's: as for the API's pools, send X-Roles: admin with"
                            + " pigeon.auth.trust-roles-header=true (authentication off), or sign in with the operator"
                            + " role.");
        }
        return Uni.combine()
                .all()
                .unis(
                        pools.list(null, PoolService.MAX_PAGE_SIZE),
                        flavors.list(null, PoolService.MAX_PAGE_SIZE),
                        health.report(),
                        queues.heldPerDatabase())
                .with((registered, classes, report, held) -> {
                    Map<String, Long> counts = new HashMap<>();
                    String homeQueues = "–";
                    for (QueueService.Held one : held) {
                        if (one.pool() == null) {
                            homeQueues = String.format("%,d", one.queues());
                        } else {
                            counts.put(one.pool(), one.queues());
                        }
                    }
                    Map<String, StorageHealth.Report> byPool = report.pools() == null ? Map.of() : report.pools();
                    List<ConsoleViews.ShownPool> shownPools = new ArrayList<>();
                    for (StoragePool pool : registered) {
                        StorageHealth.Report probed = byPool.get(pool.name());
                        Long count = counts.get(pool.name());
                        shownPools.add(new ConsoleViews.ShownPool(
                                pool.name(),
                                pool.uri().redacted(),
                                pool.weight(),
                                pool.flavor() == null ? "–" : pool.flavor(),
                                probed != null && probed.storage_reachable(),
                                count == null ? "–" : String.format("%,d", count)));
                    }
                    List<ConsoleViews.ShownFlavor> shownFlavors = classes.stream()
                            .map(flavor -> new ConsoleViews.ShownFlavor(
                                    flavor.name(),
                                    flavor.pools().isEmpty() ? "–" : String.join(", ", flavor.pools()),
                                    String.join(", ", FlavorService.capabilities(flavor))))
                            .toList();
                    return new ConsoleViews.Operator(
                            call.frame(),
                            report.storage_reachable(),
                            homeQueues,
                            shownPools,
                            shownFlavors,
                            PoolService.MAX_PAGE_SIZE);
                })
                .chain(view -> page(Templates.operator(view), 200, call.token()));
    }

    @GET
    @Path("/projects/{project}")
    public Uni<Response> project(
            @PathParam("project") String project,
            @QueryParam("filter") String filter,
            @QueryParam("sort") String sort,
            @QueryParam("page") String page,
            @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return serve(project, "/console", cookie, null, call -> {
            ConsoleViews.Frame frame = call.frame();
            QueueOverview.Sort order = QueueOverview.Sort.of(sort);
            int number = pageNumber(page);
            return overview.page(project, filter, order, number, consoleSettings.queuesPerPage())
                    .chain(found -> overview.flows(
                                    project,
                                    found.queues().stream()
                                            .map(QueueMetricsStore.OverviewRow::name)
                                            .toList())
                            .map(flows -> queuesPage(frame, project, found, flows)))
                    .chain(view -> page(Templates.queues(view), 200, call.token()));
        });
    }

    private ConsoleViews.Queues queuesPage(
            ConsoleViews.Frame frame, String project, QueueOverview.Page found, Map<String, QueueOverview.Flow> flows) {
        String base = projectHref(project);
        List<ConsoleViews.QueueRow> rows = new ArrayList<>(found.queues().size());
        for (QueueMetricsStore.OverviewRow row : found.queues()) {
            QueueOverview.Flow flow = flows.get(row.name());
            rows.add(new ConsoleViews.QueueRow(
                    row.name(),
                    base + "/queues/" + row.name(),
                    ConsoleViews.count(row.ready()),
                    ConsoleViews.count(row.claimed()),
                    ConsoleViews.count(row.delayed()),
                    row.ready() == null ? "–" : ConsoleViews.duration(row.oldestReadyAgeSeconds()),
                    row.estimated(),
                    row.deadLetterQueue(),
                    row.deadLetterSourceCount() > 0,
                    row.deadLetterSourceCount() > QueueMetricsStore.SOURCES_NAMED
                            ? String.format(
                                    "%s and %,d more",
                                    row.deadLetterSources(),
                                    row.deadLetterSourceCount() - QueueMetricsStore.SOURCES_NAMED)
                            : row.deadLetterSources(),
                    sparkline(flow == null ? null : flow.postedPerSecond()),
                    sparkline(flow == null ? null : flow.consumedPerSecond()),
                    flow == null
                            ? "No flow in the last hour"
                            : String.format(
                                    "In the last hour: %,.0f posted, %,.0f consumed",
                                    sum(flow.postedPerSecond()) * 60, sum(flow.consumedPerSecond()) * 60)));
        }
        List<ConsoleViews.SortLink> sorts = new ArrayList<>();
        for (QueueOverview.Sort one : QueueOverview.Sort.values()) {
            sorts.add(
                    new ConsoleViews.SortLink(one.text(), listHref(base, found.filter(), one, 1), one == found.sort()));
        }
        String note = found.sampling()
                ? "Counts are the last sample, taken every " + found.samplePeriodSeconds()
                        + " s; – means not sampled yet."
                : "Per-queue metrics are off (pigeon.queue-metrics.enabled=false): no counts are shown.";
        return new ConsoleViews.Queues(
                frame,
                rows,
                sorts,
                found.filter(),
                found.sort().text(),
                found.page(),
                found.pages(),
                found.total(),
                found.page() > 1 ? listHref(base, found.filter(), found.sort(), found.page() - 1) : null,
                found.page() < found.pages() ? listHref(base, found.filter(), found.sort(), found.page() + 1) : null,
                note);
    }

    /**
     * A row's rates for its sparkline, as short as they can be written (a page carries one per queue): "0" for a minute
     * without change, else at most two decimals; empty when the queue has had no flow (drawn flat).
     */
    private static String sparkline(List<Double> perSecond) {
        if (perSecond == null || perSecond.stream().allMatch(rate -> rate == 0)) {
            return "";
        }
        StringBuilder text = new StringBuilder();
        for (Double rate : perSecond) {
            if (!text.isEmpty()) {
                text.append(',');
            }
            text.append(
                    rate == 0
                            ? "0"
                            : new BigDecimal(rate)
                                    .setScale(2, RoundingMode.HALF_UP)
                                    .stripTrailingZeros()
                                    .toPlainString());
        }
        return text.toString();
    }

    private static double sum(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).sum();
    }

    @GET
    @Path("/projects/{project}/queues/{queue}")
    public Uni<Response> queue(
            @PathParam("project") String project,
            @PathParam("queue") String queue,
            @QueryParam("done") String done,
            @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return serve(project, projectHref(project), cookie, null, call -> {
            QueueName name = QueueName.of(queue);
            return existing(project, name).chain(() -> Uni.combine()
                    .all()
                    .unis(
                            overview.one(project, name),
                            queues.metadataWithDefaults(project, name),
                            messages.page(
                                    project, name, UUID.randomUUID(), 0, config.maxMessagesPerPage(), true, true, true),
                            claims.inFlight(project, name),
                            subscriptions.list(project, name, 0, config.maxSubscriptionsPerPage()),
                            redrive.list(project, name),
                            overview.flow(project, name))
                    .with((sample, metadata, page, live, subscribed, tasks, flow) -> queuePage(
                            call.frame(),
                            name,
                            done == null ? null : NOTICES.get(done),
                            sample,
                            metadata,
                            page,
                            live,
                            subscribed,
                            tasks,
                            flow))
                    .chain(view -> page(Templates.queue(view), 200, call.token())));
        });
    }

    @GET
    @Path("/projects/{project}/queues/{queue}/metadata")
    public Uni<Response> metadataForm(
            @PathParam("project") String project,
            @PathParam("queue") String queue,
            @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return serve(project, projectHref(project), cookie, null, call -> {
            QueueName name = QueueName.of(queue);
            return queues.metadata(project, name).chain(found -> {
                ObjectNode stored =
                        StrictJson.readStoredObject(found.orElseThrow(() -> QueueService.queueNotFound(project, name)));
                Map<String, String> values = new HashMap<>();
                for (ReservedField field : RESERVED_FIELDS) {
                    JsonNode value = stored.remove(field.name());
                    if (value != null && !value.isNull()) {
                        values.put(field.name(), value.isTextual() ? value.textValue() : value.toString());
                    }
                }
                return page(
                        Templates.metadata(metadataForm(call, name, null, ConsoleViews.readable(stored), values)),
                        200,
                        call.token());
            });
        });
    }

    /** The form that creates a queue in the project. */
    @GET
    @Path("/projects/{project}/new-queue")
    public Uni<Response> newQueueForm(
            @PathParam("project") String project, @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return serve(
                project,
                projectHref(project),
                cookie,
                null,
                call -> page(
                        Templates.newQueue(new ConsoleViews.NewQueue(
                                call.frame(), projectHref(project) + "/new-queue", call.token(), null, "", "")),
                        200,
                        call.token()));
    }

    /**
     * Creates the queue as the API's v2 {@code PUT} does (QueueService: the name's rules, the queue quota, the reserved
     * attributes' bounds), then shows it; a queue of that name already there is a 409, left as it is. A refusal shows
     * the form again as typed, with the refusal; nothing is created.
     */
    @POST
    @Path("/projects/{project}/new-queue")
    public Uni<Response> createQueue(
            @PathParam("project") String project,
            String raw,
            @CookieParam(ConsoleForms.COOKIE) String cookie,
            @HeaderParam("Sec-Fetch-Site") String fetchSite,
            @HeaderParam("Origin") String origin,
            @HeaderParam("Host") String host,
            @HeaderParam("Content-Type") String contentType) {
        Sender sender = new Sender(cookie, fetchSite, origin, host, contentType);
        return serveForm(project, projectHref(project), sender, raw, NEW_QUEUE_FIELDS, (call, form) -> {
            String name = form.get("name") == null ? "" : form.get("name");
            String metadata = form.get("metadata") == null ? "" : form.get("metadata");
            Uni<Response> done = Uni.createFrom()
                    .deferred(() -> {
                        QueueName queue = QueueName.of(name);
                        return queues.create(project, queue, metadataDocument(metadata, Map.of()))
                                .map(created -> {
                                    if (!created) {
                                        throw new Rejection(
                                                Rejection.Reason.CONFLICT,
                                                "Project " + project + " has a queue " + queue.value()
                                                        + " already; it is left as it is.");
                                    }
                                    return redirect(projectHref(project) + "/queues/" + queue.value());
                                });
                    })
                    .onFailure(failure -> DatabaseFailures.refusedValue(failure) != null)
                    .transform(
                            failure -> Rejection.invalidParameter("metadata", DatabaseFailures.refusedValue(failure)));
            return shownAgain(
                    done,
                    call,
                    refusal -> Templates.newQueue(new ConsoleViews.NewQueue(
                            call.frame(),
                            projectHref(project) + "/new-queue",
                            call.token(),
                            refusal,
                            name.length() > 64 ? name.substring(0, 64) : name,
                            metadata)));
        });
    }

    /**
     * Replaces the queue's metadata with the form's: the JSON text with the reserved fields set into it, read by the
     * API's own metadata reader (its size bound) and stored by the queue service, which checks every reserved
     * attribute's bound before it writes. A refusal shows the form again as typed, with the refusal; nothing changed.
     */
    @POST
    @Path("/projects/{project}/queues/{queue}/metadata")
    public Uni<Response> editMetadata(
            @PathParam("project") String project,
            @PathParam("queue") String queue,
            String raw,
            @CookieParam(ConsoleForms.COOKIE) String cookie,
            @HeaderParam("Sec-Fetch-Site") String fetchSite,
            @HeaderParam("Origin") String origin,
            @HeaderParam("Host") String host,
            @HeaderParam("Content-Type") String contentType) {
        Sender sender = new Sender(cookie, fetchSite, origin, host, contentType);
        return serveForm(project, projectHref(project), sender, raw, METADATA_FIELDS, (call, form) -> {
            QueueName name = QueueName.of(queue);
            String text = form.get("metadata");
            Map<String, String> typed = new HashMap<>();
            for (ReservedField field : RESERVED_FIELDS) {
                String value = form.get(field.name());
                if (value != null) {
                    typed.put(field.name(), value);
                }
            }
            Uni<Response> done = Uni.createFrom()
                    .deferred(() -> queues.replaceMetadata(project, name, metadataDocument(text, typed)))
                    // A value the database refuses (a NUL character, a number past jsonb's) is the form's, refused as
                    // the API refuses it, and shown on the form with the rest.
                    .onFailure(failure -> DatabaseFailures.refusedValue(failure) != null)
                    .transform(
                            failure -> Rejection.invalidParameter("metadata", DatabaseFailures.refusedValue(failure)))
                    .map(replaced -> {
                        if (!replaced) {
                            throw QueueService.queueNotFound(project, name);
                        }
                        return redirect(projectHref(project) + "/queues/" + name.value() + "?done=metadata");
                    });
            return shownAgain(
                    done,
                    call,
                    refusal -> Templates.metadata(metadataForm(call, name, refusal, text == null ? "" : text, typed)));
        });
    }

    /**
     * The metadata document a form makes: its JSON text (an object), with each reserved field that is not blank set
     * into it, read by the API's metadata reader. Field values are passed on as the API would receive them (a number
     * as a number, true or false as a boolean), so the queue service refuses them with the API's words.
     */
    private ObjectNode metadataDocument(String text, Map<String, String> typed) {
        byte[] bytes = (text == null || text.isBlank() ? "{}" : text).getBytes(StandardCharsets.UTF_8);
        if (bytes.length > config.maxQueueMetadata()) {
            throw Rejection.invalidParameter(
                    "metadata", "It may be at most " + config.maxQueueMetadata() + " bytes (max-queue-metadata).");
        }
        JsonNode parsed;
        try {
            parsed = JsonBodyReader.parse(bytes);
        } catch (Rejection notJson) {
            throw Rejection.invalidParameter("metadata", "It must be a JSON object: " + notJson.description());
        }
        if (!parsed.isObject()) {
            throw Rejection.invalidParameter("metadata", "It must be a JSON object, such as {\"owner\": \"team-a\"}.");
        }
        ObjectNode document = (ObjectNode) parsed;
        for (ReservedField field : RESERVED_FIELDS) {
            String value = typed.get(field.name());
            if (value == null || value.isBlank()) {
                continue;
            }
            String trimmed = value.strip();
            if (trimmed.length() > RESERVED_FIELD_CHARS) {
                trimmed = trimmed.substring(0, RESERVED_FIELD_CHARS);
            }
            switch (field.kind()) {
                case NUMBER -> numberOrText(document, field.name(), trimmed);
                case BOOLEAN -> {
                    if (trimmed.equals("true") || trimmed.equals("false")) {
                        document.put(field.name(), Boolean.parseBoolean(trimmed));
                    } else {
                        document.put(field.name(), trimmed);
                    }
                }
                case TEXT -> document.put(field.name(), trimmed);
            }
        }
        return QueueMetadataReader.metadata(
                document.toString().getBytes(StandardCharsets.UTF_8), config.maxQueueMetadata());
    }

    private ConsoleViews.MetadataForm metadataForm(
            Call call, QueueName name, String error, String metadata, Map<String, String> values) {
        String queueHref = call.frame().projectHref() + "/queues/" + name.value();
        List<ConsoleViews.ReservedField> fields = new ArrayList<>(RESERVED_FIELDS.size());
        for (ReservedField field : RESERVED_FIELDS) {
            fields.add(new ConsoleViews.ReservedField(
                    field.name(),
                    "field" + field.name().replace('_', '-'),
                    values.getOrDefault(field.name(), ""),
                    bounds(field.name())));
        }
        return new ConsoleViews.MetadataForm(
                call.frame(), name.value(), queueHref, queueHref + "/metadata", call.token(), error, metadata, fields);
    }

    /** A reserved attribute's bounds and default, from this deployment's settings, as docs/api/v2.md states them. */
    private String bounds(String attribute) {
        return switch (attribute) {
            case ReservedAttributes.MAX_MESSAGES_POST_SIZE -> "1 to " + config.maxMessagesPostSize() + " bytes";
            case ReservedAttributes.DEFAULT_MESSAGE_TTL -> "60 to " + config.maxMessageTtl() + " s; default "
                    + config.defaultMessageTtl();
            case ReservedAttributes.DEFAULT_MESSAGE_DELAY -> "0 to " + config.maxMessageDelay() + " s; default 0";
            case ReservedAttributes.MAX_CLAIM_COUNT -> "1 or more, with a dead-letter queue";
            case ReservedAttributes.DEAD_LETTER_QUEUE -> "a queue's name";
            case ReservedAttributes.DEAD_LETTER_QUEUE_MESSAGES_TTL -> "60 to " + config.maxMessageTtl() + " s";
            case ReservedAttributes.ENABLE_ENCRYPT_MESSAGES -> "true or false; default false";
            case ReservedAttributes.CLAIM_WAIT_SECONDS -> "0 to " + claimWaitSettings.max() + " s";
            case ReservedAttributes.DEDUP_WINDOW_SECONDS -> "1 to "
                    + idempotencySettings.maxWindow() + " s; default "
                    + idempotencySettings.defaultWindow();
            default -> "";
        };
    }

    @GET
    @Path("/projects/{project}/queues/{queue}/{action}")
    public Uni<Response> confirm(
            @PathParam("project") String project,
            @PathParam("queue") String queue,
            @PathParam("action") String action,
            @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return serve(project, projectHref(project), cookie, null, call -> {
            QueueName name = QueueName.of(queue);
            Action chosen = Action.of(action);
            return existing(project, name)
                    .chain(() -> page(
                            Templates.confirm(confirmation(
                                    call.frame(),
                                    name,
                                    chosen,
                                    call.token(),
                                    null,
                                    "{\"hello\": \"pigeon\"}",
                                    "",
                                    "",
                                    "")),
                            200,
                            call.token()));
        });
    }

    @POST
    @Path("/projects/{project}/queues/{queue}/{action}")
    public Uni<Response> act(
            @PathParam("project") String project,
            @PathParam("queue") String queue,
            @PathParam("action") String action,
            String raw,
            @CookieParam(ConsoleForms.COOKIE) String cookie,
            @HeaderParam("Sec-Fetch-Site") String fetchSite,
            @HeaderParam("Origin") String origin,
            @HeaderParam("Host") String host,
            @HeaderParam("Content-Type") String contentType) {
        Sender sender = new Sender(cookie, fetchSite, origin, host, contentType);
        return serveForm(project, projectHref(project), sender, raw, ACTION_FIELDS, (call, form) -> {
            String body = form.get("body");
            String ttl = form.get("ttl");
            String delay = form.get("delay");
            String rate = form.get("rate");
            QueueName name = QueueName.of(queue);
            Action chosen = Action.of(action);
            String queueHref = projectHref(project) + "/queues/" + name.value();
            Uni<Response> done = Uni.createFrom().deferred(() -> switch (chosen) {
                case POST -> post(project, name, body, ttl, delay)
                        .replaceWith(() -> redirect(queueHref + "?done=posted"));
                case PURGE -> purge(project, name).replaceWith(() -> redirect(queueHref + "?done=purged"));
                case DELETE -> existing(project, name)
                        .chain(() -> queues.delete(project, name))
                        .replaceWith(() -> redirect(projectHref(project)));
                case REDRIVE -> redrive(project, name, rate).replaceWith(() -> redirect(queueHref + "?done=redrive"));
            });
            // A refused form is shown again, with what was typed and the refusal, at the refusal's status.
            return shownAgain(
                    done,
                    call,
                    refusal -> Templates.confirm(
                            confirmation(call.frame(), name, chosen, call.token(), refusal, body, ttl, delay, rate)));
        });
    }

    @GET
    @Path("/projects/{project}/dispatch")
    public Uni<Response> dispatch(
            @PathParam("project") String project,
            @QueryParam("done") String done,
            @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return serve(project, projectHref(project), cookie, null, call -> {
            String base = projectHref(project) + "/dispatch/dead/";
            return Uni.combine()
                    .all()
                    .unis(dispatch.pendingByDue(project), dispatch.dead(project, 0, DispatchService.MAX_GROUPS_SHOWN))
                    .with((pending, dead) -> new ConsoleViews.Dispatch(
                            call.frame(),
                            done == null ? null : NOTICES.get(done),
                            pending.stream()
                                    .map(group -> ConsoleViews.ShownGroup.of(
                                            group.group(),
                                            group.items(),
                                            group.inFlight()
                                                    ? "being called"
                                                    : group.dueInSeconds() <= 0
                                                            ? "due now"
                                                            : "in " + ConsoleViews.duration(group.dueInSeconds()),
                                            null))
                                    .toList(),
                            dead.stream()
                                    .map(group -> ConsoleViews.ShownGroup.of(
                                            group.group(), group.items(), "dead", base + group.id()))
                                    .toList(),
                            DispatchService.MAX_GROUPS_SHOWN))
                    .chain(view -> page(Templates.dispatch(view), 200, call.token()));
        });
    }

    @GET
    @Path("/projects/{project}/dispatch/dead/{id}/{action}")
    public Uni<Response> confirmGroup(
            @PathParam("project") String project,
            @PathParam("id") String id,
            @PathParam("action") String action,
            @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return serve(project, projectHref(project) + "/dispatch", cookie, null, call -> {
            long group = groupId(id);
            boolean requeue = groupAction(action);
            String dispatchHref = projectHref(project) + "/dispatch";
            return page(
                    Templates.confirm(new ConsoleViews.Confirm(
                            call.frame(),
                            "dead group " + group,
                            dispatchHref,
                            action,
                            dispatchHref + "/dead/" + group + "/" + action,
                            requeue
                                    ? "Requeue dead group " + group + ": call it again at once, with fresh attempts."
                                    : "Drop dead group " + group + " and its items.",
                            requeue ? "Requeue the group" : "Drop the group",
                            call.token(),
                            null,
                            false,
                            false,
                            "",
                            "",
                            "",
                            "")),
                    200,
                    call.token());
        });
    }

    @POST
    @Path("/projects/{project}/dispatch/dead/{id}/{action}")
    public Uni<Response> actOnGroup(
            @PathParam("project") String project,
            @PathParam("id") String id,
            @PathParam("action") String action,
            String raw,
            @CookieParam(ConsoleForms.COOKIE) String cookie,
            @HeaderParam("Sec-Fetch-Site") String fetchSite,
            @HeaderParam("Origin") String origin,
            @HeaderParam("Host") String host,
            @HeaderParam("Content-Type") String contentType) {
        Sender sender = new Sender(cookie, fetchSite, origin, host, contentType);
        return serveForm(project, projectHref(project) + "/dispatch", sender, raw, TOKEN_FIELD, (call, form) -> {
            long group = groupId(id);
            boolean requeue = groupAction(action);
            Uni<Boolean> done = requeue ? dispatch.requeue(project, group, null) : dispatch.dropDead(project, group);
            return done.map(found -> {
                if (!found) {
                    throw Rejection.notFound("Project " + project + " has no dead group " + group + ".");
                }
                return redirect(projectHref(project) + "/dispatch?done=" + (requeue ? "requeued" : "dropped"));
            });
        });
    }

    private static long groupId(String id) {
        if (id == null || !id.matches("[0-9]{1,18}")) {
            throw Rejection.notFound("A dead group's id is a number.");
        }
        return Long.parseLong(id);
    }

    /** True for requeue, false for drop; anything else is not a page. */
    private static boolean groupAction(String action) {
        return switch (action) {
            case "requeue" -> true;
            case "drop" -> false;
            default -> throw Rejection.notFound("A dead group can be requeued or dropped.");
        };
    }

    /** Posts one message read from the form by the API's own post reader (v2's document and bounds). */
    private Uni<Void> post(String project, QueueName queue, String body, String ttl, String delay) {
        if (body == null || body.isBlank()) {
            throw Rejection.invalidParameter("body", "It is required: the message's body as JSON text.");
        }
        byte[] text = body.getBytes(StandardCharsets.UTF_8);
        if (text.length > messages.bounds().maxPostSize()) {
            throw Rejection.invalidParameter(
                    "body",
                    "It may be at most " + messages.bounds().maxPostSize() + " bytes (max-messages-post-size).");
        }
        JsonNode parsed;
        try {
            parsed = JsonBodyReader.parse(text);
        } catch (Rejection notJson) {
            throw Rejection.invalidParameter(
                    "body",
                    "It must be JSON text (an object, an array, a \"string\", a number, ...): "
                            + notJson.description());
        }
        ObjectNode message = JsonNodeFactory.instance.objectNode();
        message.set("body", parsed);
        numberOrText(message, "ttl", ttl);
        numberOrText(message, "delay", delay);
        ObjectNode document = JsonNodeFactory.instance.objectNode();
        document.putArray("messages").add(message);
        byte[] posted = document.toString().getBytes(StandardCharsets.UTF_8);
        List<NewMessage> read = MessagePostReader.read(posted, ApiVersion.V2, messages.bounds());
        // As the v2 API posts: the queue's reserved attributes give a TTL left empty, the delay and the size bound.
        // (The plain post is v1's, whose messages always carry a TTL: an empty one failed there with a 500.) The
        // console posts to a queue it shows: a missing one is a 404, not created as a post through the API makes it.
        return existing(project, queue)
                .chain(() ->
                        messages.postCreatingQueue(project, queue, UUID.randomUUID(), read, posted.length, true, null))
                .replaceWithVoid();
    }

    private Uni<Void> purge(String project, QueueName queue) {
        ObjectNode document = JsonNodeFactory.instance.objectNode();
        ArrayNode types = document.putArray("resource_types");
        types.add("messages");
        PurgeReader.Purge what = PurgeReader.read(document);
        return existing(project, queue).chain(() -> purge.purge(project, queue, what.messages(), what.subscriptions()));
    }

    private Uni<Void> redrive(String project, QueueName queue, String rate) {
        ObjectNode document = JsonNodeFactory.instance.objectNode();
        numberOrText(document, "rate", rate);
        RedriveService.Request request = RedriveReader.read(document, redrive.maxRate());
        return redrive.start(project, queue, request).replaceWithVoid();
    }

    /** A form field as the API would get it: absent when blank, a number when it is one, else text (refused there). */
    private static void numberOrText(ObjectNode into, String field, String value) {
        if (value == null || value.isBlank()) {
            return;
        }
        String trimmed = value.strip();
        if (INTEGER.matcher(trimmed).matches()) {
            into.put(field, Integer.parseInt(trimmed));
        } else {
            into.put(field, trimmed.length() > 64 ? trimmed.substring(0, 64) : trimmed);
        }
    }

    private ConsoleViews.QueuePage queuePage(
            ConsoleViews.Frame frame,
            QueueName name,
            String notice,
            Optional<QueueMetricsStore.QueueReading> sample,
            ObjectNode metadata,
            Optional<MessagePage> page,
            List<ClaimStore.Live> live,
            List<Subscription> subscribed,
            List<RedriveTask> tasks,
            QueueOverview.Flow flow) {
        List<ConsoleViews.Attribute> reserved = new ArrayList<>();
        metadata.fields().forEachRemaining(field -> {
            if (field.getKey().startsWith("_")) {
                reserved.add(new ConsoleViews.Attribute(
                        field.getKey(),
                        field.getValue().isTextual()
                                ? field.getValue().textValue()
                                : field.getValue().toString()));
            }
        });
        List<ConsoleViews.ShownMessage> shown = new ArrayList<>();
        for (Message message : page.map(MessagePage::messages).orElse(List.of())) {
            String body = message.body();
            boolean cut = body.length() > ConsoleViews.SHOWN_BODY_CHARS;
            // The id as the API gives it (GET /v2/queues/{q}/messages), so it can be used there: not the row number.
            shown.add(new ConsoleViews.ShownMessage(
                    MessageIds.format(message.id()),
                    ConsoleViews.duration((double) message.age()),
                    ConsoleViews.duration((double) message.ttl()),
                    message.claimCount(),
                    cut ? body.substring(0, ConsoleViews.SHOWN_BODY_CHARS) : body,
                    cut ? "… cut: the body is " + body.getBytes(StandardCharsets.UTF_8).length + " bytes" : null));
        }
        List<ConsoleViews.ShownClaim> shownClaims = new ArrayList<>();
        for (ClaimStore.Live claim : live) {
            shownClaims.add(new ConsoleViews.ShownClaim(
                    claim.id().toString(),
                    claim.ttl(),
                    claim.grace(),
                    ConsoleViews.duration((double) claim.age()),
                    ConsoleViews.duration((double) claim.remaining()),
                    claim.messages()));
        }
        List<ConsoleViews.ShownSubscription> shownSubscriptions = new ArrayList<>();
        for (Subscription subscription : subscribed) {
            Subscription.Delivery delivery = subscription.delivery();
            shownSubscriptions.add(new ConsoleViews.ShownSubscription(
                    MessageIds.format(subscription.id()),
                    subscription.subscriber(),
                    subscription.ttl(),
                    ConsoleViews.duration((double) subscription.age()),
                    subscription.confirmed() ? "yes" : "no",
                    deliveryOf(subscription),
                    ago(delivery.lastDeliveredSecondsAgo()),
                    delivery.failures(),
                    ago(delivery.lastFailedSecondsAgo()),
                    delivery.lastError(),
                    subscription.optionsJson()));
        }
        List<ConsoleViews.ShownTask> shownTasks = tasks.stream()
                .limit(TASKS_SHOWN)
                .map(task -> new ConsoleViews.ShownTask(
                        task.id().toString(),
                        task.state().text(),
                        task.target() == null ? "each message's source" : task.target(),
                        task.rate(),
                        task.moved(),
                        task.skipped(),
                        task.reason()))
                .toList();
        QueueMetricsStore.QueueReading reading = sample.orElse(null);
        String totals = reading == null
                ? "–"
                : String.format(
                        "posted %,d · claimed %,d · deleted %,d · dead-lettered %,d · notifications %,d delivered,"
                                + " %,d failed",
                        reading.posted(),
                        reading.claimedTotal(),
                        reading.deleted(),
                        reading.deadLettered(),
                        reading.notificationsDelivered(),
                        reading.notificationsFailed());
        boolean sampled = reading != null && reading.sampled();
        return new ConsoleViews.QueuePage(
                frame,
                name.value(),
                frame.projectHref() + "/queues/" + name.value(),
                notice,
                sampled ? ConsoleViews.count(reading.ready()) : "–",
                sampled ? ConsoleViews.count(reading.claimed()) : "–",
                sampled ? ConsoleViews.count(reading.delayed()) : "–",
                sampled && reading.ready() > 0 ? ConsoleViews.duration(reading.oldestReadyAgeSeconds()) : "–",
                totals,
                joined(flow.minutes()),
                joined(flow.postedPerSecond()),
                joined(flow.consumedPerSecond()),
                String.format(
                        "In the last hour: %,.0f posted, %,.0f consumed (by minute, from the per-queue totals).",
                        sum(flow.postedPerSecond()) * 60, sum(flow.consumedPerSecond()) * 60),
                reserved,
                ConsoleViews.readable(metadata),
                shown,
                config.maxMessagesPerPage(),
                shownClaims,
                shownSubscriptions,
                shownTasks);
    }

    /** How this deployment notifies a subscription, in words: a mail subscriber without mail configured says so. */
    private static String deliveryOf(Subscription subscription) {
        if (subscription.socket()) {
            return "pushed to its WebSocket by the replica that holds it";
        }
        if (subscription.mail() && !subscription.delivered()) {
            return "not sent: mail is not configured here (pigeon.notification.mail.enabled=false)";
        }
        return subscription.mail() ? "mailed by this deployment" : "called by this deployment";
    }

    private static String ago(Long seconds) {
        return seconds == null ? "never" : ConsoleViews.duration((double) seconds) + " ago";
    }

    /** Numbers as a data attribute carries them to the chart: comma-separated, nothing else. */
    private static String joined(List<? extends Number> values) {
        StringBuilder text = new StringBuilder();
        for (Number value : values) {
            if (!text.isEmpty()) {
                text.append(',');
            }
            text.append(value instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : value.toString());
        }
        return text.toString();
    }

    private ConsoleViews.Confirm confirmation(
            ConsoleViews.Frame frame,
            QueueName name,
            Action action,
            String csrf,
            String error,
            String body,
            String ttl,
            String delay,
            String rate) {
        String queueHref = frame.projectHref() + "/queues/" + name.value();
        return new ConsoleViews.Confirm(
                frame,
                name.value(),
                queueHref,
                action.path,
                queueHref + "/" + action.path,
                action.question.formatted(name.value()),
                action.button,
                csrf,
                error,
                action == Action.POST,
                action == Action.REDRIVE,
                body == null ? "" : body,
                ttl == null ? "" : ttl,
                delay == null ? "" : delay,
                rate == null ? "" : rate);
    }

    private Uni<Void> existing(String project, QueueName name) {
        return queues.exists(project, name).map(exists -> {
            if (!exists) {
                throw QueueService.queueNotFound(project, name);
            }
            return null;
        });
    }

    /** The console answers only when it is on; in OIDC mode only to a user whose token the API accepts. */
    private void available() {
        identity.check();
    }

    /** A valid project id the caller may see (ConsoleIdentity: pigeon.console.projects, and the user's token). */
    private void allowed(String project) {
        identity.allow(project);
    }

    private static int pageNumber(String page) {
        if (page == null || page.isEmpty()) {
            return 1;
        }
        if (!INTEGER.matcher(page).matches()) {
            throw Rejection.invalidParameter("page", "It must be an integer from 1 to " + QueueOverview.MAX_PAGE + ".");
        }
        return Integer.parseInt(page);
    }

    private ConsoleViews.Frame frame(String project) {
        return new ConsoleViews.Frame(
                project, project == null ? null : projectHref(project), identity.banner(), identity.user());
    }

    private static String projectHref(String project) {
        return "/console/projects/" + ConsoleViews.segment(project);
    }

    private static String listHref(String base, String filter, QueueOverview.Sort sort, long page) {
        StringBuilder href = new StringBuilder(base).append("?sort=").append(sort.text());
        if (filter != null && !filter.isEmpty()) {
            href.append("&filter=").append(ConsoleViews.segment(filter));
        }
        return href.append("&page=").append(page).toString();
    }

    /** What every page of one request shares once the preamble has passed: its frame and its form token. */
    record Call(ConsoleViews.Frame frame, String token) {}

    /**
     * The preamble of every page, in one place: the console is served at all, the project named by the matched path
     * (null on the chooser) is one this caller may see, and a form ({@code sent}, null for a page) carries this
     * browser's token from this origin; then {@code work} runs. Whatever any of them refuses becomes a page saying so.
     */
    private Uni<Response> serve(
            String project, String back, String cookie, ConsoleForms.Sent sent, Function<Call, Uni<Response>> work) {
        // Off, the console answers as a path nothing serves: the API's 404 document, no page, no cookie.
        ConsoleSignIn.offBecause(authSettings, consoleSettings).ifPresent(off -> {
            throw Rejection.notFound(off);
        });
        ConsoleViews.Frame frame = frame(project);
        String token = ConsoleForms.token(cookie);
        return guarded(frame, back, token, () -> {
            available();
            if (project != null) {
                allowed(project);
            }
            if (sent != null) {
                ConsoleForms.check(cookie, sent);
            }
            return work.apply(new Call(frame, token));
        });
    }

    /** What a browser sent with a form, besides the form: the token cookie and the headers that say where from. */
    private record Sender(String cookie, String fetchSite, String origin, String host, String contentType) {}

    /**
     * Serves a form's POST as {@link #serve} does, the form read by {@link ConsoleFormBody} (the console's own reader:
     * see there why not the HTTP layer's) keeping {@code fields}; a malformed form is refused on a page like any other
     * refusal, after the console and the project are found available, and nothing is done.
     */
    private Uni<Response> serveForm(
            String project,
            String back,
            Sender sender,
            String raw,
            Set<String> fields,
            BiFunction<Call, ConsoleFormBody, Uni<Response>> work) {
        ConsoleFormBody form;
        try {
            ConsoleFormBody.requireFormType(sender.contentType());
            form = ConsoleFormBody.parse(raw, fields);
        } catch (Rejection malformed) {
            return serve(project, back, sender.cookie(), null, call -> Uni.createFrom()
                    .failure(malformed));
        }
        ConsoleForms.Sent sent =
                new ConsoleForms.Sent(form.get(ConsoleForms.FIELD), sender.fetchSite(), sender.origin(), sender.host());
        return serve(project, back, sender.cookie(), sent, call -> work.apply(call, form));
    }

    /**
     * {@code done}, or when it is refused, the form shown again ({@code form}, given the refusal's words) at the
     * refusal's status, so that what was typed is kept; a missing queue or project is the failure page instead.
     */
    private static Uni<Response> shownAgain(Uni<Response> done, Call call, Function<String, TemplateInstance> form) {
        return done.onFailure(Rejection.class).recoverWithUni(refused -> {
            Rejection rejection = (Rejection) refused;
            if (rejection.reason() == Rejection.Reason.NOT_FOUND) {
                return Uni.createFrom().failure(rejection);
            }
            Rejections.Answer answer = Rejections.answer(rejection.reason());
            return page(form.apply(answer.title() + ": " + rejection.description()), answer.status(), call.token());
        });
    }

    /**
     * Runs {@code work}; a refusal becomes a page that says it, at the status the API would answer, with a link back.
     */
    private Uni<Response> guarded(ConsoleViews.Frame frame, String back, String token, Supplier<Uni<Response>> work) {
        return Uni.createFrom()
                .<Response>deferred(work::get)
                .onFailure(Rejection.class)
                .recoverWithUni(refused -> {
                    Rejection rejection = (Rejection) refused;
                    Rejections.Answer answer = Rejections.answer(rejection.reason());
                    return page(
                            Templates.failure(new ConsoleViews.Failure(
                                    frame, answer.status(), answer.title(), rejection.description(), back)),
                            answer.status(),
                            token);
                });
    }

    private static Uni<Response> page(TemplateInstance page, int status, String token) {
        return page.createUni().map(html -> htmlPage(status, html)
                .header("Set-Cookie", ConsoleForms.cookie(token))
                .build());
    }

    /**
     * A console page's answer: the HTML with the headers every console page carries (the strict CSP, no sniffing, no
     * framing, no referrer, no caching), for the console's resources and its sign-in filter alike.
     */
    static Response.ResponseBuilder htmlPage(int status, String html) {
        return Response.status(status)
                .type(MediaType.TEXT_HTML_TYPE.withCharset("UTF-8"))
                .entity(html)
                .header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
                .header("X-Content-Type-Options", "nosniff")
                .header("X-Frame-Options", "DENY")
                .header("Referrer-Policy", "no-referrer")
                .header("Cache-Control", "no-store");
    }

    private static Response redirect(String to) {
        return Response.seeOther(URI.create(to))
                .header("Cache-Control", "no-store")
                .build();
    }
}
