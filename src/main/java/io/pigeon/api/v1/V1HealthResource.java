package io.pigeon.api.v1;

import io.pigeon.api.ErrorMappers;
import io.pigeon.api.Public;
import io.pigeon.health.DatabaseProbe;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;

/** {@code GET|HEAD /v1/health}: 204 while the database answers, 503 while it does not. */
@V1Call
@Path("/v1/health")
@Public
public class V1HealthResource {

    private final DatabaseProbe database;

    public V1HealthResource(DatabaseProbe database) {
        this.database = database;
    }

    @GET
    public Uni<Response> health() {
        return database.reachable()
                .map(up -> up
                        ? Response.noContent().build()
                        : ErrorMappers.error(
                                503, "Service temporarily unavailable", "The database cannot be reached."));
    }
}
