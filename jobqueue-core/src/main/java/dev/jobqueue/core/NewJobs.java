package dev.jobqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobRequest;
import dev.jobqueue.core.store.NewJob;

/**
 * Turns {@link JobRequest}s into {@link NewJob}s, checking everything a store would
 * otherwise find out too late: enqueue and continuations (a run's {@code continueWith})
 * share the rules and the messages.
 */
public final class NewJobs {

	/**
	 * Due times further out than this are surely a mistake (a delay in the wrong unit,
	 * say).
	 */
	static final Duration MAX_DELAY = Duration.ofDays(3660);

	private final PayloadCodec codec;

	private final HandlerRegistry handlers;

	private final EnqueueLimits limits;

	public NewJobs(PayloadCodec codec, HandlerRegistry handlers, EnqueueLimits limits) {
		this.codec = Objects.requireNonNull(codec, "'codec' must not be null");
		this.handlers = Objects.requireNonNull(handlers, "'handlers' must not be null");
		this.limits = Objects.requireNonNull(limits, "'limits' must not be null");
	}

	/**
	 * The jobs of a fan-out, children first, then the join waiting for all of them: the
	 * children at chain index {@code firstIndex}, the join at the one after.
	 */
	public List<NewJob> fanOut(List<JobRequest> children, JobRequest join, Instant now, String trace, int firstIndex) {
		if (children.size() > EnqueueLimits.MAX_FAN_OUT) {
			throw new JobQueueException("A fan-out of " + children.size() + " children is more than the "
					+ EnqueueLimits.MAX_FAN_OUT + " one call may create: split the work into groups (a fan-out "
					+ "per group, and a job after all the groups' joins)");
		}
		List<NewJob> jobs = new ArrayList<>(children.size() + 1);
		List<Integer> positions = new ArrayList<>(children.size());
		for (JobRequest child : children) {
			NewJob job = validate(child, now, trace);
			if (job.waits()) {
				throw new JobQueueException("A child of a fan-out ('" + job.type() + "') waits for other jobs: "
						+ "only the join may wait (pass the ids to join.after(...))");
			}
			if (job.dedupKey() != null) {
				throw new JobQueueException("A child of a fan-out ('" + job.type() + "') has a dedup key: a fan-out "
						+ "creates its children itself, once; drop the key");
			}
			positions.add(jobs.size());
			jobs.add(job.withChainIndex(firstIndex));
		}
		NewJob joining = validate(join, now, trace);
		if (joining.dedupKey() != null) {
			throw new JobQueueException("The join of a fan-out ('" + joining.type() + "') waits for its children "
					+ "and so cannot have a dedup key: drop it");
		}
		jobs.add(joining.withAfterInBatch(positions).withChainIndex(firstIndex + 1));
		return jobs;
	}

	public NewJob validate(JobRequest request, Instant now, String trace) {
		if (request == null) {
			throw new JobQueueException("A job request is null: pass JobRequest.of(type, payload) for every job");
		}
		String type = request.type();
		String typeProblem = EnqueueLimits.typeProblem(type);
		if (typeProblem != null) {
			throw new JobQueueException(typeProblem);
		}
		if (Math.abs(request.priority()) > EnqueueLimits.MAX_PRIORITY) {
			throw new JobQueueException("Priority " + request.priority() + " of a '" + type + "' job is out of range: "
					+ "use a value between -" + EnqueueLimits.MAX_PRIORITY + " and " + EnqueueLimits.MAX_PRIORITY);
		}
		int maxAttempts = maxAttempts(request, type);
		String dedupKey = request.dedupKey();
		if (dedupKey != null && (dedupKey.isBlank() || dedupKey.length() > EnqueueLimits.MAX_DEDUP_KEY_LENGTH)) {
			throw new JobQueueException("The dedup key of a '" + type + "' job must not be blank or longer than "
					+ EnqueueLimits.MAX_DEDUP_KEY_LENGTH + " characters; leave it null for no deduplication");
		}
		String keyProblem = EnqueueLimits.keyProblem(request.key(), type);
		if (keyProblem != null) {
			throw new JobQueueException(keyProblem + "; nothing was enqueued");
		}
		List<Long> after = request.after();
		if (after.size() > EnqueueLimits.MAX_DEPENDENCIES) {
			throw new JobQueueException("A '" + type + "' job waits for " + after.size() + " jobs, more than the "
					+ EnqueueLimits.MAX_DEPENDENCIES + " one request may: to wait for many jobs, create them with "
					+ "enqueueFanOut(children, join)");
		}
		if (!after.isEmpty() && dedupKey != null) {
			throw new JobQueueException("A '" + type + "' job that waits for other jobs cannot have a dedup key: "
					+ "drop the dedup key, or enqueue it without after(...)");
		}
		for (long id : after) {
			if (id <= 0) {
				throw new JobQueueException("A '" + type + "' job waits for job id " + id + ", which no job has: "
						+ "pass ids returned by enqueue");
			}
		}
		return new NewJob(type, payloadJson(request.payload(), type), request.priority(), runAt(request, now, type),
				maxAttempts, dedupKey, trace, after, List.of(), request.dependencyPolicy(), null, request.key());
	}

	private int maxAttempts(JobRequest request, String type) {
		Integer requested = request.maxAttempts();
		if (requested != null) {
			if (requested < 1 || requested > EnqueueLimits.MAX_ATTEMPTS) {
				throw new JobQueueException("maxAttempts " + requested + " of a '" + type + "' job is out of range: "
						+ "use a value between 1 and " + EnqueueLimits.MAX_ATTEMPTS);
			}
			return requested;
		}
		return this.handlers.find(type)
			.map(HandlerDefinition::maxAttempts)
			.filter((attempts) -> attempts > 0)
			.orElse(this.limits.defaultMaxAttempts());
	}

	private Instant runAt(JobRequest request, Instant now, String type) {
		if (request.delay() != null) {
			Duration delay = request.delay();
			if (delay.isNegative() || delay.compareTo(MAX_DELAY) > 0) {
				throw new JobQueueException("Delay " + delay + " of a '" + type + "' job is out of range: use a "
						+ "duration between zero and " + MAX_DELAY.toDays() + " days");
			}
			return now.plus(delay);
		}
		if (request.runAt() != null) {
			if (request.runAt().isAfter(now.plus(MAX_DELAY))) {
				throw new JobQueueException("runAt " + request.runAt() + " of a '" + type + "' job is more than "
						+ MAX_DELAY.toDays() + " days away: check the instant (was a delay given in the wrong unit?)");
			}
			return request.runAt().isBefore(now) ? now : request.runAt();
		}
		return now;
	}

	private String payloadJson(Object payload, String type) {
		String json;
		try {
			json = JsonText.escapeLoneSurrogates(this.codec.toJson(payload));
		}
		catch (RuntimeException ex) {
			throw new JobQueueException("The payload of a '" + type + "' job (" + payload.getClass().getName()
					+ ") cannot be written as JSON: " + ex.getMessage() + ". Pass a record or bean that Jackson can "
					+ "serialise, holding plain data rather than resources such as streams or connections.", ex);
		}
		long size = (json.length() * 3L > this.limits.maxPayloadBytes()) ? json.getBytes(StandardCharsets.UTF_8).length
				: json.length();
		if (size > this.limits.maxPayloadBytes()) {
			throw new JobQueueException("The payload of a '" + type + "' job is " + size + " bytes as JSON, more "
					+ "than jobqueue.max-payload-size (" + this.limits.maxPayloadBytes() + " bytes). Keep large data "
					+ "in a file or object store and enqueue a reference to it, or raise the limit.");
		}
		return json;
	}

}
