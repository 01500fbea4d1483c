package dev.jobqueue.actuate;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.RetryOptions;
import dev.jobqueue.actuate.QueueEndpoint.ActionResult;

/**
 * The {@link QueueEndpoint}'s write operations: retry a job (keeping its durable steps,
 * or forgetting them) or cancel it, cancel a chain, pause or resume a type. Each says
 * whether it applied and, if not, why, with an {@link Outcome} the web extension turns
 * into an HTTP status.
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

}
