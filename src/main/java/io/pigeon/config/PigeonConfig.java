package io.pigeon.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * Every limit Pigeon enforces, named after Zaqar's own options so that operators recognise them.
 * Each one can be set from the environment, e.g. {@code PIGEON_MAX_QUEUES_PER_PAGE=50}.
 */
@ConfigMapping(prefix = "pigeon")
@ValidSettings
public interface PigeonConfig {

    /** Largest {@code limit} accepted when listing queues. */
    @WithDefault("20")
    @Min(1)
    int maxQueuesPerPage();

    /** Largest {@code limit} for listing, claiming and getting messages by id. */
    @WithDefault("20")
    @Min(1)
    int maxMessagesPerPage();

    /** Largest message-post document, in bytes. */
    @WithDefault("262144")
    @Min(1)
    int maxMessagesPostSize();

    /** Largest queue-metadata document, in bytes. */
    @WithDefault("65536")
    @Min(1)
    int maxQueueMetadata();

    /** Largest message TTL, in seconds. */
    @WithDefault("1209600")
    @Min(60)
    int maxMessageTtl();

    /** Largest claim TTL, in seconds. */
    @WithDefault("43200")
    @Min(60)
    int maxClaimTtl();

    /** Largest claim grace, in seconds. */
    @WithDefault("43200")
    @Min(60)
    int maxClaimGrace();

    /** Largest request body of any kind, in bytes; larger declared bodies are refused with 413 unread. */
    @WithDefault("1048576")
    @Min(1)
    long maxRequestBody();

    /** Largest message delay (v2), in seconds. */
    @WithDefault("900")
    @Min(0)
    int maxMessageDelay();

    /** A v2 queue's {@code _default_message_ttl} when it sets none. */
    @WithDefault("3600")
    @Min(60)
    int defaultMessageTtl();

    /** A v2 claim's TTL when the request gives none. */
    @WithDefault("300")
    @Min(60)
    int defaultClaimTtl();

    /** A v2 claim's grace when the request gives none. */
    @WithDefault("60")
    @Min(60)
    int defaultClaimGrace();

    /** A subscription's TTL when the request gives none, in seconds. */
    @WithDefault("3600")
    @Min(60)
    int defaultSubscriptionTtl();

    /**
     * Zaqar's {@code message_delete_with_claim_id}: a v2 bulk delete must name the claims ({@code claim_ids}) of
     * the claimed messages among its {@code ids}, which are deleted only with them. Off by default, as in Zaqar.
     */
    @WithDefault("false")
    boolean messageDeleteWithClaimId();

    /** Largest {@code limit} when listing subscriptions. */
    @WithDefault("20")
    @Min(1)
    int maxSubscriptionsPerPage();

    /** Per-project limits: refused with 403 (a count the caller must lower) or 429 (a backlog that drains). */
    Quotas quotas();

    interface Quotas {
        /** Queues one project may have. */
        @WithDefault("10000")
        @Min(1)
        int maxQueuesPerProject();

        /** Messages one queue may hold (counted every {@code check-interval}: a post can pass it by that much). */
        @WithDefault("10000000")
        @Min(1)
        int maxMessagesPerQueue();

        /** Live subscriptions one queue may have. */
        @WithDefault("100")
        @Min(1)
        int maxSubscriptionsPerQueue();

        /**
         * Delivery groups (/v3 pushes and notifications), pending or dead, one project may have (counted every
         * check-interval; "pending" in the name: a dead group counts until it is dropped or its retention ends).
         */
        @WithDefault("1000000")
        @Min(1)
        int maxPendingGroupsPerProject();

        /** /v3 items one project may hold in its pending and dead groups (counted every check-interval). */
        @WithDefault("1000000")
        @Min(1)
        int maxPendingItemsPerProject();

        /**
         * Bytes one project may hold in its pending and dead groups: /v3 item bodies, and each notification's row
         * (body, sealed body, headers, retry policy) (counted every check-interval).
         */
        @WithDefault("1073741824")
        @Min(1)
        long maxPendingBytesPerProject();

        /**
         * Items one /v3 group may hold; checked by the push itself, exactly, concurrent pushes included, and by a
         * requeue whose dead group's items would join a pending one.
         */
        @WithDefault("10000")
        @Min(1)
        int maxItemsPerGroup();

        /**
         * Notifications one post may queue (its messages times the queue's webhook subscribers, and its mail subscribers
         * where mail is on): a post of 20 messages (a page) to 50 subscribers, or of 200 to 5.
         */
        @WithDefault("1000")
        @Min(1)
        int maxNotificationsPerPost();

