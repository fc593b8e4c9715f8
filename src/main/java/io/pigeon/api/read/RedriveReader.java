package io.pigeon.api.read;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.queue.QueueName;
import io.pigeon.redrive.RedriveService;
import io.pigeon.rules.Rejection;
import java.util.Iterator;
import java.util.Set;

/**
 * A redrive's start document (Pigeon's extension): {@code {"target": "<queue name>", "rate": <messages per second>}},
 * both optional. A field this reader does not know is refused rather than dropped: a misspelt {@code target} would
 * otherwise send every message back to its source instead. The rate's bounds are the service's; a rate that is no
 * integer at all is refused here, naming the same bound, so that every refusal of the field tells the caller what to
 * send.
 */
public final class RedriveReader {

    private static final Set<String> FIELDS = Set.of("target", "rate");

    private RedriveReader() {}

    /** The request the document asks for; {@code maxRate} is the service's bound, named when the rate is no integer. */
    public static RedriveService.Request read(JsonNode document, int maxRate) {
        if (!document.isObject()) {
            throw Rejection.invalidBody("The redrive document must be a JSON object, e.g. "
                    + "{\"target\": \"orders\", \"rate\": 100}; both fields may be left out.");
        }
        for (Iterator<String> names = document.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw Rejection.invalidBody("The redrive document has an unknown field (a redrive takes only "
                        + "\"target\" and \"rate\"): \"" + printable(name) + "\".");
            }
        }
        QueueName target = null;
        JsonNode targetField = document.get("target");
        if (targetField != null && !targetField.isNull()) {
            if (!targetField.isTextual()) {
                throw Rejection.invalidBody("The value of the \"target\" field must be a queue name (a string).");
            }
            try {
                target = QueueName.of(targetField.textValue());
            } catch (Rejection invalid) {
                throw Rejection.invalidBody("The value of the \"target\" field must be a queue name: 1 to "
                        + QueueName.MAX_LENGTH + " bytes of ASCII letters, digits, underscores and hyphens.");
            }
        }
        Integer rate = null;
        JsonNode rateField = document.get("rate");
        if (rateField != null && !rateField.isNull()) {
            if (!rateField.isIntegralNumber()) {
                throw Rejection.invalidBody("The value of the \"rate\" field must be an integer from 1 to " + maxRate
                        + " (messages per second; pigeon.redrive.max-rate).");
            }
            rate = JsonBodyReader.integerField("rate", rateField);
        }
        return new RedriveService.Request(target, rate);
    }

    /** A field name as an error may quote it: at most 64 characters, control characters replaced. */
    private static String printable(String name) {
        String shown = name.length() > 64 ? name.substring(0, 64) + "..." : name;
        StringBuilder clean = new StringBuilder(shown.length());
        shown.codePoints().forEach(c -> clean.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return clean.toString();
    }
}
