package io.pigeon.api.v1;

import io.pigeon.api.ContentTypes;
import io.pigeon.api.Public;
import io.pigeon.api.home.StaticFiles;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** {@code GET /v1/}: the JSON-home document from which clients discover every v1 resource. */
@V1Call
@Path("/v1")
@Public
public class V1HomeResource {

    private static final String DOCUMENT = StaticFiles.load("/api/v1/home.json");

    @GET
    @Produces({ContentTypes.JSON_HOME, MediaType.APPLICATION_JSON})
    public Response home(HttpServerRequest request) {
        // Zaqar serves the document only at "/v1/"; "/v1" is a 404 there, and clients rely on the slash.
        if (!request.path().endsWith("/")) {
            throw new NotFoundException();
        }
        return Response.ok(DOCUMENT, ContentTypes.JSON_HOME)
                .header(HttpHeaders.CACHE_CONTROL, "max-age=86400")
                .build();
    }
}
