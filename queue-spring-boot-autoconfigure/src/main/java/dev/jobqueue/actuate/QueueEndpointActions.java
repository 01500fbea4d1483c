package dev.jobqueue.actuate;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

import dev.jobqueue.BulkAction;
import dev.jobqueue.BulkRequest;
import dev.jobqueue.BulkResult;
import dev.jobqueue.Job;
import dev.jobqueue.JobFilter;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.RetryOptions;
import dev.jobqueue.actuate.QueueEndpoint.ActionResult;
import dev.jobqueue.actuate.QueueEndpoint.BulkView;

/**
 * The {@link QueueEndpoint}'s write operations: retry a job (keeping its durable steps,
 * or forgetting them) or cancel it, cancel a chain, pause or resume a type, and retry,
 * cancel or delete every job a filter matches. Each says whether it applied and, if not,
 * why, with an {@link Outcome} the web extension turns into an HTTP status.
 */
final class QueueEndpointActions {

	private final JobQueue queue;

	QueueEndpointActions(JobQueue queue) {
		this.queue = Objects.requireNonNull(queue, "'queue' must not be null");
	}

	/**
	 * Applies {@code action} to {@code target}.
	 * @throws InvalidEndpointRequestException for an unknown action, or a target that
	 * does not fit it
	 */
	Applied apply(String target, String action) {
		String normalized = action.toLowerCase(Locale.ROOT);
		return switch (normalized) {
			case "retry", "retry-forget-steps", "cancel" -> applyToJob(target, normalized);
			case "cancel-chain" -> cancelChain(target, normalized);
			case "pause", "resume" -> applyToType(target, normalized);
			default -> throw new InvalidEndpointRequestException("Unknown action '" + action + "': use POST "
					+ "/actuator/jobqueue/{id}/retry, /{id}/retry-forget-steps, /{id}/cancel, /{chainId}/cancel-chain, "
					+ "/{type}/pause or " + "/{type}/resume", "Unknown action");
		};
	}

	/**
	 * A bulk action on every job the filter matches; see {@link JobQueue#bulk}.
	 * @throws InvalidEndpointRequestException for an unknown action, a filter that is not
	 * valid, or one whose status does not fit the action
	 */
	BulkApplied bulk(String action, BulkFilter filter, boolean dryRun, boolean confirm) {
		BulkAction bulkAction;
		JobFilter jobFilter;
		try {
			bulkAction = BulkAction.of(action);
			jobFilter = filter.toJobFilter();
			bulkAction.check(jobFilter);
		}
		catch (JobQueueException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid bulk action");
		}
		BulkRequest request = BulkRequest.of(bulkAction, jobFilter);
		if (dryRun || !confirm) {
			BulkResult count = this.queue.bulk(request.dryRun());
			if (dryRun) {
				return new BulkApplied(BulkView.of(count, noMatch(count)),
						(count.matched() > 0) ? Outcome.APPLIED : Outcome.UNCHANGED);
			}
			if (count.matched() > BulkRequest.CONFIRMATION_BOUND) {
				return new BulkApplied(BulkView.of(count, String.format(
						"%,d jobs match %s, more than %,d: send confirm=true to %s them all, or narrow the filter; "
								+ "nothing was changed",
						count.matched(), jobFilter, BulkRequest.CONFIRMATION_BOUND, bulkAction.word())),
						Outcome.WRONG_STATE);
			}
		}
		BulkResult result = this.queue.bulk(request.confirmed());
		return new BulkApplied(BulkView.of(result, noMatch(result)),
				(result.applied() > 0) ? Outcome.APPLIED : Outcome.UNCHANGED);
	}

	private static @Nullable String noMatch(BulkResult result) {
		return (result.matched() == 0) ? "No job matches " + result.filter() + " that a " + result.action().word()
				+ " applies to (" + result.action().statusWords() + ")" : null;
	}

	private Applied cancelChain(String target, String action) {
		Long chainId = QueueEndpoint.parseId(target);
		if (chainId == null) {
			throw new InvalidEndpointRequestException(
					"'" + target + "' is not a chain id: cancel-chain takes the id of "
							+ "a chain (its first step's id), as in POST /actuator/jobqueue/42/cancel-chain",
					"Not a chain id");
		}
		if (this.queue.findChain(chainId).isEmpty()) {
			return new Applied(new ActionResult(target, action, false, null, "There is no chain " + chainId
					+ " (a chain's id is its first step's id; finished chains are deleted after their retention)"),
					Outcome.NO_SUCH_JOB);
		}
		int cancelled = this.queue.cancelChain(chainId);
		if (cancelled == 0) {
			return new Applied(new ActionResult(target, action, false, null,
					"Every step of chain " + chainId + " had finished already"), Outcome.WRONG_STATE);
		}
		return new Applied(new ActionResult(target, action, true, null, cancelled + " unfinished step(s) cancelled"),
				Outcome.APPLIED);
	}

