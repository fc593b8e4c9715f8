package io.pigeon.api.read;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.rules.Rejection;

/** Queue-metadata documents, read at the edge; their reserved attributes are checked by the queue service. */
public final class QueueMetadataReader {

    private QueueMetadataReader() {}

    /**
     * A metadata document: a JSON object. The limit bounds the document as sent, whitespace included (as in
     * Zaqar), and is checked before the document is parsed.
     */
    public static ObjectNode metadata(byte[] document, int maxSize) {
        if (document != null && document.length > maxSize) {
            throw Rejection.invalidRequest("Queue metadata is too large. Max size: " + maxSize);
        }
        JsonNode metadata = JsonBodyReader.parse(document);
        if (!metadata.isObject()) {
            throw Rejection.invalidBody("Document type not supported. Queue metadata must be a JSON object.");
        }
        return (ObjectNode) metadata;
    }
}
