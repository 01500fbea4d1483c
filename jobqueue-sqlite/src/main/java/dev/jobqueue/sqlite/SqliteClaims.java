package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.jdbc.JsonArrays;
import dev.jobqueue.jdbc.Claims;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * How jobs are claimed, inside a write transaction the caller holds. When no type has a
 * cap, one {@code UPDATE ... RETURNING} takes the best due jobs of all types. Otherwise
 * each group of types (all types without a cap together, then each capped type alone)
 * yields its best candidates, and the claim takes the best of them all by priority, due
 * time and id, so a flood of low-priority jobs of one type never starves higher-priority
 * jobs of another. Paused types are left out, and a type with a global cap gets no more
 * than the cap minus its jobs running anywhere, counted in the same transaction.
 */
final class SqliteClaims implements Claims {

	/** What both claims set on a job they take; SET expressions see the old row. */
	private static final String CLAIMED_BY = """
			SET status = 'running', runs = runs + 1, attempts = attempts + 1, worker_id = :worker_id, started_at = :now,
			    heartbeat_at = :now, lease_until = :lease_until,
			    repeatable = CASE WHEN type IN (SELECT value FROM json_each(:not_repeatable)) THEN 0 ELSE 1 END
			""";

	private static final String RETURNING_CLAIMED = "RETURNING " + CLAIMED_COLUMNS + "\n";

	/**
	 * The whole claim in one statement: the best due jobs by priority, due time and id,
	 * on the partial index of pending jobs ({@code {claim_index}}, chosen by the number
	 * of types), skipping paused types.
	 */
	private static final String CLAIM_DUE = "UPDATE {jobs}\n" + CLAIMED_BY
			+ """
					WHERE id IN (
					    SELECT id FROM {jobs} INDEXED BY {claim_index}
					    WHERE status = 'pending' AND type IN (:types) AND run_at <= :now AND type NOT IN (SELECT type FROM {paused})
					      {attempt_left}
					    ORDER BY priority DESC, run_at, id
					    LIMIT :limit)
					"""
			+ RETURNING_CLAIMED;

	/**
	 * Due pending jobs of some types, in claim order; the claim then takes the best of
	 * all such lists.
	 */
	private static final String CLAIM_CANDIDATES = """
			SELECT id, priority, run_at FROM {jobs} INDEXED BY {claim_index}
			WHERE status = 'pending' AND type IN (:types) AND run_at <= :now {attempt_left}
			ORDER BY priority DESC, run_at, id
			LIMIT :limit
			""";

	/** Takes the chosen jobs (ids as a JSON array). */
	private static final String CLAIM_BY_IDS = "UPDATE {jobs}\n" + CLAIMED_BY + """
			WHERE id IN (SELECT value FROM json_each(:ids)) AND status = 'pending'
			""" + RETURNING_CLAIMED;

	private static final String SELECT_PAUSED_TYPE_NAMES = """
			SELECT type FROM {paused}
			""";

	/** Answered from jobs_status_type_idx (status, type). */
	private static final String COUNT_RUNNING_OF_TYPE = """
			SELECT count(*) FROM {jobs} WHERE status = 'running' AND type = :type
			""";

	private static final String INSERT_ATTEMPT = """
			INSERT INTO {attempts} (job_id, run, attempt, worker_id, started_at)
			VALUES (:job_id, :run, :attempt, :worker_id, :now)
			""";

	private final Tables tables;

	private final JobEvents events;

	/**
	 * The claim statements by number of types: a list parameter's size is fixed when it
	 * is parsed.
	 */
	private final Map<Integer, Sql> claimDue = new ConcurrentHashMap<>();

	private final Map<Integer, Sql> claimCandidates = new ConcurrentHashMap<>();

	private final Sql claimByIds;

	private final Sql selectPausedTypeNames;

	private final Sql countRunningOfType;

	private final Sql insertAttempt;

	SqliteClaims(Tables tables, JobEvents events) {
		this.tables = tables;
		this.events = events;
		this.claimByIds = tables.sql(CLAIM_BY_IDS);
		this.selectPausedTypeNames = tables.sql(SELECT_PAUSED_TYPE_NAMES);
		this.countRunningOfType = tables.sql(COUNT_RUNNING_OF_TYPE);
		this.insertAttempt = tables.sql(INSERT_ATTEMPT);
	}

	/** Claims and records the claims (an attempt row and an event per job). */
	@Override
	public List<ClaimedJob> claim(Connection connection, ClaimRequest request, Instant now) throws SQLException {
		// Read once for both parts of a claim ahead; the single statement reads it
		// inline.
		Set<String> paused = request.limitedTypes().isEmpty() ? Set.of() : pausedTypeNames(connection);
		// A claim ahead is two statements in one transaction.
		List<ClaimedJob> claimed = Claims.inParts(request,
				(part, attemptLeft) -> claimPart(connection, part, attemptLeft, paused, now));
		recordClaims(connection, claimed, request.workerId(), now);
		return claimed;
	}

	private List<ClaimedJob> claimPart(Connection connection, ClaimRequest request, boolean attemptLeft,
			Set<String> paused, Instant now) throws SQLException {
		return request.limitedTypes().isEmpty() ? claimDue(connection, request, attemptLeft, now)
				: claimBestCandidates(connection, request, attemptLeft, paused, now);
	}

