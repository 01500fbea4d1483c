package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.jdbc.Claims;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * How jobs are claimed: one statement per round, inside a transaction the caller holds.
 * It picks due pending jobs with {@code FOR UPDATE SKIP LOCKED} (so workers in any number
 * of processes claim at once without waiting on each other), marks them running, and
 * writes their attempt rows and CLAIMED events, all in one round trip.
 *
 * <p>
 * Each handled type gets its own lateral lookup on {@code jobs_claim_type_idx} in claim
 * order (priority, due time, id), limited to the claim's size, or for a capped type to
 * its free slots (and, with a global cap, to the cap minus its jobs running anywhere);
 * the claim takes the best of all candidates, so a flood of low-priority jobs of one type
 * never starves higher-priority jobs of another. Paused types are left out, as a filter
 * on an array read once: a {@code NOT EXISTS} on the (mostly empty) table of paused types
 * made the planner expect a single row, sort every due job and lose the early stop of
 * {@code LIMIT} (measured: 135 ms instead of 0.8 ms on 300,000 due jobs). See
 * {@code docs/postgresql.md} for the plans.
 */
final class PostgresClaims implements Claims {

	/**
	 * Marks the chosen jobs running and records their claims; {@code chosen} is a CTE of
	 * ids. The ids go in as an array, so the update finds each row by primary key (a join
	 * with the CTE was planned as a hash join over every pending job).
	 */
	static final String TAKE_CHOSEN = """
			, claimed AS (
			    UPDATE {jobs} j
			    SET status = 'running', runs = j.runs + 1, attempts = j.attempts + 1, worker_id = :worker_id,
			        started_at = :now, heartbeat_at = :now, lease_until = :lease_until,
			        repeatable = NOT (j.type = ANY(:not_repeatable::text[]))
			    WHERE j.id = ANY(ARRAY(SELECT id FROM chosen)) AND j.status = 'pending'
			    RETURNING j.id, j.type, j.payload, j.priority, j.runs, j.attempts, j.max_attempts, j.snoozes, j.run_at,
			              j.created_at, j.trace_parent, j.job_key
			), attempt_rows AS (
			    INSERT INTO {attempts} (job_id, run, attempt, worker_id, started_at)
			    SELECT id, runs, attempts, :worker_id, :now FROM claimed
			), event_rows AS (
			    INSERT INTO {events} (job_id, at, event, actor, detail)
			    SELECT id, :now, 'CLAIMED', :worker_id, 'attempt ' || attempts || '/' || max_attempts FROM claimed
			)
			SELECT id, type, payload, priority, runs, attempts, max_attempts, snoozes, run_at, created_at, trace_parent,
			       job_key
			FROM claimed
			""";

	/**
	 * The best due jobs of one type, in claim order from the partial index of pending
	 * jobs. Whether the type is paused is asked of the parameter, not of each row: the
	 * planner then checks it once (a one-time filter) and estimates the rows by the index
	 * alone. Asked of {@code c.type}, on a table where one type holds most rows, it
	 * estimated a single matching row and read and sorted every pending job in each claim
	 * (measured: 30 ms per claim of 128 at 16,000 pending jobs).
	 */
	static final String CLAIM_DUE = """
			WITH chosen AS (
			    SELECT c.id FROM {jobs} c
			    WHERE c.status = 'pending' AND c.type = :type AND c.run_at <= :now {attempt_left}
			      AND :type <> ALL(ARRAY(SELECT type FROM {paused}))
			    ORDER BY c.priority DESC, c.run_at, c.id
			    LIMIT :limit
			    FOR UPDATE SKIP LOCKED
			)
			""" + TAKE_CHOSEN;

	/**
	 * The best due jobs of each type (at most its room, and for a global cap at most the
	 * cap minus its running jobs), each read in claim order from
	 * {@code jobs_claim_type_idx}, then the best of them all. One index probe per type
	 * whatever the backlog: with {@code type = ANY(...)} the planner may read all due
	 * jobs of the types and sort them (measured: 308 ms per claim on 96,000 pending jobs,
	 * instead of 5 ms).
	 */
	static final String CLAIM_BY_TYPE = """
			WITH candidates AS (
			    SELECT l.id, l.priority, l.run_at
			    FROM unnest(:types::text[], :rooms::int[], :global_caps::int[]) AS t(type, room, cap)
			    CROSS JOIN LATERAL (
			        SELECT c.id, c.priority, c.run_at FROM {jobs} c
			        WHERE c.status = 'pending' AND c.type = t.type AND c.run_at <= :now {attempt_left}
			        ORDER BY c.priority DESC, c.run_at, c.id
			        LIMIT CASE WHEN t.cap IS NULL THEN t.room
			                   ELSE greatest(0, least(t.room, t.cap - (SELECT count(*) FROM {jobs} r
			                                                        WHERE r.status = 'running' AND r.type = t.type))) END
			        FOR UPDATE SKIP LOCKED
			    ) l
			    WHERE t.type <> ALL(ARRAY(SELECT type FROM {paused}))
			), chosen AS (
			    SELECT id FROM candidates ORDER BY priority DESC, run_at, id LIMIT :limit
			)
			"""
			+ TAKE_CHOSEN;

