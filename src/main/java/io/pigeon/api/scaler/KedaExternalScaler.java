package io.pigeon.api.scaler;

import io.grpc.Status;
import io.pigeon.api.scaler.externalscaler.ExternalScaler;
import io.pigeon.api.scaler.externalscaler.GetMetricSpecResponse;
import io.pigeon.api.scaler.externalscaler.GetMetricsRequest;
import io.pigeon.api.scaler.externalscaler.GetMetricsResponse;
import io.pigeon.api.scaler.externalscaler.IsActiveResponse;
import io.pigeon.api.scaler.externalscaler.MetricSpec;
import io.pigeon.api.scaler.externalscaler.MetricValue;
import io.pigeon.api.scaler.externalscaler.ScaledObjectRef;
import io.pigeon.rules.Rejection;
import io.pigeon.scaling.QueueDepth;
import io.pigeon.scaling.QueueDepths;
import io.pigeon.tenancy.BearerTokens;
import io.pigeon.tenancy.TokenTenancy;
import io.pigeon.tenancy.Unauthenticated;
import io.quarkus.grpc.GrpcService;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.vertx.core.Vertx;
import java.time.Instant;
import java.util.function.Function;

/**
 * Pigeon as a KEDA external scaler: KEDA's {@code externalscaler.ExternalScaler} service (src/main/proto), on the
 * gRPC server's port ({@code quarkus.grpc.server.port}, 9010), for triggers of type {@code external} (polled) and
 * {@code external-push} (polled, and told at once through {@code StreamIsActive}).
 *
 * <p>Each call reads the trigger's metadata ({@link ScalerTrigger}) and is admitted for its project as an HTTP request
 * is: with authentication off for any project; in OIDC mode only with a bearer token in the metadata, checked as the
 * HTTP edge checks one, that grants the project (or the operator role). The queue is then looked up in that project
 * only: a queue the project does not have, whether or not another project has one of that name, has no messages.
 * Every refusal is a gRPC status whose description names the metadata key ({@link ScalerStatuses}).
 *
 * <p>The calls run on the event loop and wait on the database without blocking it; the counts come from the queue's
 * statistics through {@link QueueDepths}, the same as {@code GET …/stats} and {@code GET /v3/projects/…/depth}.
 */
@GrpcService
public class KedaExternalScaler implements ExternalScaler {

    private static final String TOKEN_KEYS = ScalerTrigger.TOKEN_FROM_ENV + " (or " + ScalerTrigger.TOKEN + ")";

    private final QueueDepths depths;
    private final TokenTenancy tenancy;
    private final BearerTokens tokens;
    private final Vertx vertx;

    public KedaExternalScaler(QueueDepths depths, TokenTenancy tenancy, BearerTokens tokens, Vertx vertx) {
        this.depths = depths;
        this.tenancy = tenancy;
        this.tokens = tokens;
        this.vertx = vertx;
    }

    /** Whether the queue's metric is above the trigger's activation value now. */
    @Override
    public Uni<IsActiveResponse> isActive(ScaledObjectRef request) {
        return answered(request, trigger -> depth(trigger).map(depth -> IsActiveResponse.newBuilder()
                .setResult(trigger.metric().of(depth) > trigger.activation())
                .build()));
    }

    /** The one metric of the trigger and its target per replica. */
    @Override
    public Uni<GetMetricSpecResponse> getMetricSpec(ScaledObjectRef request) {
        return answered(request, trigger -> Uni.createFrom()
                .item(GetMetricSpecResponse.newBuilder()
                        .addMetricSpecs(MetricSpec.newBuilder()
                                .setMetricName(trigger.metricName())
                                // Older KEDA reads the whole number only; newer the exact one.
                                .setTargetSize(Math.max(1, Math.round(trigger.target())))
                                .setTargetSizeFloat(trigger.target()))
                        .build()));
    }

    /** The queue's metric now. */
    @Override
    public Uni<GetMetricsResponse> getMetrics(GetMetricsRequest request) {
        return answered(request.getScaledObjectRef(), trigger -> {
            if (!trigger.metricName().equals(request.getMetricName())) {
                throw new Rejection(
                        Rejection.Reason.INVALID_PARAMETER,
                        "metricName " + request.getMetricName() + " is not this trigger's metric: GetMetricSpec named "
                                + trigger.metricName() + ".");
            }
            return depth(trigger).map(depth -> {
                long value = trigger.metric().of(depth);
                return GetMetricsResponse.newBuilder()
                        .addMetricValues(MetricValue.newBuilder()
                                .setMetricName(trigger.metricName())
                                .setMetricValue(value)
                                .setMetricValueFloat(value))
                        .build();
            });
        });
    }