	private List<ClaimedJob> claimBestCandidates(Connection connection, ClaimRequest request, boolean attemptLeft,
			Set<String> paused, Instant now) throws SQLException {
		List<Candidate> candidates = new ArrayList<>();
		Set<String> unlimited = new HashSet<>(request.unlimitedTypes());
		unlimited.removeAll(paused);
		if (!unlimited.isEmpty()) {
			selectCandidates(connection, candidates, unlimited, request.limit(), attemptLeft, now);
		}
		for (Map.Entry<String, Integer> limited : request.limitedTypes().entrySet()) {
			String type = limited.getKey();
			if (paused.contains(type)) {
				continue;
			}
			int room = Math.min(limited.getValue(), request.limit());
			Integer globalCap = request.globalLimits().get(type);
			if (globalCap != null && room > 0) {
				room = Math.min(room, globalCap - runningOfType(connection, type));
			}
			if (room > 0) {
				selectCandidates(connection, candidates, Set.of(type), room, attemptLeft, now);
			}
		}
		if (candidates.isEmpty()) {
			return List.of();
		}
		candidates.sort(Candidate.CLAIM_ORDER);
		List<Long> chosen = candidates.subList(0, Math.min(request.limit(), candidates.size()))
			.stream()
			.map(Candidate::id)
			.toList();
		try (SqlStatement claim = this.claimByIds.prepare(connection)) {
			bindClaimedBy(claim, request, now).bind("ids", JsonArrays.of(chosen));
			return readClaimed(claim);
		}
	}

	private List<ClaimedJob> claimDue(Connection connection, ClaimRequest request, boolean attemptLeft, Instant now)
			throws SQLException {
		Set<String> types = request.unlimitedTypes();
		try (SqlStatement claim = claimDueStatement(types.size(), attemptLeft).prepare(connection)) {
			bindClaimedBy(claim, request, now).bindEach("types", types).bind("limit", request.limit());
			return readClaimed(claim);
		}
	}

	/**
	 * The part both claim statements share: worker, claim time, lease and the types that
	 * must not run twice.
	 */
	private static SqlStatement bindClaimedBy(SqlStatement claim, ClaimRequest request, Instant now)
			throws SQLException {
		return claim.bind("worker_id", request.workerId())
			.bind("now", now)
			.bind("lease_until", request.leaseUntil())
			.bind("not_repeatable", JsonArrays.of(request.notRepeatableTypes()));
	}

	/** The single-statement claim for {@code typeCount} types. */
	Sql claimDueStatement(int typeCount) {
		return claimDueStatement(typeCount, false);
	}

	/**
	 * The single-statement claim for {@code typeCount} types; with {@code attemptLeft}
	 * only of jobs that have an attempt left after this claim.
	 */
	Sql claimDueStatement(int typeCount, boolean attemptLeft) {
		return this.claimDue.computeIfAbsent(key(typeCount, attemptLeft),
				(key) -> parseForTypes(CLAIM_DUE, typeCount, attemptLeft));
	}

	private Sql claimCandidatesStatement(int typeCount, boolean attemptLeft) {
		return this.claimCandidates.computeIfAbsent(key(typeCount, attemptLeft),
				(key) -> parseForTypes(CLAIM_CANDIDATES, typeCount, attemptLeft));
	}

	private static int key(int typeCount, boolean attemptLeft) {
		return attemptLeft ? -typeCount : typeCount;
	}

	/**
	 * One type reads the index that starts with the type; several read the index of all
	 * pending jobs. The attempts filter is checked on the rows the index yields in claim
	 * order, so it keeps the early stop of {@code LIMIT}.
	 */
	private Sql parseForTypes(String template, int typeCount, boolean attemptLeft) {
		String index = (typeCount == 1) ? "{p}jobs_claim_type_idx" : "{p}jobs_claim_idx";
		String filter = attemptLeft ? "AND attempts + 1 < max_attempts" : "";
		return this.tables.sql(template.replace("{claim_index}", index).replace("{attempt_left}", filter),
				Map.of("types", typeCount));
	}

	private static List<ClaimedJob> readClaimed(SqlStatement claim) throws SQLException {
		return Claims.claimed(claim, SqliteDialect.INSTANCE);
	}

	private Set<String> pausedTypeNames(Connection connection) throws SQLException {
		try (SqlStatement select = this.selectPausedTypeNames.prepare(connection)) {
			return new HashSet<>(select.queryStrings());
		}
	}

	private int runningOfType(Connection connection, String type) throws SQLException {
		try (SqlStatement count = this.countRunningOfType.prepare(connection)) {
			return (int) count.bind("type", type).queryLong();
		}
	}

	private void selectCandidates(Connection connection, List<Candidate> candidates, Set<String> types, int limit,
			boolean attemptLeft, Instant now) throws SQLException {
		try (SqlStatement select = claimCandidatesStatement(types.size(), attemptLeft).prepare(connection)) {
			select.bindEach("types", types).bind("now", now).bind("limit", limit);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					candidates.add(new Candidate(rows.getLong(1), rows.getInt(2), rows.getLong(3)));
				}
			}
		}
	}

	private void recordClaims(Connection connection, List<ClaimedJob> claimed, String workerId, Instant now)
			throws SQLException {
		if (claimed.isEmpty()) {
			return;
		}
		try (SqlStatement attempt = this.insertAttempt.prepare(connection);
				SqlStatement event = this.events.prepare(connection)) {
			for (ClaimedJob job : claimed) {
				attempt.bind("job_id", job.id())
					.bind("run", job.run())
					.bind("attempt", job.attempt())
					.bind("worker_id", workerId)
					.bind("now", now)
					.addBatch();
				JobEvents.add(event, job.id(), now, "CLAIMED", workerId,
						"attempt " + job.attempt() + "/" + job.maxAttempts());
			}
			attempt.executeBatch();
			event.executeBatch();
		}
	}

	/** A due pending job found by a claim, before it is taken. */
	private record Candidate(long id, int priority, long runAt) {

		static final Comparator<Candidate> CLAIM_ORDER = Comparator.comparingInt(Candidate::priority)
			.reversed()
			.thenComparingLong(Candidate::runAt)
			.thenComparingLong(Candidate::id);

	}

}
