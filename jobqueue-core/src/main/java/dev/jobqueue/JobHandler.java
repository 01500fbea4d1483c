package dev.jobqueue;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the handler of one job type. The method takes one payload
 * parameter (any type Jackson maps, or {@code String} / {@code JsonNode} for the raw
 * JSON) and optionally a {@link JobContext}. Its return value, if any, is kept as the
 * job's result.
 *
 * <pre>{@code
 * &#64;JobHandler(value = "caption", maxAttempts = 3, timeout = "PT2M", concurrency = 2)
 * String caption(CaptionRequest request, JobContext context) { ... }
 *
 *

&#64;JobHandler(value = "report", cron = "0 0 * * * *", zone = "Europe/Paris")
 * void report(JobContext context) { ... }          // enqueued once an hour across all processes
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface JobHandler {

	/** The job type this method handles. */
	String value();

	/**
	 * Attempts before the job fails for good; {@code 0} uses
	 * {@code jobqueue.retry.max-attempts}.
	 */
	int maxAttempts() default 0;

	/**
	 * Longest a run may take, as an ISO-8601 duration ({@code PT2M}) or a Spring style
	 * value ({@code 2m}); empty for no limit. A run that exceeds it is interrupted and
	 * fails with {@code TIMEOUT:HANDLER}.
	 */
	String timeout() default "";

	/**
	 * Most runs of this type at once in this process; {@code 0} for no limit beyond the
	 * worker pool.
	 */
	int concurrency() default 0;

	/**
	 * Whether the job may run again after its worker died mid-run. Set to {@code false}
	 * for work that must not happen twice: such a job is failed with
	 * {@code LEASE_EXPIRED:NOT_REPEATABLE} for a person to look at instead.
	 */
	boolean repeatable() default true;

	/**
	 * Most runs of this type at once across every process sharing the database; {@code 0}
	 * for no such cap. It is checked inside each claim, so it holds however many
	 * processes and workers there are. Give every process the same value: each one
	 * enforces the value it knows.
	 */
	int globalConcurrency() default 0;

	/**
	 * A Spring cron expression (six fields: second minute hour day-of-month month
	 * day-of-week, or a macro such as {@code @daily}) that enqueues a job of this type at
	 * each tick, once across all processes. The schedule is named after the job type; its
	 * jobs carry a JSON {@code null} payload. Empty for none.
	 */
	String cron() default "";

	/**
	 * The time zone {@link #cron()} is read in, such as {@code Europe/Paris}; empty for
	 * {@code jobqueue.scheduling.zone}.
	 */
	String zone() default "";

	/**
	 * A fixed interval ({@code PT5M} or {@code 5m}) that enqueues a job of this type at
	 * each whole multiple of it since the epoch, once across all processes. Empty for
	 * none; not together with {@link #cron()}.
	 */
	String every() default "";

	/**
	 * What a schedule ({@link #cron()} or {@link #every()}) does about ticks missed while
	 * no process ran.
	 */
	Misfire misfire() default Misfire.DEFAULT;

}
