package dev.jobqueue.jackson;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.module.SimpleModule;

import dev.jobqueue.JobStatus;

/**
 * Writes a {@link JobStatus} in lower case ({@code "pending"}), as the database, the
 * actuator endpoint and the dashboard show it, so a {@link dev.jobqueue.Job} returned
 * from an application's own controller reads the same; reads either case. Registered with
 * Boot's {@code JsonMapper} by the auto-configuration, and found by
 * {@code findAndAddModules()} elsewhere.
 */
public class JobQueueJacksonModule extends SimpleModule {

	public JobQueueJacksonModule() {
		super("jobqueue");
		addSerializer(JobStatus.class, new StatusSerializer());
		addDeserializer(JobStatus.class, new StatusDeserializer());
	}

	private static final class StatusSerializer extends ValueSerializer<JobStatus> {

		@Override
		public void serialize(JobStatus status, JsonGenerator generator, SerializationContext context) {
			generator.writeString(status.dbValue());
		}

	}

	private static final class StatusDeserializer extends ValueDeserializer<JobStatus> {

		@Override
		public JobStatus deserialize(JsonParser parser, DeserializationContext context) {
			String text = parser.getValueAsString();
			try {
				return JobStatus.valueOf(text.trim().toUpperCase(Locale.ROOT));
			}
			catch (RuntimeException ex) {
				return (JobStatus) context.handleWeirdStringValue(JobStatus.class, text, "not a job status; use one of "
						+ Arrays.stream(JobStatus.values()).map(JobStatus::dbValue).collect(Collectors.joining(", ")));
			}
		}

	}

}