        /** How often the messages of each queue and the pending groups of each project are counted. */
        @WithDefault("30s")
        String checkInterval();

        /**
         * Keys of idempotent posts (Idempotency-Key headers and dedup_ids) one project may have remembered at once,
         * on each database (counted exactly by each post that takes new ones: never passed).
         */
        @WithDefault("100000")
        @Min(1)
        int maxPostKeysPerProject();
    }

    /** Idempotent posts: how long a queue remembers the keys of its posts. */
    Idempotency idempotency();

    interface Idempotency {
        /** A queue's {@code _dedup_window_seconds} when it sets none: SQS's five minutes. */
        @WithDefault("300")
        @Min(1)
        int defaultWindow();

        /** Largest {@code _dedup_window_seconds} a queue may set, in seconds. */
        @WithDefault("3600")
        @Min(1)
        int maxWindow();
    }

    /** Who may call, and for which projects. */
    Auth auth();

    /** Subscription notifications. */
    Notification notification();

    interface Notification {
        /**
         * Zaqar's {@code [notification] require_confirmation}: a new webhook subscriber is sent a confirmation
         * request (signed with the signed-URL key) and notified only once it has confirmed. Off by default.
         */
        @WithDefault("false")
        boolean requireConfirmation();

        /** The notifications of {@code mailto:} subscribers. */
        Mail mail();

        interface Mail {
            /**
             * Whether {@code mailto:} subscribers are sent their notifications, through the SMTP server that the
             * {@code quarkus.mailer.*} settings name (host, port, TLS, credentials, and the sender,
             * {@code quarkus.mailer.from}, which must be set). Off: they are stored and never sent, as before, and
             * their subscriptions say so.
             */
            @WithDefault("false")
            boolean enabled();

            /**
             * Zaqar's {@code external_confirmation_url}: the page a confirmation mail links to (with the grant in its
             * query). With confirmation required and no such page, a {@code mailto:} subscriber is sent no
             * confirmation request (as in Zaqar), so it is never confirmed nor notified.
             */
            Optional<String> confirmationUrl();

            /**
             * Pigeon's own public base URL (e.g. {@code https://queues.example.com}), for the {@code Url} parameter of
             * a confirmation mail's link: the address of the confirm request (Zaqar's {@code WSGISubscribeURL}, taken
             * from its service catalogue). Unset: the parameter is empty.
             */
            Optional<String> publicUrl();

            /**
             * The domains a {@code mailto:} subscription's {@code options.from} may name (its address's part after
             * {@code @}, compared ignoring case; {@code *.example.com} stands for every subdomain of example.com, not
             * example.com itself). Unset: none, and the only {@code from} accepted is the deployment's own sender's
             * address ({@code quarkus.mailer.from}). Whatever the {@code from}, the SMTP envelope sender is always the
             * deployment's ({@code quarkus.mailer.bounce-address}, else the address of {@code quarkus.mailer.from}).
             */
            Optional<List<String>> allowedFromDomains();

            /**
             * Whether a {@code mailto:} subscriber must confirm (through the link of the confirmation mail) before it is
             * sent any notification, whatever {@code pigeon.notification.require-confirmation} says for webhooks. On by
             * default: otherwise any project could make Pigeon mail any address. With both off, mail goes out unasked.
             */
            @WithDefault("true")
            boolean requireConfirmation();

            /**
             * Mails (notifications and confirmation requests) one project's subscriptions start per minute on this
             * replica: a burst of this many, then one every minute divided by it. Mails past it wait, due when there
             * is room, never dropped, costing no attempt (as calls past the per-address rate do).
             */
            @WithDefault("60")
            @Min(1)
            @Max(60000)
            int maxPerProjectPerMinute();
        }
    }

    /** Zaqar's pre-signed URLs ({@code POST /v2/queues/{name}/share}). */
    // Named here: SmallRye names a group's constraint violations by its Java name (pigeon.claimWait.max) otherwise.
    @WithName("signed-url")
    SignedUrl signedUrl();

    interface SignedUrl {
        /**
         * The HMAC key that signs and checks them ({@code PIGEON_SIGNED_URL_SECRET_KEY}, Zaqar's
         * {@code [signed_url] secret_key}). Unset: no URL can be signed, and none is accepted.
         */
        Optional<String> secretKey();

