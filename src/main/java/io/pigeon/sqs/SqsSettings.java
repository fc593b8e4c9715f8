package io.pigeon.sqs;

import io.pigeon.config.CheckedSettings;
import io.pigeon.config.ValidSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** The SQS API's settings ({@code pigeon.sqs.*}, env {@code PIGEON_SQS_*}). */
@ConfigMapping(prefix = "pigeon.sqs")
@ValidSettings
public interface SqsSettings extends CheckedSettings {

    /**
     * The region ARNs name ({@code arn:aws:sqs:<region>:<account>:<queue>}): SDKs need one to sign, and some compare a
     * queue's ARN with what they expect; requests signed for any region are served whatever this says.
     */
    @WithDefault("us-east-1")
    String region();

    /**
     * {@code ReceiveRequestAttemptId}s one project may have remembered at once (each for 5 minutes, on each database
     * holding its queues; migration V32): a FIFO receive with a new attempt id while the project holds this many is
     * refused ({@code OverLimit}) before it takes anything.
     */
    @WithDefault("10000")
    @Min(1)
    @Max(1000000)
    int maxReceiveAttemptsPerProject();

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (!Pattern.matches("[a-z0-9-]{1,32}", region())) {
            problems.add("pigeon.sqs.region must be 1 to 32 lower-case letters, digits and hyphens (us-east-1)");
        }
        return problems;
    }
}
