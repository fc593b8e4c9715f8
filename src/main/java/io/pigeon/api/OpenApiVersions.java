package io.pigeon.api;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.Paths;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;

/**
 * The resources that serve both v2 and v1.1 are declared once, under {@code /{version}}; the OpenAPI document
 * lists them under each version's own path, as clients call them, without the {@code version} parameter.
 */
public class OpenApiVersions implements OASFilter {

    private static final String TEMPLATE = "/{version}";
    private static final List<String> VERSIONS = List.of("/v2", "/v1.1");

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        Paths paths = openAPI.getPaths();
        if (paths == null || paths.getPathItems() == null) {
            return;
        }
        Map<String, PathItem> expanded = new LinkedHashMap<>();
        paths.getPathItems().forEach((path, item) -> {
            if (!path.startsWith(TEMPLATE)) {
                expanded.put(path, item);
                return;
            }
            item.getOperations().values().forEach(operation -> {
                List<Parameter> parameters = operation.getParameters();
                if (parameters != null) {
                    operation.setParameters(parameters.stream()
                            .filter(parameter -> !"version".equals(parameter.getName())).toList());
                }
            });
            if (item.getParameters() != null) {
                item.setParameters(item.getParameters().stream()
                        .filter(parameter -> !"version".equals(parameter.getName())).toList());
            }
            for (String version : VERSIONS) {
                expanded.put(version + path.substring(TEMPLATE.length()), item);
            }
        });
        Paths replaced = OASFactory.createPaths();
        expanded.forEach(replaced::addPathItem);
        openAPI.setPaths(replaced);
    }
}