        /**
         * More keys by id ({@code pigeon.signed-url.keys.<id>}, ids of 1 to 32 letters, digits, {@code _} and
         * {@code -}), so that keys can rotate: a grant signed with one of them carries its id in front of its
         * signature ({@code <id>:<hex>}); the unnamed {@link #secretKey()} signs as Zaqar does (hex alone). Every
         * key is at least 32 bytes, or Pigeon refuses to start.
         */
        Map<String, String> keys();

        /** The id of the key new grants are signed with; left out, the unnamed {@link #secretKey()}. */
        Optional<String> signingKey();

        /**
         * The longest a grant may be valid: a share asking for a later {@code expires} is refused (400), and a
         * grant whose expiry lies further ahead is not accepted. Confirmation requests are valid for the
         * subscription's ttl, at most this long.
         */
        @WithDefault("P7D")
        @PositiveDuration
        Duration maxLifetime();

        /**
         * Claims and pops one grant (one signature) may have waiting at once on this replica; one more is refused
         * (429). They count against this bound instead of the project's ({@code claim-wait.max-waiters-per-project}),
         * so a grant's holder cannot lock the project's own consumers out. At least 1.
         */
        @WithDefault("10")
        @Min(1)
        int maxWaitersPerGrant();

        /**
         * Sockets on one replica that one grant (one signature) may admit frames on; a frame that would make one more
         * closes its socket with 1008. They count against this bound instead of the project's
         * ({@code websocket.max-sockets-per-project}). At least 1.
         */
        @WithDefault("10")
        @Min(1)
        int maxSocketsPerGrant();
    }

    /** Encryption at rest of the queues whose {@code _enable_encrypt_messages} is true. */
    Encryption encryption();

    interface Encryption {
        /**
         * The keys by id, each 32 bytes in base64 ({@code pigeon.encryption.keys.<id>}). Every key a stored
         * message names must stay here for as long as such messages live; new messages take {@link #currentKey()}.
         */
        Map<String, String> keys();

        /**
         * A directory of keys, one file per key, named by its id, holding the key in base64: a mounted
         * Kubernetes secret. Read at start, beside {@link #keys()}.
         */
        Optional<String> keyDirectory();

        /** The id of the key new messages are sealed with; may be left out when there is only one key. */
        Optional<String> currentKey();
    }

    interface Auth {
        /** {@code none}: X-Project-Id is trusted (Zaqar's auth-off case); {@code oidc}: a bearer token is required. */
        @WithDefault("none")
        Mode mode();

        /** The token claim that lists the caller's projects: a string (one project) or an array. */
        @WithDefault("projects")
        String projectsClaim();

        /** The token role that may act for any project and read /v2/health. */
        @WithDefault("pigeon-operator")
        String operatorRole();

        /**
         * With {@code mode=none} only: whether {@code X-Roles: admin} makes a caller the operator, as Zaqar does
         * with auth off. Off by default, so that a caller cannot make itself the operator by sending a header.
         */
        @WithDefault("false")
        boolean trustRolesHeader();

        enum Mode {
            NONE,
            OIDC
        }
    }

    /** How requests on one database share statements. */
    Coalescing coalescing();

    interface Coalescing {
        /**
         * Whether posts, claims and deletes arriving for a database while its statement of that kind is in flight wait
         * and go together in the next statement, whatever their queues. Off: every request is its own statement.
         */
        @WithDefault("true")
        boolean enabled();

        /** Most messages (posted, asked for by claims, named by deletes) one shared statement carries. */
        @WithDefault("1000")
        @Min(1)
        int maxRows();

        /** Most message-body characters (bytes, for ASCII bodies) one shared post statement carries. */
        @WithDefault("4194304")
        @Min(1)
        int maxBytes();

        /**
         * Statements of one kind on one database in flight at once, per replica: 1 lets the most requests share each
         * statement; more overlap their round trips, with fewer requests in each.
         */
        @WithDefault("1")
        @Min(1)
        int maxInFlight();
    }

    /** Pigeon's own vacuum of the message tables. */
    Vacuum vacuum();

    interface Vacuum {
        /** How often, e.g. {@code 10s}; {@code off} leaves it to autovacuum alone. */
        @WithDefault("10s")
        String interval();
    }

    /** The sweeper that deletes expired messages and ends expired claims. */
    Sweeper sweeper();

    interface Sweeper {
        /** How often it runs, e.g. {@code 5s} ({@code off} disables it). Rows are invisible the moment they expire; this bounds storage. */
        @WithDefault("5s")
        String interval();

        /** Rows per statement: short statements, so that the sweeper never holds locks for long. */
        @WithDefault("1000")
        @Min(1)
        int batchSize();

