package dev.jobqueue.core.store;

import java.util.Collection;
import java.util.List;

import dev.jobqueue.DependencyPolicy;
import dev.jobqueue.ErrorCodes;

/**
 * What every store decides the same way when it inserts jobs that wait for other jobs or
 * are steps of a chain (docs/chains.md): whether a batch needs the linked insert, which
 * state a new job starts in given how the jobs it waits for stand, and how a continuation
 * is described on its predecessor's timeline. Statuses are the stores' database values.
 */
public final class LinkedJobs {

	private LinkedJobs() {
	}

	/** Whether any of {@code jobs} waits for other jobs or is a step of a chain. */
	public static boolean anyLinked(List<NewJob> jobs) {
		for (NewJob job : jobs) {
			if (job.waits() || job.chainIndex() != null) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The engine refuses a dedup key on a job that waits, on a fan-out's child or join
	 * and on a continuation; the linked insert has no dedup column, so a key that got
	 * there anyway is refused rather than dropped.
	 * @throws IllegalArgumentException naming the job and its key
	 */
	public static void refuseDedupKeys(List<NewJob> jobs) {
		for (NewJob job : jobs) {
			if (job.dedupKey() != null) {
				throw new IllegalArgumentException("A '" + job.type() + "' job that waits for other jobs or is a "
						+ "step of a chain cannot have a dedup key ('" + job.dedupKey() + "'): drop the key");
			}
		}
	}

	/**
	 * Whether a job in {@code status} has finished (and so is counted by its dependents).
	 */
	public static boolean finished(String status) {
		return "succeeded".equals(status) || "failed".equals(status) || "cancelled".equals(status);
	}

	/**
	 * How a new job starts, given the statuses of the jobs it waits for at enqueue: a
	 * dependency that already succeeded is counted; one that already failed or was
	 * cancelled is counted under {@link DependencyPolicy#RUN} and otherwise ends the new
	 * job at once, by its policy.
	 */
	public static Start start(DependencyPolicy policy, Collection<String> dependencyStatuses) {
		int unfinished = 0;
		for (String status : dependencyStatuses) {
			boolean unsuccessful = "failed".equals(status) || "cancelled".equals(status);
			if (unsuccessful && policy != DependencyPolicy.RUN) {
				String code = "failed".equals(status) ? ErrorCodes.DEPENDENCY_FAILED_FAILED
						: ErrorCodes.DEPENDENCY_FAILED_CANCELLED;
				return new Start((policy == DependencyPolicy.FAIL) ? "failed" : "cancelled", 0, code,
						"A job it waits for was already " + status + " at enqueue");
			}
			if (!unsuccessful && !"succeeded".equals(status)) {
				unfinished++;
			}
		}
		return new Start((unfinished > 0) ? "waiting" : "pending", unfinished, null, null);
	}

	/** The detail of a {@code CONTINUED} event: the next step's ids, or their range. */
	public static String describeNext(List<Long> ids) {
		if (ids.size() <= 5) {
			return "next: job(s) " + ids;
		}
		return "next: " + ids.size() + " jobs, " + ids.get(0) + " to " + ids.get(ids.size() - 1);
	}

	/**
	 * The state a new linked job is inserted in.
	 *
	 * @param status its database status: {@code waiting}, {@code pending}, or
	 * {@code failed} / {@code cancelled} when a dependency's failure ends it at once
	 * @param waitingFor its dependencies not finished yet
	 * @param errorCode the {@code DEPENDENCY_FAILED:*} code of a job that ends at once,
	 * else {@code null}
	 * @param errorDetail what ended it, else {@code null}
	 */
	public record Start(String status, int waitingFor, String errorCode, String errorDetail) {

		/** Whether the job ends at enqueue (by its dependency policy). */
		public boolean finished() {
			return this.errorCode != null;
		}

	}

}
