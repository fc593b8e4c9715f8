package io.pigeon.observability;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * Tracing is off where no OTLP endpoint is configured (the shipped settings, and the test profile): the SDK is
 * disabled, so Vert.x has no tracer, no exporter is made, and Pigeon's own spans are not begun ({@link TracingSwitch}).
 */
@QuarkusTest
class TracingOffTest {

    @Inject
    MessagingSpans spans;

    @Test
    void withoutAnEndpointTheSdkIsDisabled() {
        assertTrue(ConfigProvider.getConfig().getValue(TracingSwitch.SDK_DISABLED, Boolean.class));
        assertFalse(spans.on());
    }
}