        /** Statements per run and kind, so that one run stays short even after an outage. */
        @WithDefault("100")
        @Min(1)
        int maxBatchesPerRun();
    }

    /**
     * Per-queue metrics (/q/metrics/queues): the periodic sample of each queue's messages, the per-queue counters each
     * replica adds to the database, and the bound on one answer.
     */
    // Named here for the same reason as signedUrl().
    @WithName("queue-metrics")
    QueueMetrics queueMetrics();

    interface QueueMetrics {
        /**
         * Whether queues are sampled and counted: off, no replica samples, counts or flushes, and /q/metrics/queues
         * answers no series. Set it alike on every replica.
         */
        @WithDefault("true")
        boolean enabled();

        /**
         * How often each database is sampled (by one replica at a time) and each replica adds its counts to it: what
         * /q/metrics/queues serves is exact once a queue has been quiet this long.
         */
        @WithDefault("15s")
        @PositiveDuration
        Duration samplePeriod();

        /**
         * Live messages of one queue that one sample counts, oldest first: up to it the counts are exact; past it they
         * are extrapolated from the oldest ones (as stats do past 10,000), so that a deep queue costs a sample no more.
         */
        @WithDefault("10000")
        @Min(1)
        int exactCountLimit();

        /**
         * Series one answer of /q/metrics/queues holds at most (a queue is counted as 12): queues are served whole, in
         * project and queue order, up to it, and the answer says it was truncated ({@code
         * pigeon_queue_series_truncated 1}).
         */
        @WithDefault("60000")
        @Min(1)
        int maxSeries();

        /** Answers of /q/metrics/queues this replica prepares at once; one more is refused (429). */
        @WithDefault("4")
        @Min(1)
        int maxScrapesInFlight();

        /**
         * Bytes of /q/metrics/queues answers this replica holds until their clients have read them: an answer holds
         * its size from when it is ready until it is written or its connection is gone, and one that would pass this
         * is refused (503), unless it is the only one. Each is written 64 KiB at a time, so a client that does not read
         * pins no more than that of direct memory.
         */
        @WithDefault("33554432")
        @Min(1)
        long maxUnwrittenBytes();

        /**
         * Queues one replica holds counts for between two flushes; counts of further queues in that time are dropped
         * (and counted in {@code pigeon_queue_counts_dropped_total}), so that requests naming ever new queues cannot
         * grow the replica's memory.
         */
        @WithDefault("100000")
        @Min(1)
        int maxCountedQueues();
    }

    /**
     * Subscriptions of sockets to queues (Zaqar's websocket self-subscription): how many, how long a replica's hold on
     * them lasts, and how the messages posted to their queues are read back for them.
     */
    // Named here for the same reason as signedUrl().
    @WithName("socket-subscriptions")
    SocketSubscriptions socketSubscriptions();

    interface SocketSubscriptions {
        /** Queues one socket may be subscribed to at once; a subscription past it is refused (403). */
        @WithDefault("100")
        @Min(1)
        int maxPerSocket();

        /**
         * Live socket subscriptions one project may have on one database (the configured one or a pool), whatever
         * socket or replica holds them; a subscription past it is refused (403).
         */
        @WithDefault("1000")
        @Min(1)
        int maxPerProject();

        /**
         * How long a socket subscription outlives the last renewal by the replica that holds its socket: the rows of
         * a replica that died are swept this long after it stopped renewing them.
         */
        @WithDefault("30s")
        @PositiveDuration
        Duration lease();

        /** How often a replica renews the leases of the subscriptions of the sockets it holds (well under lease). */
        @WithDefault("10s")
        @PositiveDuration
        Duration renewal();

        /** Most messages one read-back statement reads for the subscribed sockets of one database. */
        @WithDefault("1000")
        @Min(1)
        int readBackBatch();

        /**
         * Most posted messages waiting to be read back for one database's sockets; past it, notices are dropped (and
         * logged) rather than held without bound.
         */
        @WithDefault("100000")
        @Min(1)
        int maxWaiting();
    }

    /**
     * Long-polling claims and pops (Pigeon's extension): how long a claim or pop may wait for a message, how many may
     * wait at once, and how long a replica's mark on a queue it holds waiters for lasts.
     */
    // Named here for the same reason as signedUrl().
    @WithName("claim-wait")
    ClaimWait claimWait();

    interface ClaimWait {
        /**
         * Longest wait, in seconds, a claim or pop may ask for (its body's {@code wait}, {@code Prefer: wait=N}, or its
         * queue's {@code _claim_wait_seconds}); a body's larger value is refused (400), a header's is capped.
         */
        @WithDefault("20")
        @Min(0)
        int max();

