package io.pigeon.testing;

import static io.restassured.RestAssured.given;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import java.util.UUID;

/** Client-side helpers: each test acts as its own random project, so tests never see each other. */
@WithTestResource(value = PostgresResource.class, scope = TestResourceScope.GLOBAL)
public final class Api {

    public static final String CLIENT_ID = "3381af92-2b9e-11e3-b191-71861300734c";

    private Api() {}

    public static String newProject() {
        return "test-" + UUID.randomUUID();
    }

    /** A request as a JSON client of {@code project} sends it. */
    public static RequestSpecification as(String project) {
        return as(project, CLIENT_ID);
    }

    /** A request of {@code project} that names no client (no Client-ID header). */
    public static RequestSpecification withoutClientId(String project) {
        return given().header("X-Project-Id", project).accept(ContentType.JSON);
    }

    /** A request from another client (Client-ID) of {@code project}. */
    public static RequestSpecification as(String project, String clientId) {
        return given().header("X-Project-Id", project)
                .header("Client-ID", clientId)
                .accept(ContentType.JSON);
    }
}
