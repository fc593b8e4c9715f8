package io.pigeon.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.smallrye.mutiny.infrastructure.CallbackDecorator;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * Keeps Mutiny's context-propagation decorator off the class path (docs/decisions/0016): it wrapped every callback of
 * every Uni of every request in a capture and a restore of thread contexts, about a tenth of the event loop's time, for
 * contexts that already travel with the Vert.x context a request runs on. A dependency that brought its jar back
 * through another path than the pom's quarkus-mutiny declaration would bring the cost back silently; this says so.
 */
class NoMutinyContextPropagationTest {

    @Test
    void noCallbackDecoratorPropagatesThreadContexts() {
        List<String> decorators = ServiceLoader.load(CallbackDecorator.class).stream()
                .map(provider -> provider.type().getName())
                .filter(name -> name.startsWith("io.smallrye.mutiny.context."))
                .toList();
        assertEquals(List.of(), decorators);
    }
}