        /** Requests waiting at once on this replica; one more is refused (429). */
        @WithDefault("10000")
        @Min(1)
        int maxWaiters();

        /** Requests of one project waiting at once on this replica; one more is refused (429). */
        @WithDefault("1000")
        @Min(1)
        int maxWaitersPerProject();

        /**
         * How long a replica's mark on a queue it holds waiters for outlives its last renewal: posts to the queue tell
         * the replicas (one NOTIFY each) while a mark is live, so this long after a replica's last waiter left.
         */
        @WithDefault("30s")
        @PositiveDuration
        Duration lease();

        /** How often a replica renews its marks (one statement per database); well under {@code lease}. */
        @WithDefault("10s")
        @PositiveDuration
        Duration renewal();
    }

    /**
     * Dead-letter redrive (Pigeon's extension, {@code POST /v2/queues/{name}/redrive}): how fast a task may move
     * messages, how many tasks a project may hold, how long ended ones are kept, and how replicas share the running.
     */
    Redrive redrive();

    interface Redrive {
        /** A task's rate, in messages per second, when its request names none. */
        @WithDefault("100")
        @Min(1)
        int defaultRate();

        /** The largest rate, in messages per second, a task may ask for; a larger one is refused (400). */
        @WithDefault("1000")
        @Min(1)
        int maxRate();

        /**
         * Tasks one project may hold on one database (the configured one or a pool), running or ended and kept: a new
         * task takes the place of the project's oldest ended one there; with this many running, it is refused (429).
         */
        @WithDefault("100")
        @Min(1)
        int maxTasksPerProject();

        /** How long an ended task (done, cancelled or failed) is kept, for its GET, before the sweeper deletes it. */
        @WithDefault("7d")
        @PositiveDuration
        Duration retention();

        /**
         * How long a replica's hold on a task it runs outlives its last batch: a task whose replica died is taken by
         * another this long after its last batch at most (plus {@code poll-interval}). Well above one second, the
         * longest wait between two batches.
         */
        @WithDefault("10s")
        @DurationMin(seconds = 1, inclusive = false, message = "must be a duration above 1 s (e.g. 10s)")
        Duration lease();

        /** How often each replica looks, on every database, for running tasks that no replica holds. */
        @WithDefault("2s")
        @PositiveDuration
        Duration pollInterval();

        /** Tasks one replica runs at once; the others wait for a replica with room. */
        @WithDefault("16")
        @Min(1)
        int maxRunningPerReplica();

        /**
         * Of the tasks one replica runs at once, how many one project's may be: its further tasks wait (on any replica)
         * until one of its own ends, so that another project's task finds a place at once. At most
         * {@code max-running-per-replica}.
         */
        @WithDefault("4")
        @Min(1)
        int maxRunningPerProjectPerReplica();

        /**
         * Most messages one batch (one statement, one transaction) moves. A task moves about a fifth of its rate per
         * batch, five batches a second, up to this.
         */
        @WithDefault("500")
        @Min(1)
        int maxBatch();
    }

    /**
     * Pigeon as a KEDA external scaler (the gRPC server, {@code quarkus.grpc.server.port}): how many
     * {@code StreamIsActive} streams may be open, how often an open stream reads its queue again, and what a client can
     * make the port hold (connections, calls per connection, unread bytes, time to the first call and to a whole
     * request).
     */
    Scaler scaler();

    interface Scaler {
        /** {@code StreamIsActive} streams open at once on this replica; one more is refused (RESOURCE_EXHAUSTED). */
        @WithDefault("1000")
        @Min(1)
        int maxStreams();

        /** Streams of one project open at once on this replica; one more is refused (RESOURCE_EXHAUSTED). */
        @WithDefault("100")
        @Min(1)
        int maxStreamsPerProject();

        /**
         * How often an open stream reads its queue's counts again (one statement), besides each time a post or a
         * release tells it that messages came free: how soon it reports a queue that emptied, or one created by its
         * first post.
         */
        @WithDefault("10s")
        @PositiveDuration
        Duration recheck();

        /**
         * A connection to the gRPC server with no call in flight for this long is closed (KEDA opens it again when
         * it next asks).
         */
        @WithDefault("5m")
        @PositiveDuration
        Duration idleTimeout();

        /**
         * Connections open at once on the gRPC port of this replica; one more is closed as soon as it is accepted.
         * KEDA's operator keeps one connection (its metrics server another).
         */
        @WithDefault("8")
        @Min(1)
        int maxConnections();

