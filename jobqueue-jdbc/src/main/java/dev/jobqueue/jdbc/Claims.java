package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;

/**
 * How a store claims jobs, inside a write transaction the caller holds: the one part of
 * the hot path each database does its own way (a single writer on SQLite, row locks
 * skipped by other claimers on PostgreSQL). A claim records what it took (an attempt row
 * and a {@code CLAIMED} event per job) in the same transaction.
 */
@FunctionalInterface
public interface Claims {

	/**
	 * The columns a claim returns per job, in the order {@link #claimed} reads them.
	 */
	String CLAIMED_COLUMNS = "id, type, payload, priority, runs, attempts, max_attempts, snoozes, run_at, created_at, "
			+ "trace_parent, job_key";

	/**
	 * @return the claimed jobs in claim order (priority, due time, id), and when a job a
	 * rate limit held back may start
	 */
	Claimed claim(Connection connection, ClaimRequest request, Instant now) throws SQLException;

	/**
	 * Has the next claim by rounds run {@code hook} between its read and its take (see
	 * {@link FlowClaims#beforeNextTake}); for tests.
	 */
	default void beforeNextTake(FlowClaims.BeforeTake hook) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " claims nothing by rounds");
	}

	/**
	 * Claims {@code request} in its parts, the same on every store: all of it at once
	 * when it claims nothing ahead; otherwise the types never claimed ahead into the
	 * slots free now ({@link ClaimRequest#onlyNow()}, when the claim has other types
	 * too), any due job into those still free ({@link ClaimRequest#startingNow()}), then,
	 * for the jobs that wait for a slot, only jobs with an attempt left after this claim
	 * ({@link ClaimRequest#ahead}), in the same transaction. A part that asks for nothing
	 * is not run.
	 * @return the claimed jobs in claim order
	 */
	static Claimed inParts(ClaimRequest request, Part part) throws SQLException {
		if (!request.claimsAhead()) {
			return request.isEmpty() ? Claimed.NONE : part.claim(request, false);
		}
		List<ClaimedJob> claimed = new ArrayList<>();
		Instant throttledUntil = null;
		ClaimRequest now = request.startingNow();
		ClaimRequest onlyNow = now.onlyNow();
		if (!onlyNow.isEmpty()
				&& onlyNow.limitedTypes().size() < now.limitedTypes().size() + now.unlimitedTypes().size()) {
			// Types that start only in a free slot go first; the others may also wait
			// for a slot.
			Claimed first = part.claim(onlyNow, false);
			claimed.addAll(first.jobs());
			throttledUntil = first.throttledUntil();
			now = request.startingNow(claimed);
		}
		if (!now.isEmpty()) {
			Claimed first = part.claim(now, false);
			claimed.addAll(first.jobs());
			throttledUntil = Claimed.earlier(throttledUntil, first.throttledUntil());
		}
		ClaimRequest ahead = request.ahead(claimed);
		if (!ahead.isEmpty()) {
			Claimed second = part.claim(ahead, true);
			claimed.addAll(second.jobs());
			throttledUntil = Claimed.earlier(throttledUntil, second.throttledUntil());
		}
		claimed.sort(ClaimedJob.CLAIM_ORDER);
		return new Claimed(claimed, throttledUntil);
	}

	/**
	 * Runs a query of the {@link #CLAIMED_COLUMNS}.
	 * @return the jobs in claim order
	 */
	static List<ClaimedJob> claimed(SqlStatement query, Dialect dialect) throws SQLException {
		List<ClaimedJob> claimed = new ArrayList<>();
		try (ResultSet rows = query.executeQuery()) {
			while (rows.next()) {
				claimed.add(new ClaimedJob(rows.getLong(1), rows.getString(2), rows.getString(3), rows.getInt(4),
						rows.getInt(5), rows.getInt(6), rows.getInt(7), rows.getInt(8), dialect.instant(rows, 9),
						dialect.instant(rows, 10), rows.getString(11), rows.getString(12)));
			}
		}
		claimed.sort(ClaimedJob.CLAIM_ORDER);
		return claimed;
	}

	/** One part of a claim (see {@link #inParts}). */
	@FunctionalInterface
	interface Part {

		/**
		 * @param attemptLeft whether to take only jobs with an attempt left after this
		 * claim
		 */
		Claimed claim(ClaimRequest request, boolean attemptLeft) throws SQLException;

	}

	/**
	 * What a claim took.
	 *
	 * @param jobs the claimed jobs in claim order
	 * @param throttledUntil when a job that a rate limit held back may start, or
	 * {@code null}
	 */
	record Claimed(List<ClaimedJob> jobs, Instant throttledUntil) {

		/** Nothing claimed, nothing held back. */
		public static final Claimed NONE = new Claimed(List.of(), null);

		/** Jobs claimed with no rate limit holding any back. */
		public static Claimed of(List<ClaimedJob> jobs) {
			return new Claimed(jobs, null);
		}

		static Instant earlier(Instant a, Instant b) {
			if (a == null) {
				return b;
			}
			return (b == null || a.isBefore(b)) ? a : b;
		}

	}

}
