package dev.jobqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A job to enqueue, with its options:
 * {@code JobRequest.of("caption", payload).priority(10).delay(Duration.ofMinutes(5)).dedupKey("image-42")}.
 * Instances are immutable; each option returns a copy.
 */
public final class JobRequest {

	private final String type;

	private final @Nullable Object payload;

	private final int priority;

	private final @Nullable Instant runAt;

	private final @Nullable Duration delay;

	private final @Nullable Integer maxAttempts;

	private final @Nullable String dedupKey;

	private final List<Long> after;

	private final DependencyPolicy dependencyPolicy;

	private final @Nullable String key;

	private JobRequest(String type, @Nullable Object payload, int priority, @Nullable Instant runAt,
			@Nullable Duration delay, @Nullable Integer maxAttempts, @Nullable String dedupKey, List<Long> after,
			DependencyPolicy dependencyPolicy, @Nullable String key) {
		this.type = type;
		this.payload = payload;
		this.priority = priority;
		this.runAt = runAt;
		this.delay = delay;
		this.maxAttempts = maxAttempts;
		this.dedupKey = dedupKey;
		this.after = after;
		this.dependencyPolicy = dependencyPolicy;
		this.key = key;
	}

	/**
	 * A job of {@code type} whose payload is serialised to JSON ({@code null} is written
	 * as JSON {@code null}).
	 */
	public static JobRequest of(String type, @Nullable Object payload) {
		return new JobRequest(type, payload, 0, null, null, null, null, List.of(), DependencyPolicy.CANCEL, null);
	}

	/** Higher runs first; jobs of equal priority run in due-time order. Default 0. */
	public JobRequest priority(int priority) {
		return new JobRequest(this.type, this.payload, priority, this.runAt, this.delay, this.maxAttempts,
				this.dedupKey, this.after, this.dependencyPolicy, this.key);
	}

	/** Not before this instant. Replaces any {@link #delay(Duration)}. */
	public JobRequest runAt(Instant runAt) {
		return new JobRequest(this.type, this.payload, this.priority, runAt, null, this.maxAttempts, this.dedupKey,
				this.after, this.dependencyPolicy, this.key);
	}

	/** Not before this long after enqueue. Replaces any {@link #runAt(Instant)}. */
	public JobRequest delay(Duration delay) {
		return new JobRequest(this.type, this.payload, this.priority, null, delay, this.maxAttempts, this.dedupKey,
				this.after, this.dependencyPolicy, this.key);
	}

	/**
	 * Attempts before the job fails for good, overriding the handler's and the configured
	 * default.
	 */
	public JobRequest maxAttempts(int maxAttempts) {
		return new JobRequest(this.type, this.payload, this.priority, this.runAt, this.delay, maxAttempts,
				this.dedupKey, this.after, this.dependencyPolicy, this.key);
	}

	/**
	 * While a job with this key is unfinished, enqueueing another returns the existing
	 * job's id.
	 */
	public JobRequest dedupKey(@Nullable String dedupKey) {
		return new JobRequest(this.type, this.payload, this.priority, this.runAt, this.delay, this.maxAttempts,
				dedupKey, this.after, this.dependencyPolicy, this.key);
	}

	/**
	 * Waits for these jobs: the job is stored {@link JobStatus#WAITING waiting} and is
	 * not claimed while any of them is unfinished; it becomes pending in the transaction
	 * that finishes the last one. Jobs already finished count at once. Every id must be a
	 * job of this queue (the same tables) that exists, and at most
	 * {@code EnqueueLimits.MAX_DEPENDENCIES} ids are accepted: otherwise enqueue fails
	 * and writes nothing. Because a job can only wait for jobs that exist, waiting can
	 * never form a cycle. Replaces ids given before; duplicates count once.
	 */
	public JobRequest after(long... ids) {
		Objects.requireNonNull(ids, "'ids' must not be null");
		return after(Arrays.stream(ids).boxed().toList());
	}

