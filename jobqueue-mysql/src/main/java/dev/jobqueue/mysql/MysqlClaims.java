package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.jdbc.Claims;
import dev.jobqueue.jdbc.FlowClaims;
import dev.jobqueue.jdbc.KeyReads;
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
 * Each type is its own probe of {@code jobs_claim_type_idx (status, type, job_key,
 * priority DESC, run_at, id)} for its jobs without a key ({@code job_key IS NULL}),
 * stopping after its room, so a flood of low-priority jobs of one type never starves
 * higher-priority jobs of another. A type with a global cap or flow control first locks
 * its row {@code claim:<type>} in the housekeeping table (types in order, so claimers do
 * not deadlock): claims of that type in every process count its running jobs and starts
 * one after another.
 *
 * <p>
 * When a claimed type has a pending job with a key, or flow control, the claim goes by
 * rounds across keys as {@link FlowClaims} decides: its reads of keys (a skip-scan of
 * {@code jobs_keyed_idx}), of each key's state and jobs and of the rate log are one
 * statement each, plain consistent reads without locks, the counts that limits are
 * checked against too. The chosen jobs are then locked ({@code SKIP LOCKED}): a job
 * another transaction holds is left out, which for an ordered key leaves the key for the
 * next claim rather than starting its next job out of order.
 *
 * <p>
 * Why plain reads of the counts are exact: the claim runs at READ COMMITTED
 * ({@link MysqlDatabase} sets it for the queue's own transactions), where each statement
 * reads the latest committed rows, and it reads them after it holds the type's lock row,
 * which it keeps until it commits. Jobs become running and starts are logged only by
 * claims of their type, so every claim that could raise a count committed before this one
 * took the lock and is seen, and none commits before this one does. What can commit
 * between a read and the take only lowers a count or frees a key: a running job that
 * ends, is recovered, cancelled or deleted, a start swept (only by a claim of the type).
 * Not seeing it makes the claim conservative (the key's next job waits for the next
 * claim), never over a limit. A locking read ({@code LOCK IN SHARE MODE}) saw the same
 * committed claims, but it waited on the row locks of completions that were to take this
 * type's lock row next, and InnoDB broke such waits as deadlocks (1213) faster than
 * retries could absorb them.
 */
final class MysqlClaims implements Claims {

	/**
	 * The paused types, and a row with no type when a claimed type has a pending job with
	 * a key: one statement for both, on the hot path.
	 */
	static final String PAUSED_TYPES_AND_KEYS = """
			SELECT type FROM {paused}
			UNION ALL
			SELECT NULL FROM DUAL WHERE EXISTS (SELECT 1 FROM {jobs} WHERE status = 'pending' AND type {in_texts :types}
			                                   AND job_key IS NOT NULL)
			""";

	static final String CLAIM_DUE = """
			SELECT id, priority, run_at FROM {jobs}
			WHERE status = 'pending' AND type = :type AND job_key IS NULL AND run_at <= :now {attempt_left}
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

	/** The skip-scan over keys: the next key with a pending job. */
	static final String NEXT_KEY = """
			SELECT job_key FROM {jobs}
			WHERE status = 'pending' AND type = :type AND job_key > :after AND (:until IS NULL OR job_key <= :until)
			ORDER BY job_key LIMIT 1
			""";

	/**
	 * A key's running or failed jobs: a plain read, exact under the type's lock row (see
	 * the class comment).
	 */
	static final String COUNT_OF_KEY = """
			SELECT count(*) FROM {jobs} WHERE status = :status AND type = :type AND job_key = :key
			""";

	/** A key's pending jobs in enqueue order, due ones only. */
	static final String DUE_OF_KEY = """
			SELECT id, priority, run_at FROM {jobs}
			WHERE status = 'pending' AND type = :type AND job_key = :key AND run_at <= :now {attempt_left}
			ORDER BY id LIMIT :limit
			""";

	/** A key's lowest pending job, due or not. */
	static final String FIRST_OF_KEY = """
			SELECT id, priority, run_at FROM {jobs} WHERE status = 'pending' AND type = :type AND job_key = :key
			ORDER BY id LIMIT 1
			""";

	/**
	 * A key's lowest pending job, due or not, if its claim would not be its last attempt:
	 * for the part of a claim that waits for a slot, where a key whose next job is on its
	 * last attempt waits for a claim into a free slot (its later jobs may not pass it).
	 */
	static final String FIRST_OF_KEY_WITH_ATTEMPT_LEFT = """
			SELECT f.id, f.priority, f.run_at FROM (
			    SELECT id, priority, run_at, attempts, max_attempts FROM {jobs}
			    WHERE status = 'pending' AND type = :type AND job_key = :key ORDER BY id LIMIT 1
			) f
			WHERE f.attempts + 1 < f.max_attempts
			""";

	/**
	 * Starts of a rate-limited scope in its window: a plain read, exact under the type's
	 * lock row (see the class comment).
	 */
	static final String STARTS_IN_WINDOW = """
			SELECT count(*), min(started_at) FROM {rate_starts}
			WHERE type = :type AND job_key = :key AND started_at > :since
			""";

	/**
	 * Locks the chosen jobs that are still pending and not held by another transaction,
	 * those of ordered keys only if still first in their key (a plain read of the latest
	 * committed rows, as the class comment says of the reads before it).
	 */
	static final String LOCK_CHOSEN = """
			SELECT c.id FROM {jobs} c WHERE c.id {in_ids :ids} AND c.status = 'pending'
			  AND %s
			ORDER BY c.id {for_update_skip_locked}
			""".formatted(FlowClaims.STILL_HEAD_OF_ORDERED_KEY.strip());

	static final String INSERT_START = """
			INSERT INTO {rate_starts} (type, job_key, started_at, job_id) VALUES (:type, :key, :lease_until, :job_id)
			""";

	/** Starts that left every window of the type. */
	static final String SWEEP_STARTS = """
			DELETE FROM {rate_starts} WHERE type = :type AND started_at <= :before
			""";

	private final Sql pausedTypes;

	private final Sql claimDue;

	private final Sql claimDueWithAttemptLeft;

	private final Sql take;

	private final Sql readTaken;

	private final Sql insertAttempts;

	private final Sql insertEvents;

	private final Sql lockCappedType;

	private final Sql countRunning;

	private final KeyReads.Statements keyStatements;

	private final Sql lockChosen;

	private final Sql insertStart;

	private final Sql sweepStarts;

	/** Rounds across keys and flow control; keeps this process's key cursors. */
	private final FlowClaims flow = new FlowClaims();

	MysqlClaims(Tables tables) {
		this.pausedTypes = tables.sql(PAUSED_TYPES_AND_KEYS);
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
		this.keyStatements = KeyReads.Statements.parse(tables, NEXT_KEY, COUNT_OF_KEY, FIRST_OF_KEY,
				FIRST_OF_KEY_WITH_ATTEMPT_LEFT, DUE_OF_KEY, STARTS_IN_WINDOW);
		this.lockChosen = tables.sql(LOCK_CHOSEN);
		this.insertStart = tables.sql(INSERT_START);
		this.sweepStarts = tables.sql(SWEEP_STARTS);
	}

	@Override
	public Claimed claim(Connection connection, ClaimRequest request, Instant now) throws SQLException {
		Set<String> types = new HashSet<>(request.unlimitedTypes());
		types.addAll(request.limitedTypes().keySet());
		Set<String> paused = new HashSet<>();
		boolean keysPending = false;
		try (SqlStatement select = this.pausedTypes.prepare(connection);
				ResultSet rows = select.bindTexts("types", types).executeQuery()) {
			while (rows.next()) {
				String type = rows.getString(1);
				if (type != null) {
					paused.add(type);
				}
				else {
					keysPending = true;
				}
			}
		}
		// Types in order, so claimers do not deadlock; both parts of a claim ahead run
		// after the locks.
		TreeSet<String> locked = new TreeSet<>(request.globalLimits().keySet());
		locked.addAll(request.flowControls().keySet());
		locked.removeAll(paused);
		for (String type : locked) {
			try (SqlStatement lock = this.lockCappedType.prepare(connection)) {
				lock.bind("name", "claim:" + type).executeUpdate();
			}
		}
		boolean byRounds = !request.flowControls().isEmpty() || keysPending;
		// The first part's jobs are running by the second.
		return Claims.inParts(request,
				(part, attemptLeft) -> byRounds ? claimByRounds(connection, part, attemptLeft, paused, now)
						: claimPart(connection, part, attemptLeft, paused, now));
	}

	private Map<String, Integer> rooms(Connection connection, ClaimRequest request, Set<String> paused)
			throws SQLException {
		Map<String, Integer> rooms = new LinkedHashMap<>();
		for (String type : new TreeSet<>(request.unlimitedTypes())) {
			rooms.put(type, request.limit());
		}
		new TreeMap<>(request.limitedTypes())
			.forEach((type, room) -> rooms.put(type, Math.max(0, Math.min(room, request.limit()))));
		rooms.keySet().removeAll(paused);
		for (Map.Entry<String, Integer> capped : new TreeMap<>(request.globalLimits()).entrySet()) {
			if (rooms.containsKey(capped.getKey())) {
				rooms.merge(capped.getKey(), capped.getValue() - countRunning(connection, capped.getKey()), Math::min);
			}
		}
		rooms.values().removeIf((room) -> room <= 0);
		return rooms;
	}

	private Claimed claimPart(Connection connection, ClaimRequest request, boolean attemptLeft, Set<String> paused,
			Instant now) throws SQLException {
		Map<String, Integer> rooms = rooms(connection, request, paused);
		List<FlowClaims.Candidate> candidates = new ArrayList<>();
		for (Map.Entry<String, Integer> room : rooms.entrySet()) {
			selectUnkeyed(connection, candidates, room.getKey(), room.getValue(), attemptLeft, now);
		}
		if (candidates.isEmpty()) {
			return Claimed.NONE;
		}
		// The rows of candidates left out stay locked until the transaction ends, a
		// moment: other claimers skip them meanwhile.
		candidates.sort(FlowClaims.CLAIM_ORDER);
		List<Long> ids = candidates.stream().limit(request.limit()).map(FlowClaims.Candidate::id).toList();
		return Claimed.of(take(connection, request, ids, now));
	}

	/**
	 * The claim when keys or flow control are involved: each type's room (its caps), its
	 * jobs without a key in claim order (locked as they are read), its keys visited in
	 * rounds with their state, its rate windows; {@link FlowClaims} chooses, the chosen
	 * jobs with a key are locked, and the starts of rate-limited types and keys are
	 * logged.
	 */
	private Claimed claimByRounds(Connection connection, ClaimRequest request, boolean attemptLeft, Set<String> paused,
			Instant now) throws SQLException {
		Map<String, Integer> rooms = rooms(connection, request, paused);
		List<FlowClaims.TypeRead> reads = new ArrayList<>();
		FlowClaims.Reads keyReads = this.keyStatements.reads(connection, attemptLeft, now);
		List<FlowClaims.Candidate> unkeyed = new ArrayList<>();
		for (Map.Entry<String, Integer> room : rooms.entrySet()) {
			FlowClaims.TypeRead read = this.flow.read(keyReads, room.getKey(), room.getValue(),
					request.flowControl(room.getKey()), now);
			reads.add(read);
			int allowance = FlowClaims.typeAllowance(read);
			if (allowance > 0) {
				selectUnkeyed(connection, unkeyed, room.getKey(), allowance, attemptLeft, now);
			}
		}
		FlowClaims.Plan plan = this.flow.plan(unkeyed, reads, request.limit(), now);
		for (FlowClaims.TypeRead read : reads) {
			Instant before = this.flow.sweepBefore(read.type(), read.flow(), now);
			if (before != null) {
				try (SqlStatement sweep = this.sweepStarts.prepare(connection)) {
					sweep.bind("type", read.type()).bind("before", before).executeUpdate();
				}
			}
		}
		List<Long> keyed = plan.chosen()
			.stream()
			.filter((job) -> job.key() != null)
			.map(FlowClaims.Candidate::id)
			.toList();
		this.flow.beforeTake(connection);
		Set<Long> taken = new HashSet<>(plan.ids());
		if (!keyed.isEmpty()) {
			taken.removeAll(keyed);
			try (SqlStatement lock = this.lockChosen.prepare(connection);
					ResultSet rows = plan.bindHeads(lock).bindIds("ids", keyed).executeQuery()) {
				while (rows.next()) {
					taken.add(rows.getLong(1));
				}
			}
		}
		if (taken.isEmpty()) {
			return new Claimed(List.of(), plan.throttledUntil());
		}
		List<Long> ids = plan.ids().stream().filter(taken::contains).toList();
		List<ClaimedJob> claimed = take(connection, request, ids, now);
		try (SqlStatement insert = this.insertStart.prepare(connection)) {
			boolean any = false;
			for (FlowClaims.Start start : plan.starts()) {
				if (taken.contains(start.jobId())) {
					insert.bind("type", start.type())
						.bind("key", start.key())
						.bind("lease_until", request.leaseUntil())
						.bind("job_id", start.jobId())
						.addBatch();
					any = true;
				}
			}
			if (any) {
				insert.executeBatch();
			}
		}
		return new Claimed(claimed, plan.throttledUntil());
	}

	@Override
	public void beforeNextTake(FlowClaims.BeforeTake hook) {
		this.flow.beforeNextTake(hook);
	}

	private void selectUnkeyed(Connection connection, List<FlowClaims.Candidate> candidates, String type, int limit,
			boolean attemptLeft, Instant now) throws SQLException {
		try (SqlStatement select = (attemptLeft ? this.claimDueWithAttemptLeft : this.claimDue).prepare(connection)) {
			select.bind("type", type).bind("now", now).bind("limit", limit);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					candidates.add(new FlowClaims.Candidate(rows.getLong(1), type, null, rows.getInt(2),
							MysqlDialect.INSTANCE.instant(rows, 3)));
				}
			}
		}
	}

	/** Marks the jobs running, writes their attempt rows and events, and reads them. */
	private List<ClaimedJob> take(Connection connection, ClaimRequest request, List<Long> ids, Instant now)
			throws SQLException {
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
			return Claims.claimed(read.bindIds("ids", ids), MysqlDialect.INSTANCE);
		}
	}

	private int countRunning(Connection connection, String type) throws SQLException {
		try (SqlStatement count = this.countRunning.prepare(connection)) {
			return (int) count.bind("type", type).queryLong();
		}
	}

}
