package io.pigeon.api;

import io.pigeon.api.metrics.QueueMetricsPath;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.Paths;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;

/**
 * The resources that serve both v2 and v1.1 are declared once, under {@code /{version}}, and those that queues and
 * topics share under {@code /{collection}}; the OpenAPI document lists them under each path clients call (topics in
 * v2 only), without those two parameters. The per-queue metrics are listed under the path operators scrape.
 */
public class OpenApiVersions implements OASFilter {

    private static final String VERSION = "{version}";
    private static final String COLLECTION = "{collection}";
    private static final Set<String> TEMPLATE_PARAMETERS = Set.of("version", "collection");
    /** The dialects the shared resources serve, in the order their paths are listed. */
    private static final List<ApiDialect> DIALECTS =
            List.of(ApiDialect.V2_QUEUES, ApiDialect.V2_TOPICS, ApiDialect.V1_1);

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        Paths paths = openAPI.getPaths();
        if (paths == null || paths.getPathItems() == null) {
            return;
        }
        Map<String, PathItem> expanded = new LinkedHashMap<>();
        paths.getPathItems().forEach((path, item) -> {
            if (!path.contains(VERSION) && !path.contains(COLLECTION)) {
                expanded.put(path.equals(QueueMetricsPath.SERVED) ? QueueMetricsPath.PUBLISHED : path, item);
                return;
            }
            item.getOperations().values().forEach(operation -> {
                List<Parameter> parameters = operation.getParameters();
                if (parameters != null) {
                    operation.setParameters(parameters.stream()
                            .filter(parameter -> !TEMPLATE_PARAMETERS.contains(parameter.getName()))
                            .toList());
                }
            });
            if (item.getParameters() != null) {
                item.setParameters(item.getParameters().stream()
                        .filter(parameter -> !TEMPLATE_PARAMETERS.contains(parameter.getName()))
                        .toList());
            }
            for (ApiDialect dialect : DIALECTS) {
                if (!path.contains(VERSION) && dialect.version() != ApiVersion.V2
                        || !path.contains(COLLECTION) && dialect.topics()) {
                    continue;
                }
                expanded.put(
                        path.replace(VERSION, dialect.version().segment()).replace(COLLECTION, dialect.collection()),
                        item);
            }
        });
        Paths replaced = OASFactory.createPaths();
        expanded.forEach(replaced::addPathItem);
        openAPI.setPaths(replaced);
    }
}