	/**
	 * Serialises claims of globally capped types across processes for the rest of the
	 * transaction, so that the claim statement after it (with a snapshot taken after the
	 * locks) counts every running job of the type.
	 */
	static final String LOCK_CAPPED_TYPES = """
			SELECT pg_advisory_xact_lock(hashtextextended(:channel || ':' || t, 0))
			FROM unnest(:types::text[]) AS t ORDER BY t
			""";

	private final Tables tables;

	PostgresClaims(Tables tables) {
		this.tables = tables;
	}

	@Override
	public Claimed claim(Connection connection, ClaimRequest request, Instant now) throws SQLException {
		// A statement per part: the first statement's jobs are running by the second, so
		// it does not see them.
		return Claims.inParts(request, (part, attemptLeft) -> claimPart(connection, part, attemptLeft, now));
	}

	private Claimed claimPart(Connection connection, ClaimRequest request, boolean attemptLeft, Instant now)
			throws SQLException {
		if (request.limitedTypes().isEmpty() && request.unlimitedTypes().size() == 1) {
			return Claimed.of(claimOneType(connection, request, attemptLeft, now));
		}
		return Claimed.of(claimByType(connection, request, attemptLeft, now));
	}

	/**
	 * The statement, with {@code attemptLeft} only for jobs that have an attempt left
	 * after this claim: a filter on the rows the index yields in claim order, which keeps
	 * the early stop of {@code LIMIT}.
	 */
	private Sql claimStatement(String template, boolean attemptLeft) {
		return this.tables.sql(claimSql(template, attemptLeft));
	}

	/**
	 * {@link #CLAIM_DUE} or {@link #CLAIM_BY_TYPE}, with or without the attempts filter.
	 */
	static String claimSql(String template, boolean attemptLeft) {
		return template.replace("{attempt_left}", attemptLeft ? "AND c.attempts + 1 < c.max_attempts" : "");
	}

	private List<ClaimedJob> claimOneType(Connection connection, ClaimRequest request, boolean attemptLeft, Instant now)
			throws SQLException {
		try (SqlStatement claim = claimStatement(CLAIM_DUE, attemptLeft).prepare(connection)) {
			claim.bind("type", request.unlimitedTypes().iterator().next());
			return execute(bindClaimedBy(claim, request, now));
		}
	}

	private List<ClaimedJob> claimByType(Connection connection, ClaimRequest request, boolean attemptLeft, Instant now)
			throws SQLException {
		if (!request.globalLimits().isEmpty()) {
			try (SqlStatement lock = this.tables.sql(LOCK_CAPPED_TYPES).prepare(connection)) {
				lock.bind("channel", PostgresNotifications.channel(this.tables))
					.bindTexts("types", new TreeSet<>(request.globalLimits().keySet()));
				lock.executeQuery().close();
			}
		}
		List<String> types = new ArrayList<>();
		List<Integer> rooms = new ArrayList<>();
		List<Integer> caps = new ArrayList<>();
		for (String type : request.unlimitedTypes()) {
			types.add(type);
			rooms.add(request.limit());
			caps.add(null);
		}
		for (Map.Entry<String, Integer> limited : request.limitedTypes().entrySet()) {
			types.add(limited.getKey());
			rooms.add(Math.max(0, Math.min(limited.getValue(), request.limit())));
			caps.add(request.globalLimits().get(limited.getKey()));
		}
		try (SqlStatement claim = claimStatement(CLAIM_BY_TYPE, attemptLeft).prepare(connection)) {
			claim.bindArray("types", "text", types.toArray());
			claim.bindArray("rooms", "int4", rooms.toArray());
			claim.bindArray("global_caps", "int4", caps.toArray());
			return execute(bindClaimedBy(claim, request, now));
		}
	}

	private static SqlStatement bindClaimedBy(SqlStatement claim, ClaimRequest request, Instant now)
			throws SQLException {
		return claim.bind("worker_id", request.workerId())
			.bind("now", now)
			.bind("lease_until", request.leaseUntil())
			.bindTexts("not_repeatable", request.notRepeatableTypes())
			.bind("limit", request.limit());
	}

	private static List<ClaimedJob> execute(SqlStatement claim) throws SQLException {
		return Claims.claimed(claim, PostgresDialect.INSTANCE);
	}

}
