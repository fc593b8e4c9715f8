package io.pigeon.scaling;

import io.pigeon.message.MessageService;
import io.pigeon.message.QueueStats;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Rejection;
import io.pigeon.waiting.QueueWaits;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.BackPressureStrategy;
import io.smallrye.mutiny.subscription.MultiEmitter;
import io.vertx.mutiny.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * A queue's depth for autoscalers (KEDA): its counts now, and a stream that says whether the queue is active (its
 * metric above an activation value) at once and again each time that changes.
 *
 * <p>A stream reads the queue's counts (one statement, the statistics of {@code GET …/stats}) when it opens, every
 * {@code pigeon.scaler.recheck}, and each time it is told that messages may have come free. While the queue is
 * inactive the stream watches it through {@link QueueWaits}, as a waiting claim does: the queue is marked for this
 * replica and every post or release to it sends a notice on the database's channel, heard by whichever replica
 * watches. So the first post to an empty queue reports it active within a notice and one statement, whatever replica
 * took the post. While the queue is active the stream does not watch it (posts to a busy queue then send no notice)
 * and sees it empty at the next recheck. A queue that does not exist cannot be marked (its first post creates it
 * unmarked): it is looked for at each recheck.
 *
 * <p>Streams are bounded per replica ({@code pigeon.scaler.max-streams}) and per project
 * ({@code pigeon.scaler.max-streams-per-project}); one more is refused with {@link Rejection.Reason#QUOTA_BACKLOG}.
 * When the replica stops, every stream ends (KEDA opens it again, on another replica).
 */
@ApplicationScoped
public class QueueDepths {

    private static final Logger LOG = Logger.getLogger(QueueDepths.class);

    private final MessageService messages;
    private final QueueDatabases databases;
    private final QueueWaits waits;
    private final Vertx vertx;
    private final ScalerSettings config;
    private final String perReplicaRefusal;
    private final String perProjectRefusal;

    private final Set<ActivityStream> open = ConcurrentHashMap.newKeySet();
    /** Open streams per project; guarded by itself, as is {@link #counted}. */
    private final Map<String, Integer> openPerProject = new HashMap<>();
    /** Open streams counted against the bounds. */
    private int counted;

    private volatile boolean stopping;

    public QueueDepths(
            MessageService messages,
            QueueDatabases databases,
            QueueWaits waits,
            Vertx vertx,
            ScalerSettings scalerSettings) {
        this.messages = messages;
        this.databases = databases;
        this.waits = waits;
        this.vertx = vertx;
        this.config = scalerSettings;
        this.perReplicaRefusal = "This server has " + this.config.maxStreams()
                + " scaler streams open, its limit (pigeon.scaler.max-streams); the scaler is still polled.";
        this.perProjectRefusal = "The project has " + this.config.maxStreamsPerProject()
                + " scaler streams open on this server, its limit (pigeon.scaler.max-streams-per-project); the scaler "
                + "is still polled.";
    }

    /** The queue's counts now; a queue that does not exist has none. */
    public Uni<QueueDepth> depth(String project, QueueName queue) {
        return messages.stats(project, queue).map(QueueDepth::of);
    }

    /**
     * Whether the queue is active ({@code metric} above {@code activation}): first its state now, then each change,
     * until cancelled or the replica stops (then it completes). Fails at once past the bounds on open streams.
     */
    public Multi<Boolean> activity(String project, QueueName queue, DepthMetric metric, double activation) {
        return Multi.createFrom()
                .emitter(
                        emitter -> {
                            if (stopping) {
                                emitter.fail(new Rejection(Rejection.Reason.UNAVAILABLE, "The server is stopping."));
                                return;
                            }
                            try {
                                count(project);
                            } catch (Rejection refused) {
                                emitter.fail(refused);
                                return;
                            }
                            ActivityStream stream = new ActivityStream(project, queue, metric, activation, emitter);
                            open.add(stream);
                            emitter.onTermination(stream::close);
                            stream.start();
                        },
                        BackPressureStrategy.LATEST);
    }

    /** Streams open on this replica now (for tests and metrics). */
    public int openStreams() {
        return open.size();
    }

    private void count(String project) {
        synchronized (openPerProject) {
            if (counted >= config.maxStreams()) {
                throw new Rejection(Rejection.Reason.QUOTA_BACKLOG, perReplicaRefusal);
            }
            int held = openPerProject.getOrDefault(project, 0);
            if (held >= config.maxStreamsPerProject()) {
                throw new Rejection(Rejection.Reason.QUOTA_BACKLOG, perProjectRefusal);
            }
            openPerProject.put(project, held + 1);
            counted++;
        }
    }

    private void uncount(String project) {
        synchronized (openPerProject) {
            openPerProject.computeIfPresent(project, (p, held) -> held <= 1 ? null : held - 1);
            counted--;
        }
    }

    /** Every stream ends now, and none opens: the replica is stopping (KEDA reconnects to another). */
    void stop(@Observes ShutdownDelayInitiatedEvent shutdown) {
        stopAll();
    }

    void stop(@Observes ShutdownEvent shutdown) {
        stopAll();
    }

    private void stopAll() {
        stopping = true;
        List<ActivityStream> all = new ArrayList<>(open);
        all.forEach(ActivityStream::end);
    }

    /** One subscriber's stream: its reads, its watch, and the state it last reported. */
    private final class ActivityStream {
        private final String project;
        private final QueueName queue;
        private final DepthMetric metric;
        private final double activation;
        private final MultiEmitter<? super Boolean> emitter;

        /** The state last reported; null before the first read. Touched by one read at a time. */
        private Boolean reported;

        /** Guarded by this. */
        private boolean reading;
        /** Guarded by this: told while a read ran, so one more read follows it. */
        private boolean readAgain;
        /** Guarded by this: a watch is asked for or held. */
        private boolean watching;
        /** Guarded by this. */
        private QueueWaits.Watch watch;
        /** Guarded by this. */
        private boolean closed;

        /** Guarded by this. */
        private long recheck = -1;

        ActivityStream(
                String project,
                QueueName queue,
                DepthMetric metric,
                double activation,
                MultiEmitter<? super Boolean> emitter) {
            this.project = project;
            this.queue = queue;
            this.metric = metric;
            this.activation = activation;
            this.emitter = emitter;
        }

        void start() {
            long timer = vertx.getDelegate().setPeriodic(config.recheck().toMillis(), id -> read());
            boolean ended;
            synchronized (this) {
                recheck = timer;
                ended = closed;
            }
            if (ended) {
                vertx.getDelegate().cancelTimer(timer); // cancelled while it opened
            } else {
                read();
            }
        }

        /** Reads the queue's counts, unless a read runs (then one more follows it). */
        void read() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                if (reading) {
                    readAgain = true;
                    return;
                }
                reading = true;
            }
            Uni.createFrom()
                    .deferred(() -> PlacedQueue.of(databases, project, queue))
                    .chain(placed -> messages.stats(placed).map(stats -> new Read(placed, stats)))
                    .subscribe()
                    .with(this::readDone, failure -> {
                        LOG.debugf("A scaler stream could not read queue %s: %s", queue, failure.toString());
                        readEnded();
                    });
        }

        private void readDone(Read read) {
            boolean active = metric.of(QueueDepth.of(read.stats())) > activation;
            if (reported == null || reported != active) {
                reported = active;
                emitter.emit(active);
            }
            if (active || read.stats().isEmpty()) {
                unwatch();
            } else {
                watch(read.placed());
            }
            readEnded();
        }

        private void readEnded() {
            boolean again;
            synchronized (this) {
                reading = false;
                again = readAgain && !closed;
                readAgain = false;
            }
            if (again) {
                read();
            }
        }

        /** Watches the (inactive) queue for notices, unless it does already. */
        private void watch(PlacedQueue placed) {
            synchronized (this) {
                if (watching || closed) {
                    return;
                }
                watching = true;
            }
            waits.watch(placed, this::read)
                    .subscribe()
                    .with(
                            found -> {
                                if (found.isEmpty()) {
                                    // Deleted since the read: the recheck looks for it again.
                                    synchronized (this) {
                                        watching = false;
                                    }
                                    return;
                                }
                                boolean kept;
                                synchronized (this) {
                                    kept = watching && watch == null && !closed;
                                    if (kept) {
                                        watch = found.get();
                                    }
                                }
                                if (!kept) {
                                    found.get().close();
                                    return;
                                }
                                read(); // a post committed between the last read and the mark was told to nobody
                            },
                            failure -> {
                                LOG.debugf(
                                        "A scaler stream could not watch queue %s, the recheck tries again: %s",
                                        queue, failure.toString());
                                synchronized (this) {
                                    watching = false;
                                }
                            });
        }

        private void unwatch() {
            QueueWaits.Watch held;
            synchronized (this) {
                held = watch;
                watch = null;
                watching = false;
            }
            if (held != null) {
                held.close();
            }
        }

        /** The replica stops: the stream completes. */
        void end() {
            close();
            emitter.complete();
        }

        /** The subscriber left or the stream ended: nothing more is read or watched, and the stream is uncounted. */
        void close() {
            long timer;
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                timer = recheck;
            }
            if (timer >= 0) {
                vertx.getDelegate().cancelTimer(timer);
            }
            unwatch();
            open.remove(this);
            uncount(project);
        }
    }

    private record Read(PlacedQueue placed, Optional<QueueStats> stats) {}
}
