package io.pigeon.api.metrics;

import io.pigeon.api.ProjectOptional;
import io.pigeon.api.RequestCaller;
import io.pigeon.api.view.QueueSeriesText;
import io.pigeon.queuemetrics.QueueSeries;
import io.pigeon.rules.Rejection;
import io.pigeon.tenancy.TokenTenancy;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * Per-queue series for Prometheus ({@code GET /q/metrics/queues}), filterable by {@code project}, {@code queue} and
 * {@code topic} (each may be given several times). They name tenants' projects and queues, which the aggregate
 * /q/metrics never does, so they are not open as /q/metrics is: with authentication off every project is readable (as
 * every request may name any project then); in OIDC mode a token is required, the operator role reads every project
 * (with or without {@code X-Project-Id}: {@link ProjectOptional}) and any other caller only the project it acts for (a
 * filter naming another is 403, as elsewhere).
 */
@Path(QueueMetricsPath.SERVED)
public class QueueMetricsResource {

    private final QueueSeries series;
    private final RequestCaller caller;
    private final TokenTenancy tenancy;

    public QueueMetricsResource(QueueSeries series, RequestCaller caller, TokenTenancy tenancy) {
        this.series = series;
        this.caller = caller;
        this.tenancy = tenancy;
    }

    @GET
    @ProjectOptional
    public Uni<Response> queues(
            @QueryParam("project") List<String> projects,
            @QueryParam("queue") List<String> queues,
            @QueryParam("topic") List<String> topics) {
        QueueSeries.Filter readable = readable(series.filter(projects, queues, topics));
        return series.read(readable).map(answer -> Response.ok(QueueSeriesText.of(answer))
                .header(HttpHeaders.CONTENT_TYPE, QueueSeriesText.MEDIA_TYPE)
                .build());
    }

    /** The filter narrowed to what the caller may read: one project, the caller's, unless it is the operator. */
    private QueueSeries.Filter readable(QueueSeries.Filter asked) {
        if (!tenancy.tokensRequired() || caller.operator()) {
            // A project named must be one, as on every call, though it narrows nothing here.
            caller.optionalProject();
            return asked;
        }
        String own = caller.requiredProject();
        for (String project : asked.projects()) {
            if (!project.equals(own)) {
                throw new Rejection(
                        Rejection.Reason.FORBIDDEN, "The token does not grant access to project " + project + ".");
            }
        }
        return new QueueSeries.Filter(List.of(own), asked.storedNames());
    }
}
