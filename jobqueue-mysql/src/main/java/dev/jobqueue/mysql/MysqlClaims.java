package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.jdbc.Claims;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * How jobs are claimed, inside a transaction the caller holds: for each handled type, the
 * best due pending jobs in claim order are locked with {@code FOR UPDATE SKIP LOCKED} (so
 * workers in any number of processes claim at once without waiting on each other); the
 * best of all candidates are marked running by id, read back, and their attempt rows and
 * CLAIMED events written from the rows, each one statement.
 *
 * <p>
 * Not one statement as on PostgreSQL: neither MySQL nor MariaDB has {@code UPDATE ...
 * RETURNING} (MariaDB's {@code RETURNING} is for INSERT and DELETE), nor an UPDATE with a
 * locking, limited subquery of its own table. The rows are locked by the SELECT, so the
 * UPDATE and the read after it see exactly the jobs chosen.
 *
 * <p>
 * Each type is its own probe of {@code jobs_claim_type_idx (status, type, priority DESC,
 * run_at, id)}, stopping after its room, so a flood of low-priority jobs of one type
 * never starves higher-priority jobs of another. A type with a global cap first locks its
 * row {@code claim:<type>} in the housekeeping table (types in order, so claimers do not
 * deadlock): claims of that type in every process count its running jobs one after
 * another.
 */
final class MysqlClaims implements Claims {

	private static final String PAUSED_TYPES = "SELECT type FROM {paused}";

	static final String CLAIM_DUE = """
			SELECT id, priority, run_at FROM {jobs}
			WHERE status = 'pending' AND type = :type AND run_at <= :now {attempt_left}
			ORDER BY priority DESC, run_at, id
			LIMIT :limit
			FOR UPDATE SKIP LOCKED
			""";

	static final String TAKE = """
			UPDATE {jobs} j JOIN {id_table :ids} chosen ON chosen.id = j.id
			SET j.status = 'running', j.runs = j.runs + 1, j.attempts = j.attempts + 1, j.worker_id = :worker_id,
			    j.started_at = :now, j.heartbeat_at = :now, j.lease_until = :lease_until,
			    j.repeatable = j.type {not_in_texts :not_repeatable}
			WHERE j.status = 'pending'
			""";

	static final String READ_TAKEN = "SELECT " + CLAIMED_COLUMNS + " FROM {jobs} WHERE id {in_ids :ids}";

	static final String INSERT_ATTEMPTS = """
			INSERT INTO {attempts} (job_id, run, attempt, worker_id, started_at)
			SELECT id, runs, attempts, :worker_id, :now FROM {jobs} WHERE id {in_ids :ids}
			""";

	static final String INSERT_EVENTS = """
			INSERT INTO {events} (job_id, at, event, actor, detail)
			SELECT id, :now, 'CLAIMED', :worker_id, CONCAT('attempt ', attempts, '/', max_attempts)
			FROM {jobs} WHERE id {in_ids :ids} ORDER BY priority DESC, run_at, id
			""";

	/**
	 * Serialises claims of a globally capped type across processes until the transaction
	 * ends.
	 */
	static final String LOCK_CAPPED_TYPE = """
			INSERT INTO {housekeeping} (name, owner, lease_until) VALUES (:name, 'claims', 0)
			ON DUPLICATE KEY UPDATE lease_until = 0
			""";

	static final String COUNT_RUNNING = """
			SELECT count(*) FROM {jobs} WHERE status = 'running' AND type = :type
			""";

	private static final Comparator<Candidate> CLAIM_ORDER = Comparator.comparingInt(Candidate::priority)
		.reversed()
		.thenComparingLong(Candidate::runAt)
		.thenComparingLong(Candidate::id);

	private final Sql pausedTypes;

	private final Sql claimDue;

	private final Sql claimDueWithAttemptLeft;

	private final Sql take;

	private final Sql readTaken;

	private final Sql insertAttempts;

	private final Sql insertEvents;

	private final Sql lockCappedType;

	private final Sql countRunning;

	MysqlClaims(Tables tables) {
		this.pausedTypes = tables.sql(PAUSED_TYPES);
		this.claimDue = tables.sql(CLAIM_DUE.replace("{attempt_left}", ""));
		// Only jobs with an attempt left after this claim: a filter on the rows the index
		// yields in claim order, which keeps the early stop of LIMIT.
		this.claimDueWithAttemptLeft = tables
			.sql(CLAIM_DUE.replace("{attempt_left}", "AND attempts + 1 < max_attempts"));
		this.take = tables.sql(TAKE);
		this.readTaken = tables.sql(READ_TAKEN);
		this.insertAttempts = tables.sql(INSERT_ATTEMPTS);
		this.insertEvents = tables.sql(INSERT_EVENTS);
		this.lockCappedType = tables.sql(LOCK_CAPPED_TYPE);
		this.countRunning = tables.sql(COUNT_RUNNING);
	}

	@Override
	public Claimed claim(Connection connection, ClaimRequest request, Instant now) throws SQLException {
		Set<String> paused;
		try (SqlStatement select = this.pausedTypes.prepare(connection)) {
			paused = new HashSet<>(select.queryStrings());
		}
		// The first part's jobs are running by the second.
		return Claims.inParts(request, (part, attemptLeft) -> claimPart(connection, part, attemptLeft, paused, now));
	}

	private Claimed claimPart(Connection connection, ClaimRequest request, boolean attemptLeft, Set<String> paused,
			Instant now) throws SQLException {
		Map<String, Integer> rooms = new LinkedHashMap<>();
		for (String type : request.unlimitedTypes()) {
			rooms.put(type, request.limit());
		}
		request.limitedTypes().forEach((type, room) -> rooms.put(type, Math.max(0, Math.min(room, request.limit()))));
		rooms.keySet().removeAll(paused);
		for (Map.Entry<String, Integer> capped : new TreeMap<>(request.globalLimits()).entrySet()) {
			if (rooms.containsKey(capped.getKey())) {
				int running = lockAndCountRunning(connection, capped.getKey());
				rooms.merge(capped.getKey(), capped.getValue() - running, Math::min);
			}
		}
		List<Candidate> candidates = new ArrayList<>();
		try (SqlStatement select = (attemptLeft ? this.claimDueWithAttemptLeft : this.claimDue).prepare(connection)) {
			for (Map.Entry<String, Integer> room : rooms.entrySet()) {
				if (room.getValue() <= 0) {
					continue;
				}
				select.bind("type", room.getKey()).bind("now", now).bind("limit", room.getValue());
				try (ResultSet rows = select.executeQuery()) {
					while (rows.next()) {
						candidates.add(new Candidate(rows.getLong(1), rows.getInt(2), rows.getLong(3)));
					}
				}
			}
		}
		if (candidates.isEmpty()) {
			return Claimed.NONE;
		}
		// The rows of candidates left out stay locked until the transaction ends, a
		// moment: other claimers skip them meanwhile.
		candidates.sort(CLAIM_ORDER);
		List<Long> ids = candidates.stream().limit(request.limit()).map(Candidate::id).toList();
		try (SqlStatement take = this.take.prepare(connection)) {
			take.bind("worker_id", request.workerId())
				.bind("now", now)
				.bind("lease_until", request.leaseUntil())
				.bindTexts("not_repeatable", request.notRepeatableTypes())
				.bindIds("ids", ids)
				.executeUpdate();
		}
		try (SqlStatement attempts = this.insertAttempts.prepare(connection)) {
			attempts.bind("worker_id", request.workerId()).bind("now", now).bindIds("ids", ids).executeUpdate();
		}
		try (SqlStatement events = this.insertEvents.prepare(connection)) {
			events.bind("worker_id", request.workerId()).bind("now", now).bindIds("ids", ids).executeUpdate();
		}
		try (SqlStatement read = this.readTaken.prepare(connection)) {
			return Claimed.of(Claims.claimed(read.bindIds("ids", ids), MysqlDialect.INSTANCE));
		}
	}

	private int lockAndCountRunning(Connection connection, String type) throws SQLException {
		try (SqlStatement lock = this.lockCappedType.prepare(connection)) {
			lock.bind("name", "claim:" + type).executeUpdate();
		}
		try (SqlStatement count = this.countRunning.prepare(connection)) {
			return (int) count.bind("type", type).queryLong();
		}
	}

	private record Candidate(long id, int priority, long runAt) {

	}

}
