package io.pigeon.observability;

import io.smallrye.config.ConfigSourceInterceptor;
import io.smallrye.config.ConfigSourceInterceptorContext;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.Priorities;
import jakarta.annotation.Priority;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Keeps OpenTelemetry off until an OTLP endpoint is configured (docs/operations.md, Tracing; decision 0022): Quarkus's
 * extension runs its SDK whenever {@code quarkus.otel.sdk.disabled} is false, its default, and would then trace every
 * request and send the spans to localhost:4317, where nothing listens in most deployments. Here that setting, when
 * nobody set it, answers true unless {@code quarkus.otel.exporter.otlp.endpoint} or its {@code traces.endpoint} is set:
 * one setting turns tracing on, and with none the SDK is disabled at start, so Vert.x gets no tracer and a request
 * pays for no span. Set explicitly (in the environment, a system property or application.properties), the setting
 * wins either way.
 */
@Priority(Priorities.APPLICATION)
public class TracingSwitch implements ConfigSourceInterceptor {

    static final String SDK_DISABLED = "quarkus.otel.sdk.disabled";
    /** The share of Pigeon's own traces that are sampled (its sampler, parentbased_traceidratio, is built in). */
    static final String SAMPLER_ARG = "quarkus.otel.traces.sampler.arg";

    private static final String[] ENDPOINTS = {
        "quarkus.otel.exporter.otlp.traces.endpoint", "quarkus.otel.exporter.otlp.endpoint"
    };

    @Override
    public ConfigValue getValue(ConfigSourceInterceptorContext context, String name) {
        ConfigValue value = context.proceed(name);
        if (SAMPLER_ARG.equals(name)) {
            checkShare(value);
            return value;
        }
        if (!SDK_DISABLED.equals(name) || setByOperator(value)) {
            return value;
        }
        String disabled = Boolean.toString(!endpointConfigured(context));
        return value == null
                ? ConfigValue.builder()
                        .withName(name)
                        .withValue(disabled)
                        .withConfigSourceName(TracingSwitch.class.getSimpleName())
                        .build()
                : value.withValue(disabled);
    }

    /**
     * The names known, with {@link #SDK_DISABLED} among them: the extension hands the OpenTelemetry SDK every
     * {@code quarkus.otel.*} setting it finds by name, and a disabled SDK is one that is told so.
     */
    @Override
    public Iterator<String> iterateNames(ConfigSourceInterceptorContext context) {
        Set<String> names = new LinkedHashSet<>();
        context.iterateNames().forEachRemaining(names::add);
        names.add(SDK_DISABLED);
        return names.iterator();
    }

    /**
     * A share outside 0 to 1 would stop the start deep in the SDK, with a stack trace that names no setting: it stops
     * it here, naming it, as every other bad setting does.
     */
    private static void checkShare(ConfigValue value) {
        if (value == null || value.getValue() == null) {
            return;
        }
        double share;
        try {
            share = Double.parseDouble(value.getValue().trim());
        } catch (NumberFormatException e) {
            share = Double.NaN;
        }
        if (!(share >= 0 && share <= 1)) {
            throw new IllegalArgumentException(SAMPLER_ARG + " (QUARKUS_OTEL_TRACES_SAMPLER_ARG) is '"
                    + value.getValue() + "': it must be a share of the traces from 0 to 1");
        }
    }

    /** A value from a real source; the extension's default (and Quarkus's recorded defaults) sit below ordinal 0. */
    private static boolean setByOperator(ConfigValue value) {
        return value != null && value.getValue() != null && value.getConfigSourceOrdinal() >= 0;
    }

    private static boolean endpointConfigured(ConfigSourceInterceptorContext context) {
        for (String endpoint : ENDPOINTS) {
            // The extension gives both a default (localhost:4317) below ordinal 0: only one that was set counts.
            ConfigValue value = context.proceed(endpoint);
            if (setByOperator(value) && !value.getValue().isBlank()) {
                return true;
            }
        }
        return false;
    }
}
