package io.pigeon.api.metrics;

import io.pigeon.api.ProjectOptional;
import io.pigeon.api.RequestCaller;
import io.pigeon.api.view.QueueSeriesText;
import io.pigeon.queuemetrics.QueueSeries;
import io.pigeon.queuemetrics.UnwrittenAnswers;
import io.pigeon.rules.Rejection;
import io.pigeon.tenancy.TokenTenancy;
import io.smallrye.mutiny.Multi;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jboss.resteasy.reactive.RestMulti;

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
    private final UnwrittenAnswers unwritten;

    public QueueMetricsResource(
            QueueSeries series, RequestCaller caller, TokenTenancy tenancy, UnwrittenAnswers unwritten) {
        this.series = series;
        this.caller = caller;
        this.tenancy = tenancy;
        this.unwritten = unwritten;
    }

    /**
     * The answer, written in chunks as the client reads them ({@link UnwrittenAnswers}): a {@code Multi} is written
     * one item at a time, the next once the connection took the last, where a whole answer would sit in direct memory
     * for as long as its client does not read.
     */
    @GET
    @ProjectOptional
    @Produces(QueueSeriesText.MEDIA_TYPE)
    public RestMulti<byte[]> queues(
            @QueryParam("project") List<String> projects,
            @QueryParam("queue") List<String> queues,
            @QueryParam("topic") List<String> topics) {
        QueueSeries.Filter readable = readable(series.filter(projects, queues, topics));
        Multi<byte[]> chunks = series.read(readable)
                .onItem()
                .transformToMulti(
                        answer -> unwritten.chunks(QueueSeriesText.of(answer).getBytes(StandardCharsets.UTF_8)));
        // The type as Prometheus's parsers expect it spelt; @Produces alone would reorder its parameters.
        return RestMulti.fromMultiData(chunks)
                .header(HttpHeaders.CONTENT_TYPE, QueueSeriesText.MEDIA_TYPE)
                .build();
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
