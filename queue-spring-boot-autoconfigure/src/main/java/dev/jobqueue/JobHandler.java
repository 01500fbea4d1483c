package dev.jobqueue;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the handler of one job type. The method takes one payload parameter (any type
 * Jackson maps, or {@code String} / {@code JsonNode} for the raw JSON) and optionally a {@link JobContext}.
 * Its return value, if any, is kept as the job's result.
 *
 * <pre>{@code
 * @JobHandler(value = "caption", maxAttempts = 3, timeout = "PT2M", concurrency = 2)
 * String caption(CaptionRequest request, JobContext context) { ... }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface JobHandler {

	/** The job type this method handles. */
	String value();

	/** Attempts before the job fails for good; {@code 0} uses {@code jobqueue.retry.max-attempts}. */
	int maxAttempts() default 0;

	/**
	 * Longest a run may take, as an ISO-8601 duration ({@code PT2M}) or a Spring style value ({@code 2m});
	 * empty for no limit. A run that exceeds it is interrupted and fails with {@code TIMEOUT:HANDLER}.
	 */
	String timeout() default "";

	/** Most runs of this type at once in this process; {@code 0} for no limit beyond the worker pool. */
	int concurrency() default 0;

	/**
	 * Whether the job may run again after its worker died mid-run. Set to {@code false} for work that must
	 * not happen twice: such a job is failed with {@code LEASE_EXPIRED:NOT_REPEATABLE} for a person to look
	 * at instead.
	 */
	boolean repeatable() default true;

}