        /**
         * Connections open at once on the gRPC port from one remote address (its share of {@code max-connections}); one
         * more from that address is closed as soon as it is accepted, so one address cannot hold every place. At most
         * {@code max-connections}; behind a proxy every client has the proxy's address (docs/security.md).
         */
        @WithDefault("4")
        @Min(1)
        int maxConnectionsPerAddress();

        /**
         * A connection that has not opened its first call this long after it was accepted (whether or not it completed
         * its HTTP/2 handshake) is closed, and so is one whose handshake takes this long. KEDA calls as soon as it
         * connects; a short deadline makes silent connections cost their holder one new connection per place and
         * deadline. From 100 ms to 60 s.
         */
        @WithDefault("3s")
        @PositiveDuration
        Duration firstCallTimeout();

        /**
         * Calls in flight at once on one connection (HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS): a client opening one
         * more is refused with REFUSED_STREAM (a gRPC client waits for a free place). Each external-push ScaledObject
         * holds one stream on KEDA's connection, and its polls need room beside them.
         */
        @WithDefault("128")
        @Min(1)
        int maxCallsPerConnection();

        /**
         * Bytes a connection, and each of its calls, may send before the server has read them (HTTP/2's flow-control
         * window), instead of grpc-java's 1 MiB.
         */
        @WithDefault("65536")
        @Min(1)
        int flowControlWindow();

        /**
         * A call whose request (one message and the end of the client's side) has not arrived this long after the
         * call opened is ended DEADLINE_EXCEEDED, and the part of the message it held is freed.
         */
        @WithDefault("10s")
        @PositiveDuration
        Duration requestTimeout();
    }

    /** The delivery engine of the delayed-dispatch queue (/v3/queue) and of v2 subscriptions. */
    Dispatch dispatch();

    interface Dispatch {
        /** Whether this replica delivers; every replica may, safely. Enqueueing works either way. */
        @WithDefault("true")
        boolean enabled();

        /** Calls in flight at once, per replica. */
        @WithDefault("64")
        @Min(1)
        int maxConcurrency();

        /** Time to connect to a target. */
        @WithDefault("5s")
        @PositiveDuration
        Duration connectTimeout();

        /** Longest silence from the target once connected (an idle timeout; {@code call-timeout} bounds the whole call). */
        @WithDefault("30s")
        @PositiveDuration
        Duration readTimeout();

        /**
         * Hard deadline of one call, from name resolution to the end of the answer: a target that trickles bytes
         * cannot hold a call slot longer. A group's lease is always this plus a margin.
         */
        @WithDefault("30s")
        @PositiveDuration
        Duration callTimeout();

        /**
         * Hosts and networks a target may be on: host names ({@code receiver}, {@code *.example.com}) and CIDRs
         * ({@code 10.0.0.0/8}, {@code ::1/128}). Unset: any public host. Loopback, private, link-local and other
         * internal addresses are reached only when a CIDR here covers them.
         */
        Optional<List<String>> allowedTargets();

        /** Ports a target may use: numbers, ranges ({@code 8000-8999}) or {@code *}. */
        @WithDefault("80,443,8080,8443")
        List<String> allowedPorts();

        /** Largest body of one call, in bytes: a group's items beyond it go in its next call (one item always goes). */
        @WithDefault("1048576")
        @Min(1)
        int maxCallBytes();

        /** Calls in flight at once for one project, per replica, so that one project's slow targets cannot take every slot. */
        @WithDefault("16")
        @Min(1)
        int maxConcurrencyPerProject();

        /**
         * Calls started per second to one target address (the IP address connected to), per replica, whatever the
         * projects that ask for them: calls past it wait (their groups are put back, due when the address has room),
         * none is dropped and none costs an attempt. The cluster's bound is this times the replicas that deliver.
         */
        @WithDefault("50")
        @Min(1)
        @Max(1_000_000_000)
        int maxCallsPerHostPerSecond();

        /**
         * The secret that keys the marker header every outbound call carries ({@code X-Pigeon-Marker}), by which
         * Pigeon recognises its own calls when something forwards them back to it: a post carrying it is stored
         * and notifies nobody, a /v3 push or requeue carrying it is refused. Unset: a random value the first
         * migration stored in the database, shared by every replica of the deployment. Set it to share the marker
         * between deployments on different databases.
         */
        Optional<String> callMarkerSecret();

        /** How long a dead group is kept (for /v3/dead-groups) before the sweeper deletes it. */
        @WithDefault("7d")
        @PositiveDuration
        Duration deadRetention();