	private Applied applyToJob(String target, String action) {
		Long id = QueueEndpoint.parseId(target);
		if (id == null) {
			throw new InvalidEndpointRequestException("'" + target + "' is not a job id: " + action + " takes the id "
					+ "of a job, as in POST /actuator/jobqueue/42/" + action, "Not a job id");
		}
		Optional<Job> job = this.queue.find(id);
		if (job.isEmpty()) {
			return new Applied(
					new ActionResult(target, action, false, null,
							"There is no job " + id + " (finished jobs are deleted once their retention has passed)"),
					Outcome.NO_SUCH_JOB);
		}
		boolean applied;
		try {
			applied = switch (action) {
				case "retry" -> this.queue.retry(id);
				case "retry-forget-steps" -> this.queue.retry(id, RetryOptions.forgetSteps());
				default -> this.queue.cancel(id);
			};
		}
		catch (JobQueueException ex) {
			if (UnreachableDatabaseAnswer.isDatabaseFailure(ex)) {
				throw ex;
			}
			return new Applied(new ActionResult(target, action, false, job.get().status().dbValue(), ex.getMessage()),
					Outcome.WRONG_STATE);
		}
		String status = this.queue.find(id).map((found) -> found.status().dbValue()).orElse(null);
		if (applied) {
			return new Applied(new ActionResult(target, action, true, status, null), Outcome.APPLIED);
		}
		String message = action.startsWith("retry")
				? "Only failed or cancelled jobs can be retried; this one is " + job.get().status().dbValue()
				: "Only waiting, pending or running jobs can be cancelled; this one is " + job.get().status().dbValue();
		return new Applied(new ActionResult(target, action, false, status, message), Outcome.WRONG_STATE);
	}

	private Applied applyToType(String type, String action) {
		boolean pause = action.equals("pause");
		boolean applied;
		try {
			applied = pause ? this.queue.pause(type) : this.queue.resume(type);
		}
		catch (JobQueueException ex) {
			if (UnreachableDatabaseAnswer.isDatabaseFailure(ex)) {
				throw ex;
			}
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid job type");
		}
		String status = pause ? "paused" : "active";
		String message = applied ? null
				: pause ? "Type '" + type + "' was paused already" : "Type '" + type + "' was not paused";
		return new Applied(new ActionResult(type, action, applied, status, message),
				applied ? Outcome.APPLIED : Outcome.UNCHANGED);
	}

	/** How a write went, for the HTTP status of {@link QueueEndpointWebExtension}. */
	enum Outcome {

		APPLIED, UNCHANGED, NO_SUCH_JOB, WRONG_STATE

	}

	/**
	 * A write's answer and how it went.
	 */
	record Applied(ActionResult result, Outcome outcome) {

	}

	/**
	 * A bulk action's answer and how it went.
	 */
	record BulkApplied(BulkView result, Outcome outcome) {

	}

	/**
	 * A bulk action's filter as the endpoint takes it: words and ISO-8601 instants.
	 */
	record BulkFilter(@Nullable String type, @Nullable String status, @Nullable String errorCode, @Nullable String key,
			@Nullable String enqueuedFrom, @Nullable String enqueuedTo, @Nullable String finishedFrom,
			@Nullable String finishedTo) {

		JobFilter toJobFilter() {
			return JobFilter.any()
				.type(this.type)
				.status(status(this.status))
				.errorCode(this.errorCode)
				.key(this.key)
				.enqueuedBetween(instant("enqueuedFrom", this.enqueuedFrom), instant("enqueuedTo", this.enqueuedTo))
				.finishedBetween(instant("finishedFrom", this.finishedFrom), instant("finishedTo", this.finishedTo));
		}

		/** The fields given, for the answer. */
		Map<String, String> given() {
			Map<String, String> given = new LinkedHashMap<>();
			put(given, "type", this.type);
			put(given, "status", this.status);
			put(given, "errorCode", this.errorCode);
			put(given, "key", this.key);
			put(given, "enqueuedFrom", this.enqueuedFrom);
			put(given, "enqueuedTo", this.enqueuedTo);
			put(given, "finishedFrom", this.finishedFrom);
			put(given, "finishedTo", this.finishedTo);
			return given;
		}

		private static void put(Map<String, String> given, String name, @Nullable String value) {
			if (value != null && !value.isBlank()) {
				given.put(name, value);
			}
		}

		private static @Nullable JobStatus status(@Nullable String value) {
			if (value == null || value.isBlank()) {
				return null;
			}
			for (JobStatus status : JobStatus.values()) {
				if (status.dbValue().equalsIgnoreCase(value)) {
					return status;
				}
			}
			throw new JobQueueException("'" + value + "' is not a status: use waiting, pending, running, succeeded, "
					+ "failed or cancelled, or leave it out");
		}

		private static @Nullable Instant instant(String name, @Nullable String value) {
			if (value == null || value.isBlank()) {
				return null;
			}
			try {
				return Instant.parse(value);
			}
			catch (DateTimeParseException ex) {
				throw new JobQueueException(name + "='" + value
						+ "' is not an instant: write it as ISO-8601 in UTC, as 2026-11-26T04:00:00Z");
			}
		}

	}

}