	/** As {@link #after(long...)}. */
	public JobRequest after(Collection<Long> ids) {
		Objects.requireNonNull(ids, "'ids' must not be null");
		List<Long> distinct = new ArrayList<>(new LinkedHashSet<>(ids));
		if (distinct.contains(null)) {
			throw new IllegalArgumentException("A job id to wait for must not be null");
		}
		return new JobRequest(this.type, this.payload, this.priority, this.runAt, this.delay, this.maxAttempts,
				this.dedupKey, List.copyOf(distinct), this.dependencyPolicy, this.key);
	}

	/**
	 * What the job does when a job it waits for ends failed or cancelled; default
	 * {@link DependencyPolicy#CANCEL}.
	 */
	public JobRequest onDependencyFailure(DependencyPolicy policy) {
		Objects.requireNonNull(policy, "'policy' must not be null");
		return new JobRequest(this.type, this.payload, this.priority, this.runAt, this.delay, this.maxAttempts,
				this.dedupKey, this.after, policy, this.key);
	}

	/**
	 * The job's key: the unit that flow control settings on the job's handler apply to,
	 * such as a customer, a tenant or an account (one customer's jobs share a key). The
	 * key is stored with the job, shown wherever the job is shown, and jobs can be
	 * listed, searched for and acted on in bulk by it. {@code null} (the default) for a
	 * job without one. A key has 1 to {@code EnqueueLimits.MAX_KEY_LENGTH} characters, is
	 * not blank and holds no control characters; otherwise enqueue fails and writes
	 * nothing. Unlike a {@link #dedupKey(String) dedup key}, many unfinished jobs may
	 * share a key.
	 */
	public JobRequest key(@Nullable String key) {
		return new JobRequest(this.type, this.payload, this.priority, this.runAt, this.delay, this.maxAttempts,
				this.dedupKey, this.after, this.dependencyPolicy, key);
	}

	public String type() {
		return this.type;
	}

	public @Nullable Object payload() {
		return this.payload;
	}

	public int priority() {
		return this.priority;
	}

	/** The absolute due time, or {@code null}. */
	public @Nullable Instant runAt() {
		return this.runAt;
	}

	/** The relative due time, or {@code null}. */
	public @Nullable Duration delay() {
		return this.delay;
	}

	/** The requested attempts, or {@code null} for the default. */
	public @Nullable Integer maxAttempts() {
		return this.maxAttempts;
	}

	/** The deduplication key, or {@code null}. */
	public @Nullable String dedupKey() {
		return this.dedupKey;
	}

	/** The job's key (see {@link #key(String)}), or {@code null}. */
	public @Nullable String key() {
		return this.key;
	}

	/** The ids of the jobs this one waits for, without duplicates; empty for none. */
	public List<Long> after() {
		return this.after;
	}

	/** What the job does when a job it waits for fails or is cancelled. */
	public DependencyPolicy dependencyPolicy() {
		return this.dependencyPolicy;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (other instanceof JobRequest that) && this.priority == that.priority && this.type.equals(that.type)
				&& Objects.equals(this.payload, that.payload) && Objects.equals(this.runAt, that.runAt)
				&& Objects.equals(this.delay, that.delay) && Objects.equals(this.maxAttempts, that.maxAttempts)
				&& Objects.equals(this.dedupKey, that.dedupKey) && this.after.equals(that.after)
				&& this.dependencyPolicy == that.dependencyPolicy && Objects.equals(this.key, that.key);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.type, this.payload, this.priority, this.runAt, this.delay, this.maxAttempts,
				this.dedupKey, this.after, this.dependencyPolicy, this.key);
	}

	@Override
	public String toString() {
		return "JobRequest[type=" + this.type + ", priority=" + this.priority + ", runAt=" + this.runAt + ", delay="
				+ this.delay + ", maxAttempts=" + this.maxAttempts + ", dedupKey=" + this.dedupKey
				+ ((this.key != null) ? ", key=" + this.key : "") + (this.after.isEmpty() ? ""
						: ", after=" + this.after + ", onDependencyFailure=" + this.dependencyPolicy)
				+ "]";
	}

}
