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
 * &#64;JobHandler(value = "report", cron = "0 0 * * * *", zone = "Europe/Paris")
 * void report(JobContext context) { ... }          // enqueued once an hour across all processes
 *
 * &#64;JobHandler(value = "charge", rateLimit = "100/1s", keyConcurrency = 1)
 * void charge(Charge charge) { ... }               // keyed by JobRequest.key(customerId)
 * }</pre>
 *
 * <p>
 * The flow control attributes ({@link #rateLimit()}, {@link #keyRateLimit()},
 * {@link #keyConcurrency()}, {@link #ordered()}, {@link #blockOnFailure()}) are
 * overridden per type by the properties {@code jobqueue.handlers.<type>.rate-limit},
 * {@code .key-rate-limit}, {@code .key-concurrency}, {@code .ordered} and
 * {@code .block-on-failure}. They are checked inside each claim, so they hold across
 * every process on the database; give every process that handles the type the same
 * values, since each enforces those it knows. A malformed value fails start-up naming the
 * method and the attribute or property.
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

	/**
	 * Most starts of this type in any window of the given length, across every process on
	 * the database, written permits/window: {@code "100/1s"}, {@code "10/1m"},
	 * {@code "5000/1d"}, {@code "3/PT30S"}. The window slides (every span of that length
	 * counts, not calendar buckets). A job the limit holds back is not claimed: it uses
	 * no attempt and holds no slot until the window allows it. Empty for no limit;
	 * {@code ${…}} placeholders are resolved.
	 */
	String rateLimit() default "";

	/**
	 * Most starts of one key ({@link JobRequest#key(String)}) of this type in any window,
	 * written as {@link #rateLimit()} is. Jobs without a key are not held by it. Empty
	 * for no limit.
	 */
	String keyRateLimit() default "";

	/**
	 * Most running jobs of one key ({@link JobRequest#key(String)}) of this type at once,
	 * across every process; {@code 0} for no limit. A job of a worker that died holds its
	 * key until its lease is recovered.
	 */
	int keyConcurrency() default 0;

	/**
	 * Whether the jobs of one key ({@link JobRequest#key(String)}) start one after
	 * another, in the order they were enqueued (which wins over priority within a key).
	 * Jobs without a key are not ordered.
	 */
	boolean ordered() default false;

	/**
	 * For an {@link #ordered()} handler: whether a job that failed for good holds back
	 * the later jobs of its key until it is retried or deleted ({@code true}), or lets
	 * the next one go ({@code false}). Setting {@code false} without {@code ordered}
	 * fails start-up.
	 */
	boolean blockOnFailure() default true;

}
