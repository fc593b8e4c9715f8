package io.pigeon.deploy;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The Kubernetes manifests must describe this application: every probe path answers, every port is the
 * one Pigeon listens on, and every environment variable they set is one Pigeon reads.
 */
@QuarkusTest
class KubernetesManifestsTest {

    private static final Path BASE = Path.of("k8s/base");
    private static final Path EXAMPLES = Path.of("k8s/examples");

    @Test
    void probesPointAtEndpointsThatAnswer() throws IOException {
        Map<String, Object> container = container();
        int port = productionHttpPort();
        List<Map<String, Object>> ports = list(container.get("ports"));
        assertEquals(
                port, ((Number) ports.get(0).get("containerPort")).intValue(), "containerPort is Pigeon's HTTP port");
        String portName = (String) ports.get(0).get("name");
        Api.newProject(); // the shared database must be up for readiness
        for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
            Map<String, Object> httpGet = map(map(container.get(probe)).get("httpGet"));
            assertEquals(portName, httpGet.get("port"), probe + " uses the named HTTP port");
            given().get((String) httpGet.get("path")).then().statusCode(200);
        }
    }

    @Test
    void everyEnvironmentVariableIsOnePigeonReads() throws IOException {
        Set<String> known = new TreeSet<>();
        for (String property : ConfigProvider.getConfig().getPropertyNames()) {
            known.add(envName(property.replaceFirst("^%[^.]+\\.", "")));
        }
        Set<String> set = new TreeSet<>();
        List<Map<String, Object>> documents = new ArrayList<>(documents(BASE));
        documents.addAll(documents(EXAMPLES));
        for (Map<String, Object> document : documents) {
            switch ((String) document.get("kind")) {
                case "ConfigMap" -> set.addAll(map(document.get("data")).keySet());
                    // The message keys are mounted as files (one per key id), not read as environment variables.
                case "Secret" -> {
                    if (!"pigeon-message-keys"
                            .equals(map(document.get("metadata")).get("name"))) {
                        set.addAll(map(document.get("stringData")).keySet());
                    }
                }
                default -> {}
            }
        }
        for (Map<String, Object> env : list(container().getOrDefault("env", List.of()))) {
            set.add((String) env.get("name"));
        }
        assertFalse(set.isEmpty());
        Set<String> unknown =
                set.stream().filter(name -> !known.contains(name)).collect(Collectors.toCollection(TreeSet::new));
        assertTrue(unknown.isEmpty(), "set by the manifests but not read by Pigeon: " + unknown);
    }

    @Test
    void containersRunAsNonRootOnAReadOnlyFilesystem() throws IOException {
        Map<String, Object> pod = map(map(deployment().get("spec")).get("template"));
        assertEquals(
                Boolean.TRUE, map(map(pod.get("spec")).get("securityContext")).get("runAsNonRoot"));
        assertEquals(Boolean.TRUE, map(container().get("securityContext")).get("readOnlyRootFilesystem"));
        assertEquals(2, ((Number) map(deployment().get("spec")).get("replicas")).intValue());
        for (String overlay : List.of("jvm", "native")) {
            String kustomization = Files.readString(Path.of("k8s/overlays", overlay, "kustomization.yaml"));
            assertTrue(kustomization.contains("../../base") && kustomization.contains("runAsUser"), overlay);
        }
    }

    /**
     * What `kubectl apply -k` installs holds no secret placeholder and mounts no service-account token, does
     * not open every cluster service to outbound calls, and an egress policy example keeps calls off private
     * networks.
     */
    @Test
    void theInstallHoldsNoPlaceholderSecretNoTokenAndNoClusterWideTargets() throws IOException {
        assertTrue(documents(BASE).stream().noneMatch(d -> "Secret".equals(d.get("kind"))), "a Secret in k8s/base");
        Map<String, Object> podSpec =
                map(map(map(deployment().get("spec")).get("template")).get("spec"));
        assertEquals(Boolean.FALSE, podSpec.get("automountServiceAccountToken"));
        Map<String, Object> config = documents(BASE).stream()
                .filter(d -> "ConfigMap".equals(d.get("kind")))
                .findFirst()
                .orElseThrow();
        Object targets = map(config.get("data")).get("PIGEON_DISPATCH_ALLOWED_TARGETS");
        assertTrue(targets == null || !targets.toString().contains("*.svc"), "cluster-wide targets: " + targets);
        Map<String, Object> policy = documents(EXAMPLES).stream()
                .filter(d -> "NetworkPolicy".equals(d.get("kind")))
                .findFirst()
                .orElseThrow();
        assertEquals(List.of("Egress"), map(policy.get("spec")).get("policyTypes"));
        String text = Files.readString(EXAMPLES.resolve("networkpolicy-egress.yaml"));
        for (String cidr : List.of("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16")) {
            assertTrue(text.contains("- " + cidr), "egress to " + cidr + " not excluded");
        }
    }

    /**
     * The scaler's port is Pigeon's gRPC port in the Deployment, the Service and the external scaler's examples; the
     * metrics-api example reads the depth endpoint, whose answer holds the value it names.
     */
    @Test
    void theKedaExamplesReachTheScalerAndTheDepthEndpoint() throws IOException {
        int grpcPort = Integer.parseInt(productionProperty("quarkus.grpc.server.port"));
        Map<String, Object> scaler = list(container().get("ports")).stream()
                .filter(port -> "scaler".equals(port.get("name")))
                .findFirst()
                .orElseThrow();
        assertEquals(grpcPort, ((Number) scaler.get("containerPort")).intValue(), "the scaler's containerPort");
        Map<String, Object> service = documents(BASE).stream()
                .filter(d -> "Service".equals(d.get("kind")))
                .findFirst()
                .orElseThrow();
        assertTrue(list(map(service.get("spec")).get("ports")).stream()
                .anyMatch(port ->
                        "scaler".equals(port.get("targetPort")) && ((Number) port.get("port")).intValue() == grpcPort));
        List<Map<String, Object>> triggers = documents(EXAMPLES).stream()
                .filter(d -> "ScaledObject".equals(d.get("kind")))
                .flatMap(d -> list(map(d.get("spec")).get("triggers")).stream())
                .toList();
        int external = 0;
        int metricsApi = 0;
        for (Map<String, Object> trigger : triggers) {
            Map<String, Object> metadata = map(trigger.get("metadata"));
            if (String.valueOf(trigger.get("type")).startsWith("external")) {
                external++;
                assertTrue(((String) metadata.get("scalerAddress")).endsWith(":" + grpcPort), metadata.toString());
            } else if ("metrics-api".equals(trigger.get("type"))) {
                metricsApi++;
                String url = (String) metadata.get("url");
                String path = url.replaceFirst("^https?://[^/]+", "");
                assertTrue(path.matches("/v3/projects/[^/]+/queues/[^/]+/depth"), url);
                given().get(path).then().statusCode(200).body((String) metadata.get("valueLocation"), equalTo(0));
            }
        }
        assertEquals(2, external, "the external scaler's examples");
        assertEquals(1, metricsApi, "the metrics-api example");
    }

    /** The port Pigeon listens on outside tests (tests listen on a random one). */
    private static int productionHttpPort() throws IOException {
        return Integer.parseInt(productionProperty("quarkus.http.port"));
    }

    private static String productionProperty(String name) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(Path.of("src/main/resources/application.properties"))) {
            properties.load(reader);
        }
        return properties.getProperty(name);
    }

    /** SmallRye Config's environment mapping: upper case, every other character an underscore. */
    private static String envName(String property) {
        return property.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    private static Map<String, Object> deployment() throws IOException {
        return documents(BASE).stream()
                .filter(d -> "Deployment".equals(d.get("kind")))
                .findFirst()
                .orElseThrow();
    }

    private static Map<String, Object> container() throws IOException {
        Map<String, Object> podSpec =
                map(map(map(deployment().get("spec")).get("template")).get("spec"));
        return list(podSpec.get("containers")).get(0);
    }

    private static List<Map<String, Object>> documents(Path folder) throws IOException {
        List<Map<String, Object>> documents = new ArrayList<>();
        try (Stream<Path> files = Files.list(folder)) {
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                try (Reader reader = Files.newBufferedReader(file)) {
                    for (Object document : new Yaml().loadAll(reader)) {
                        if (document instanceof Map<?, ?> && ((Map<?, ?>) document).containsKey("kind")) {
                            documents.add(map(document));
                        }
                    }
                }
            }
        }
        return documents;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object value) {
        return (List<Map<String, Object>>) value;
    }
}
