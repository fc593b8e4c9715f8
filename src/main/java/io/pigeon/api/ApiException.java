package io.pigeon.api;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.Response.Status;

/**
 * A failure that the client caused or must know about, carried to the error mapper as status, title and
 * description. Titles are Zaqar's, so that existing clients and operators recognise them.
 */
public class ApiException extends RuntimeException {

    private final int status;
    private final String title;

    public ApiException(int status, String title, String description) {
        super(description, null, false, false);
        this.status = status;
        this.title = title;
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }

    public String description() {
        return getMessage();
    }

    /** This failure as the error-document response that the mapper would give. */
    public Response toResponse() {
        return ErrorMappers.error(status, title, getMessage());
    }

    public static ApiException invalidRequest(String description) {
        return new ApiException(Status.BAD_REQUEST.getStatusCode(), "Invalid API request", description);
    }

    public static ApiException invalidBody(String description) {
        return new ApiException(Status.BAD_REQUEST.getStatusCode(), "Invalid request body", description);
    }

    public static ApiException invalidParameter(String name, String expectation) {
        return new ApiException(
                Status.BAD_REQUEST.getStatusCode(),
                "Invalid parameter",
                "The \"" + name + "\" parameter is invalid. " + expectation);
    }

    public static ApiException notFound(String description) {
        return new ApiException(Status.NOT_FOUND.getStatusCode(), "Not found", description);
    }
}