        /** Calls a group gets before it is moved to the dead state (the first call included). */
        @WithDefault("10")
        @Min(1)
        int maxAttempts();

        /** Age after which a failing group is moved to the dead state, whatever its attempts. */
        @WithDefault("1d")
        @PositiveDuration
        Duration maxAge();

        /** Delay before the first retry; each further retry doubles it, up to {@code retry-max}. */
        @WithDefault("1s")
        @PositiveDuration
        Duration retryInitial();

        /** Longest delay between two retries. */
        @WithDefault("5m")
        @PositiveDuration
        Duration retryMax();

        /** Most items one call delivers; a larger group is delivered in several calls, in order. */
        @WithDefault("100")
        @Min(1)
        int maxItemsPerCall();

        /** How far ahead of now a push's {@code ontime} may be (by the database clock). */
        @WithDefault("30d")
        @PositiveDuration
        Duration ontimeHorizon();

        /**
         * Age (since its first push) after which a pending group is moved to the dead state by the sweeper, whatever
         * its fire time: nothing stays pending for ever. Keep it above {@code ontime-horizon}.
         */
        @WithDefault("60d")
        @PositiveDuration
        Duration maxPendingAge();

        /** Largest enqueued body, in bytes. */
        @WithDefault("262144")
        @Min(1)
        int maxBodySize();

        /**
         * Longest sleep of an idle dispatcher. Pushes wake it at once (in-process and by LISTEN/NOTIFY from
         * other replicas); this bounds how late a group can be if a notification is ever lost.
         */
        @WithDefault("10s")
        @PositiveDuration
        Duration maxSleep();
    }

    /**
     * The HTTP port's own checks, ahead of every resource: which hosts it serves (io.pigeon.api.ServedHosts), how long
     * a request may take to arrive and how many connections one client source may hold (io.pigeon.api.RequestDeadlines).
     */
    Http http();

    interface Http {
        /**
         * Host names requests may name ({@code Host}, or an absolute request target) besides those always served:
         * {@code localhost}, any IP address, and {@code quarkus.http.host} when it is a name. Exact names
         * ({@code queues.example.com}), {@code *.example.com} for every name below {@code example.com}, or {@code *}
         * alone for any host (behind an ingress that checks the host itself). A request naming another host is refused
         * with 421. Checked at start: an entry that is none of these stops it.
         */
        Optional<List<String>> allowedHosts();

        /**
         * A request head must have arrived whole within this long of its first byte (of the connection's accept, for
         * its first request); past it the connection is answered 408 and closed. Bytes trickled one at a time do not
         * extend it, unlike the idle timeout. From 1 s to 1 h.
         */
        @WithDefault("10s")
        Duration requestHeadTimeout();

        /**
         * A request body must have arrived whole within this long of the end of its head; past it the request is
         * answered 408 (or the connection cut, when an answer has begun) and the connection closed. Room for the
         * largest body (pigeon.max-request-body, 1 MiB) at 35 KB/s. From 1 s to 1 h.
         */
        @WithDefault("30s")
        Duration requestBodyTimeout();

        /**
         * Connections one client source (an IPv4 address, an IPv6 /64) may hold open at once on one replica; one more
         * is closed as soon as it is seen. 0 turns the share off: needed where every client comes through one proxy
         * address (docs/operations.md).
         */
        @WithDefault("512")
        @Min(0)
        int maxConnectionsPerAddress();
    }

    /** Zaqar's WebSocket transport (io.pigeon.api.ws): what one socket, one project and one replica may hold. */
    Websocket websocket();

    interface Websocket {

        /**
         * Request frames a socket may have sent and not yet had answered: they are answered one at a time, in order,
         * and one more than this closes the socket with 1008.
         */
        @WithDefault("16")
        @Min(1)
        int maxFramesInFlight();

        /**
         * Open sockets on one replica that act for someone: with OIDC, those that authenticated; with authentication
         * off, every socket. Past it the upgrade is refused with 503.
         */
        @WithDefault("3000")
        @Min(1)
        int maxSockets();

        /**
         * With OIDC, sockets on one replica that have not authenticated yet: past it the one that has waited longest
         * without authenticating is closed (1008) to make room for the new one, so that sockets which never
         * authenticate cannot keep a client that does so at once from upgrading.
         */
        @WithDefault("500")
        @Min(1)
        int maxAnonymousSockets();

        /**
         * Sockets one client source (an IPv4 address, an IPv6 /64) may hold open at once on one replica; past it the
         * upgrade is refused with 503. 0 turns the share off (every client through one proxy address).
         */
        @WithDefault("256")
        @Min(0)
        int maxSocketsPerAddress();

