package dev.jobqueue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Which jobs a bulk action ({@link JobQueue#bulk(BulkRequest)}) applies to: every field
 * set must match, a {@code null} field matches everything. Built from {@link #any()} with
 * the {@code with}-style methods, so a field added later breaks no caller: <pre>{@code
 * JobFilter.any().status(JobStatus.FAILED).errorCode("DEPENDENCY:PAYMENT_API")
 * }</pre> Time ranges include their start and exclude their end.
 *
 * @param type jobs of this type
 * @param status jobs in this status
 * @param errorCode jobs whose latest failure has this code
 * @param enqueuedFrom jobs enqueued at or after this
 * @param enqueuedTo jobs enqueued before this
 * @param finishedFrom jobs that finished at or after this
 * @param finishedTo jobs that finished before this
 * @param key jobs with this key ({@link JobRequest#key(String)})
 */
public record JobFilter(@Nullable String type, @Nullable JobStatus status, @Nullable String errorCode,
		@Nullable Instant enqueuedFrom, @Nullable Instant enqueuedTo, @Nullable Instant finishedFrom,
		@Nullable Instant finishedTo, @Nullable String key) {

	private static final JobFilter ANY = new JobFilter(null, null, null, null, null, null, null, null);

	public JobFilter {
		type = blankToNull(type);
		errorCode = blankToNull(errorCode);
		key = blankToNull(key);
		checkRange("enqueued", enqueuedFrom, enqueuedTo);
		checkRange("finished", finishedFrom, finishedTo);
	}

	/** Every job; narrow it with the methods below. */
	public static JobFilter any() {
		return ANY;
	}

	/** This filter, also matching the type. */
	public JobFilter type(@Nullable String type) {
		return new JobFilter(type, this.status, this.errorCode, this.enqueuedFrom, this.enqueuedTo, this.finishedFrom,
				this.finishedTo, this.key);
	}

	/** This filter, also matching the status. */
	public JobFilter status(@Nullable JobStatus status) {
		return new JobFilter(this.type, status, this.errorCode, this.enqueuedFrom, this.enqueuedTo, this.finishedFrom,
				this.finishedTo, this.key);
	}

	/** This filter, also matching the error code of the latest failure. */
	public JobFilter errorCode(@Nullable String errorCode) {
		return new JobFilter(this.type, this.status, errorCode, this.enqueuedFrom, this.enqueuedTo, this.finishedFrom,
				this.finishedTo, this.key);
	}

	/** This filter, also matching the job's key ({@link JobRequest#key(String)}). */
	public JobFilter key(@Nullable String key) {
		return new JobFilter(this.type, this.status, this.errorCode, this.enqueuedFrom, this.enqueuedTo,
				this.finishedFrom, this.finishedTo, key);
	}

	/**
	 * This filter, also matching jobs enqueued from {@code from} (included) to {@code to}
	 * (excluded); either may be {@code null} for an open end.
	 */
	public JobFilter enqueuedBetween(@Nullable Instant from, @Nullable Instant to) {
		return new JobFilter(this.type, this.status, this.errorCode, from, to, this.finishedFrom, this.finishedTo,
				this.key);
	}

	/**
	 * This filter, also matching jobs that finished from {@code from} (included) to
	 * {@code to} (excluded); either may be {@code null} for an open end.
	 */
	public JobFilter finishedBetween(@Nullable Instant from, @Nullable Instant to) {
		return new JobFilter(this.type, this.status, this.errorCode, this.enqueuedFrom, this.enqueuedTo, from, to,
				this.key);
	}

	/** Whether no field is set: the filter matches every job. */
	public boolean matchesAll() {
		return equals(ANY);
	}

	/** The fields set, as {@code status=failed, type=email}, for messages and logs. */
	@Override
	public String toString() {
		List<String> fields = new ArrayList<>();
		add(fields, "type", this.type);
		add(fields, "status", (this.status != null) ? this.status.dbValue() : null);
		add(fields, "errorCode", this.errorCode);
		add(fields, "key", this.key);
		add(fields, "enqueuedFrom", this.enqueuedFrom);
		add(fields, "enqueuedTo", this.enqueuedTo);
		add(fields, "finishedFrom", this.finishedFrom);
		add(fields, "finishedTo", this.finishedTo);
		return fields.isEmpty() ? "every job" : String.join(", ", fields);
	}

	private static void add(List<String> fields, String name, @Nullable Object value) {
		if (value != null) {
			fields.add(name + "=" + value);
		}
	}

	private static @Nullable String blankToNull(@Nullable String value) {
		return (value == null || value.isBlank()) ? null : value;
	}

	private static void checkRange(String what, @Nullable Instant from, @Nullable Instant to) {
		if (from != null && to != null && !from.isBefore(to)) {
			throw new JobQueueException("The " + what + " range is empty: from " + from + " is not before to " + to
					+ "; the start is included, the end excluded");
		}
	}

}