    /**
     * Whether the queue is active: at once, then at each change (the first post to an empty queue within a notice, on
     * any replica). In OIDC mode the stream ends UNAUTHENTICATED when its token expires; it ends when this replica
     * stops; past the bounds on streams it is refused RESOURCE_EXHAUSTED (KEDA still polls IsActive).
     */
    @Override
    public Multi<IsActiveResponse> streamIsActive(ScaledObjectRef request) {
        return Multi.createFrom()
                .deferred(() -> {
                    ScalerTrigger trigger = ScalerTrigger.read(request.getScalerMetadataMap());
                    return admitted(trigger)
                            .onItem()
                            .transformToMulti(expiry -> until(
                                    expiry,
                                    depths.activity(
                                            trigger.project(),
                                            trigger.queue(),
                                            trigger.metric(),
                                            trigger.activation())));
                })
                .map(active -> IsActiveResponse.newBuilder().setResult(active).build())
                .onFailure()
                .transform(ScalerStatuses::of);
    }

    /** Not offered: a trigger's metric spec changes only with its metadata, and KEDA then asks GetMetricSpec again. */
    @Override
    public Multi<GetMetricSpecResponse> streamMetricSpec(ScaledObjectRef request) {
        return Multi.createFrom()
                .failure(Status.UNIMPLEMENTED
                        .withDescription("StreamMetricSpec is not offered; GetMetricSpec answers.")
                        .asRuntimeException());
    }

    /** Reads and admits the trigger, then answers; every failure becomes a gRPC status. */
    private <T> Uni<T> answered(ScaledObjectRef request, Function<ScalerTrigger, Uni<T>> answer) {
        return Uni.createFrom()
                .deferred(() -> {
                    ScalerTrigger trigger = ScalerTrigger.read(request.getScalerMetadataMap());
                    return admitted(trigger).chain(expiry -> answer.apply(trigger));
                })
                .onFailure()
                .transform(ScalerStatuses::of);
    }

    private Uni<QueueDepth> depth(ScalerTrigger trigger) {
        return depths.depth(trigger.project(), trigger.queue());
    }

    /**
     * Admits the trigger for its project: with authentication off any project, as over HTTP; in OIDC mode its token
     * must be valid and grant the project. The token's expiry (null when it has none or authentication is off).
     */
    private Uni<Instant> admitted(ScalerTrigger trigger) {
        if (!tenancy.tokensRequired()) {
            return Uni.createFrom().nullItem();
        }
        if (trigger.token() == null) {
            return Uni.createFrom()
                    .failure(new Unauthenticated("scalerMetadata." + TOKEN_KEYS
                            + " is missing: in OIDC mode the trigger carries a bearer token that grants project "
                            + trigger.project() + "."));
        }
        return BearerTokens.checked(tokens.identify(trigger.token()))
                .onFailure(Unauthenticated.class)
                .transform(refused -> new Unauthenticated("scalerMetadata." + TOKEN_KEYS + ": " + refused.getMessage()))
                .map(identity -> {
                    try {
                        tenancy.admit(identity, trigger.project(), true);
                    } catch (Rejection refused) {
                        throw new Rejection(
                                refused.reason(),
                                "scalerMetadata." + ScalerTrigger.PROJECT + ": " + refused.description());
                    }
                    return BearerTokens.expiryOf(identity);
                });
    }

    /** {@code stream}, ended UNAUTHENTICATED at {@code expiry} (never when null). */
    private <T> Multi<T> until(Instant expiry, Multi<T> stream) {
        if (expiry == null) {
            return stream;
        }
        return Multi.createFrom().emitter(emitter -> {
            Cancellable upstream = stream.subscribe().with(emitter::emit, emitter::fail, emitter::complete);
            long timer = vertx.setTimer(Math.max(1, expiry.toEpochMilli() - System.currentTimeMillis()), id -> {
                upstream.cancel();
                emitter.fail(new Unauthenticated(
                        "scalerMetadata." + TOKEN_KEYS + ": the bearer token expired; the stream ends with it."));
            });
            emitter.onTermination(() -> {
                vertx.cancelTimer(timer);
                upstream.cancel();
            });
        });
    }
}