        /**
         * Sockets on one replica that may act for one project; a frame that would make one more closes its socket with
         * 1008.
         */
        @WithDefault("1000")
        @Min(1)
        int maxSocketsPerProject();

        /**
         * How often the server pings each socket (the pongs, like frames, show the client is there). Sets
         * quarkus.websockets-next.server.auto-ping-interval.
         */
        @WithDefault("30s")
        @PositiveDuration
        Duration pingInterval();

        /** A socket from which nothing (no frame, no pong) came for this long is closed with 1001. */
        @WithDefault("120s")
        @PositiveDuration
        Duration idleTimeout();

        /**
         * Bytes of notification frames a socket may have waiting to be written (a client that does not read them);
         * one more closes the socket with 1008. Room for a burst of several full posts (262144 bytes each).
         */
        @WithDefault("4194304")
        @Min(1)
        int maxPendingNotificationBytes();

        /**
         * Bytes of request frames one socket may have sent and not yet had answered; a frame past it is not taken,
         * the frames taken are answered, and the socket is closed with 1008. Room for several full posts.
         */
        @WithDefault("4194304")
        @Min(1)
        int maxHeldBytesPerSocket();

        /**
         * Bytes of request frames waiting for their answers and of answers waiting to be written, over all the
         * sockets of one replica: a frame or an answer past it closes its socket with 1013 (try again later), so that
         * sockets whose clients do not read cannot fill the heap together.
         */
        @WithDefault("134217728")
        @Min(1)
        long maxHeldBytes();

        /**
         * With OIDC, a socket that has not authenticated, and has had no frame served by a pre-signed grant, for this
         * long is closed with 1008: it would hold a socket of the replica's bound for nobody.
         */
        @WithDefault("10s")
        @PositiveDuration
        Duration authenticationTimeout();

        /**
         * Bytes of websocket messages that have begun to arrive and not yet ended (held by Netty and Vert.x before
         * Pigeon sees a message), over all the sockets of one replica, counted as the buffers holding them lie (Netty's
         * by its capacity, Vert.x's fragments twice over): a socket whose bytes would pass it is closed with 1013.
         */
        @WithDefault("67108864")
        @Min(1)
        long maxArrivingBytes();

        /**
         * A socket holding part of a message must finish a message within this long, or it is closed with 1008: a
         * client trickling a message, or stopping halfway while it answers pings, cannot keep the room it holds.
         */
        @WithDefault("20s")
        @PositiveDuration
        Duration messageArrivalTimeout();

        /**
         * Origins ({@code https://app.example.com}, {@code http://localhost:3000}) of the web pages that may open a
         * socket, besides Pigeon's own origin (an {@code Origin} naming the host and port of the request's
         * {@code Host}), or {@code *} alone for any page. An upgrade carrying any other {@code Origin}, {@code null}
         * included, is refused with 403; one carrying none (not a browser) is not looked at. Checked at start: an entry
         * that is not {@code http(s)://host[:port]} stops it.
         */
        Optional<List<String>> allowedOrigins();
    }

    /** The web console at {@code /console} (docs/console.md). */
    Console console();

    interface Console {
        /**
         * Whether {@code /console} is served at all. With {@code pigeon.auth.mode=oidc} its users sign in through the
         * OIDC tenant {@code console} (authorization code with PKCE), which needs {@link #sessionSecret()}.
         */
        @WithDefault("true")
        boolean enabled();

        /**
         * OIDC mode: the secret (at least 32 characters) that encrypts the console's sign-in state and session cookies
         * and binds its form tokens to a session. Required when the console is on in OIDC mode; the same on every
         * replica, so that any replica reads a session another one started.
         */
        Optional<String> sessionSecret();

        /** OIDC mode: the client the console signs in as; unset, the API's ({@code quarkus.oidc.client-id}). */
        Optional<String> clientId();

        /**
         * OIDC mode: the console client's secret; unset, the API's ({@code quarkus.oidc.credentials.secret}), and none
         * at all for a public client (PKCE protects the code without one).
         */
        Optional<String> clientSecret();

        /**
         * The projects the console may show; unset: any project (the chooser takes any id). Set, any other project's
         * pages are refused with 403, whatever the URL says.
         */
        Optional<List<String>> projects();

        /** Queues on one page of a project's table (1 to 500). */
        @WithDefault("50")
        @Min(1)
        @Max(500)
        int queuesPerPage();
    }
}
