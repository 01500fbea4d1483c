package dev.jobqueue.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

import picocli.CommandLine.Option;

import dev.jobqueue.JobFilter;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.core.EnqueueLimits;

/**
 * The filter of a bulk action ({@code retry}, {@code cancel}, {@code delete} without an
 * id). A time is an ISO-8601 instant ({@code 2026-11-26T03:00:00Z}) or an age
 * ({@code 2h}: two hours ago).
 */
final class FilterOptions {

	@Option(names = "--type", description = "Only jobs of this type.")
	String type;

	@Option(names = "--status", description = "Only jobs in this status.")
	String status;

	@Option(names = "--error-code", description = "Only jobs whose latest failure has this code.")
	String errorCode;

	@Option(names = "--key", description = "Only jobs with this key (JobRequest.key).")
	String key;

	@Option(names = "--enqueued-after", paramLabel = "TIME",
			description = "Only jobs enqueued at or after TIME: an ISO-8601 instant or an age (2h = two hours ago).")
	String enqueuedAfter;

	@Option(names = "--enqueued-before", paramLabel = "TIME", description = "Only jobs enqueued before TIME.")
	String enqueuedBefore;

	@Option(names = "--finished-after", paramLabel = "TIME", description = "Only jobs that finished at or after TIME.")
	String finishedAfter;

	@Option(names = "--finished-before", paramLabel = "TIME", description = "Only jobs that finished before TIME.")
	String finishedBefore;

	/** Whether any filter option was given. */
	boolean given() {
		return this.type != null || this.status != null || this.errorCode != null || this.key != null
				|| this.enqueuedAfter != null || this.enqueuedBefore != null || this.finishedAfter != null
				|| this.finishedBefore != null;
	}

	/**
	 * The filter, times read against {@code now}.
	 * @throws CliException with {@link ExitCodes#USAGE} for a value that is not valid
	 */
	JobFilter filter(Instant now) {
		if (this.type != null && EnqueueLimits.typeProblem(this.type) != null) {
			throw CliException.usage("--type: " + EnqueueLimits.typeProblem(this.type));
		}
		JobsCommand.checkKey(this.key);
		try {
			return JobFilter.any()
				.type(this.type)
				.status((this.status != null) ? JobsCommand.parseStatus(this.status) : null)
				.errorCode(this.errorCode)
				.key(this.key)
				.enqueuedBetween(time("--enqueued-after", this.enqueuedAfter, now),
						time("--enqueued-before", this.enqueuedBefore, now))
				.finishedBetween(time("--finished-after", this.finishedAfter, now),
						time("--finished-before", this.finishedBefore, now));
		}
		catch (JobQueueException ex) {
			throw CliException.usage(ex.getMessage());
		}
	}

	private static Instant time(String option, String value, Instant now) {
		if (value == null) {
			return null;
		}
		try {
			return Instant.parse(value.strip());
		}
		catch (DateTimeParseException notAnInstant) {
			try {
				Duration age = Durations.parse(value);
				return now.minus(age);
			}
			catch (RuntimeException notAnAge) {
				throw CliException.usage(option + "=" + value + " is neither an ISO-8601 instant "
						+ "(2026-11-26T03:00:00Z) nor an age (2h, 30m, 7d)");
			}
		}
	}

}
