package dev.jobqueue.sqlite;

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
import java.util.concurrent.ConcurrentHashMap;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.jdbc.Claims;
import dev.jobqueue.jdbc.FlowClaims;
import dev.jobqueue.jdbc.JsonArrays;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.KeyReads;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * How jobs are claimed, inside a write transaction the caller holds. When no type has a
 * cap or flow control and no claimed type has a pending job with a key, one
 * {@code UPDATE ... RETURNING} takes the best due jobs of all types. Otherwise each group
 * of types (all types without a cap together, then each capped type alone) yields its
 * best candidates, and the claim takes the best of them all by priority, due time and id,
 * so a flood of low-priority jobs of one type never starves higher-priority jobs of
 * another. Paused types are left out, and a type with a global cap gets no more than the
 * cap minus its jobs running anywhere, counted in the same transaction.
 *
 * <p>
 * Jobs with a key are read apart, from {@code jobs_keyed_idx}, key by key in rounds, and
 * flow control is checked against the running jobs and the log of starts
 * ({@code job_rate_starts}) read in the same transaction, as {@link FlowClaims} says; the
 * single writer makes the counts exact across processes. The claim indexes of pending
 * jobs hold jobs without a key only, so each statement on them says
 * {@code job_key IS NULL} as their condition does.
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
	private static final String CLAIM_DUE = "UPDATE {jobs}\n" + CLAIMED_BY + """
			WHERE id IN (
			    SELECT id FROM {jobs} INDEXED BY {claim_index}
			    WHERE status = 'pending' AND job_key IS NULL AND type IN (:types) AND run_at <= :now
			      AND type NOT IN (SELECT type FROM {paused})
			      {attempt_left}
			    ORDER BY priority DESC, run_at, id
			    LIMIT :limit)
			""" + RETURNING_CLAIMED;

	/**
	 * Due pending jobs of some types, in claim order; the claim then takes the best of
	 * all such lists.
	 */
	private static final String CLAIM_CANDIDATES = """
			SELECT id, type, priority, run_at FROM {jobs} INDEXED BY {claim_index}
			WHERE status = 'pending' AND job_key IS NULL AND type IN (:types) AND run_at <= :now {attempt_left}
			ORDER BY priority DESC, run_at, id
			LIMIT :limit
			""";

	/**
	 * The condition of {@code jobs_keyed_idx}, written as it is there: SQLite reads a
	 * partial index only for a statement that names its condition.
	 */
	private static final String KEYED = "job_key IS NOT NULL AND status IN ('pending', 'running', 'failed')";

	/** Whether any of the types has a pending job with a key. */
	private static final String ANY_KEYED_PENDING = """
			SELECT EXISTS (SELECT 1 FROM {jobs} INDEXED BY {p}jobs_keyed_idx
			               WHERE %s AND status = 'pending' AND type IN (SELECT value FROM json_each(:types)))
			""".formatted(KEYED);

	/** The skip-scan over keys: the next key with a pending job. */
	private static final String NEXT_KEY = """
			SELECT job_key FROM {jobs} INDEXED BY {p}jobs_keyed_idx
			WHERE %s AND type = :type AND status = 'pending' AND job_key > :after
			  AND (:until IS NULL OR job_key <= :until)
			ORDER BY job_key LIMIT 1
			""".formatted(KEYED);

	private static final String COUNT_OF_KEY = """
			SELECT count(*) FROM {jobs} INDEXED BY {p}jobs_keyed_idx
			WHERE %s AND type = :type AND status = :status AND job_key = :key
			""".formatted(KEYED);

	/** A key's pending jobs in enqueue order, due ones only. */
	private static final String DUE_OF_KEY = """
			SELECT id, priority, run_at FROM {jobs} INDEXED BY {p}jobs_keyed_idx
			WHERE %s AND type = :type AND status = 'pending' AND job_key = :key AND run_at <= :now {attempt_left}
			ORDER BY id LIMIT :limit
			""".formatted(KEYED);

	/** A key's lowest pending job, due or not. */
	private static final String FIRST_OF_KEY = """
			SELECT id, priority, run_at FROM {jobs} INDEXED BY {p}jobs_keyed_idx
			WHERE %s AND type = :type AND status = 'pending' AND job_key = :key
			ORDER BY id LIMIT 1
			""".formatted(KEYED);

	/**
	 * A key's lowest pending job, due or not, if its claim would not be its last attempt:
	 * for the part of a claim that waits for a slot, where a key whose next job is on its
	 * last attempt waits for a claim into a free slot (its later jobs may not pass it).
	 */
	private static final String FIRST_OF_KEY_WITH_ATTEMPT_LEFT = """
			SELECT id, priority, run_at FROM {jobs}
			WHERE id = (SELECT id FROM {jobs} INDEXED BY {p}jobs_keyed_idx
			            WHERE %s AND type = :type AND status = 'pending' AND job_key = :key ORDER BY id LIMIT 1)
			  AND attempts + 1 < max_attempts
			""".formatted(KEYED);

	/** Starts of a rate-limited scope in its window, from the log's primary key. */
	private static final String STARTS_IN_WINDOW = """
			SELECT count(*), min(started_at) FROM {rate_starts}
			WHERE type = :type AND job_key = :key AND started_at > :since
			""";

	private static final String INSERT_START = """
			INSERT INTO {rate_starts} (type, job_key, started_at, job_id) VALUES (:type, :key, :lease_until, :job_id)
			""";

	/** Starts that left every window of the type. */
	private static final String SWEEP_STARTS = """
			DELETE FROM {rate_starts} WHERE type = :type AND started_at <= :before
			""";

	/**
	 * Takes the chosen jobs (ids as a JSON array), those of ordered keys only if still
	 * first in their key.
	 */
	private static final String CLAIM_BY_IDS = "UPDATE {jobs} AS c\n" + CLAIMED_BY + """
			WHERE id IN (SELECT value FROM json_each(:ids)) AND status = 'pending'
			  AND %s
			""".formatted(FlowClaims.STILL_HEAD_OF_ORDERED_KEY.strip()) + RETURNING_CLAIMED;

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

	private final Sql anyKeyedPending;

	private final KeyReads.Statements keyStatements;

	private final Sql insertStart;

	private final Sql sweepStarts;

	/** Rounds across keys and flow control; keeps this process's key cursors. */
	private final FlowClaims flow = new FlowClaims();

	SqliteClaims(Tables tables, JobEvents events) {
		this.tables = tables;
		this.events = events;
		this.claimByIds = tables.sql(CLAIM_BY_IDS);
		this.selectPausedTypeNames = tables.sql(SELECT_PAUSED_TYPE_NAMES);
		this.countRunningOfType = tables.sql(COUNT_RUNNING_OF_TYPE);
		this.insertAttempt = tables.sql(INSERT_ATTEMPT);
		this.anyKeyedPending = tables.sql(ANY_KEYED_PENDING);
		this.keyStatements = KeyReads.Statements.parse(tables, NEXT_KEY, COUNT_OF_KEY, FIRST_OF_KEY,
				FIRST_OF_KEY_WITH_ATTEMPT_LEFT, DUE_OF_KEY, STARTS_IN_WINDOW);
		this.insertStart = tables.sql(INSERT_START);
		this.sweepStarts = tables.sql(SWEEP_STARTS);
	}

	/** Claims and records the claims (an attempt row and an event per job). */
	@Override
	public Claimed claim(Connection connection, ClaimRequest request, Instant now) throws SQLException {
		Set<String> types = new HashSet<>(request.unlimitedTypes());
		types.addAll(request.limitedTypes().keySet());
		boolean byRounds = !request.flowControls().isEmpty() || anyKeyedPending(connection, types);
		// Read once for both parts of a claim ahead; the single statement reads it
		// inline.
		Set<String> paused = (request.limitedTypes().isEmpty() && !byRounds) ? Set.of() : pausedTypeNames(connection);
		// A claim ahead is two statements in one transaction.
		Claimed claimed = Claims.inParts(request,
				(part, attemptLeft) -> claimPart(connection, part, attemptLeft, paused, byRounds, now));
		recordClaims(connection, claimed.jobs(), request.workerId(), now);
		return claimed;
	}

	private Claimed claimPart(Connection connection, ClaimRequest request, boolean attemptLeft, Set<String> paused,
			boolean byRounds, Instant now) throws SQLException {
		if (byRounds) {
			return claimByRounds(connection, request, attemptLeft, paused, now);
		}
		return Claimed.of(request.limitedTypes().isEmpty() ? claimDue(connection, request, attemptLeft, now)
				: claimBestCandidates(connection, request, attemptLeft, paused, now));
	}

	/**
	 * The claim when keys or flow control are involved: each type's room (its caps), its
	 * jobs without a key in claim order, its keys visited in rounds with their state, its
	 * rate windows; {@link FlowClaims} chooses, and the starts of rate-limited types and
	 * keys are logged.
	 */
	private Claimed claimByRounds(Connection connection, ClaimRequest request, boolean attemptLeft, Set<String> paused,
			Instant now) throws SQLException {
		Map<String, Integer> rooms = rooms(connection, request, paused);
		List<FlowClaims.TypeRead> reads = new ArrayList<>();
		FlowClaims.Reads keyReads = this.keyStatements.reads(connection, attemptLeft, now);
		for (Map.Entry<String, Integer> room : rooms.entrySet()) {
			reads
				.add(this.flow.read(keyReads, room.getKey(), room.getValue(), request.flowControl(room.getKey()), now));
		}
		List<FlowClaims.Candidate> unkeyed = new ArrayList<>();
		Set<String> unlimited = new HashSet<>();
		for (FlowClaims.TypeRead read : reads) {
			int allowance = FlowClaims.typeAllowance(read);
			if (allowance <= 0) {
				continue;
			}
			if (request.unlimitedTypes().contains(read.type())) {
				unlimited.add(read.type());
			}
			else {
				selectCandidates(connection, unkeyed, Set.of(read.type()), allowance, attemptLeft, now);
			}
		}
		if (!unlimited.isEmpty()) {
			selectCandidates(connection, unkeyed, unlimited, request.limit(), attemptLeft, now);
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
		if (plan.chosen().isEmpty()) {
			return new Claimed(List.of(), plan.throttledUntil());
		}
		this.flow.beforeTake(connection);
		List<ClaimedJob> claimed;
		try (SqlStatement claim = this.claimByIds.prepare(connection)) {
			plan.bindHeads(bindClaimedBy(claim, request, now)).bind("ids", JsonArrays.of(plan.ids()));
			claimed = readClaimed(claim);
		}
		logStarts(connection, plan.starts(), request.leaseUntil());
		return new Claimed(claimed, plan.throttledUntil());
	}

	/**
	 * How many jobs of each claimable type the claim may take: the limit for types
	 * without a cap, the room of a capped type, and for a global cap no more than the cap
	 * minus its running jobs; paused types and types without room are left out.
	 */
	private Map<String, Integer> rooms(Connection connection, ClaimRequest request, Set<String> paused)
			throws SQLException {
		Map<String, Integer> rooms = new LinkedHashMap<>();
		for (String type : new TreeSet<>(request.unlimitedTypes())) {
			if (!paused.contains(type)) {
				rooms.put(type, request.limit());
			}
		}
		for (Map.Entry<String, Integer> limited : new TreeMap<>(request.limitedTypes()).entrySet()) {
			String type = limited.getKey();
			int room = Math.min(limited.getValue(), request.limit());
			Integer globalCap = request.globalLimits().get(type);
			if (globalCap != null && room > 0 && !paused.contains(type)) {
				room = Math.min(room, globalCap - runningOfType(connection, type));
			}
			if (room > 0 && !paused.contains(type)) {
				rooms.put(type, room);
			}
		}
		return rooms;
	}

	@Override
	public void beforeNextTake(FlowClaims.BeforeTake hook) {
		this.flow.beforeNextTake(hook);
	}

	/**
	 * Logs the chosen jobs' starts as claimed, not started: dated at the claim's lease
	 * end, so that they count in every window until their handlers begin (see
	 * {@link FlowClaims}).
	 */
	private void logStarts(Connection connection, List<FlowClaims.Start> starts, Instant leaseUntil)
			throws SQLException {
		if (starts.isEmpty()) {
			return;
		}
		try (SqlStatement insert = this.insertStart.prepare(connection)) {
			for (FlowClaims.Start start : starts) {
				insert.bind("type", start.type())
					.bind("key", start.key())
					.bind("lease_until", leaseUntil)
					.bind("job_id", start.jobId())
					.addBatch();
			}
			insert.executeBatch();
		}
	}

	private boolean anyKeyedPending(Connection connection, Set<String> types) throws SQLException {
		if (types.isEmpty()) {
			return false;
		}
		try (SqlStatement select = this.anyKeyedPending.prepare(connection)) {
			return select.bind("types", JsonArrays.of(types)).queryLong() != 0;
		}
	}

	private List<ClaimedJob> claimBestCandidates(Connection connection, ClaimRequest request, boolean attemptLeft,
			Set<String> paused, Instant now) throws SQLException {
		List<FlowClaims.Candidate> candidates = new ArrayList<>();
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
		candidates.sort(FlowClaims.CLAIM_ORDER);
		List<Long> chosen = candidates.subList(0, Math.min(request.limit(), candidates.size()))
			.stream()
			.map(FlowClaims.Candidate::id)
			.toList();
		try (SqlStatement claim = this.claimByIds.prepare(connection)) {
			FlowClaims.Plan.bindNoHeads(bindClaimedBy(claim, request, now)).bind("ids", JsonArrays.of(chosen));
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

	/**
	 * The statements of a claim by rounds across keys, by name, as SQLite prepares them:
	 * for tests of their plans.
	 */
	Map<String, String> keyedStatements() {
		Map<String, String> statements = new LinkedHashMap<>();
		statements.put("ANY_KEYED_PENDING", this.anyKeyedPending.text());
		statements.put("NEXT_KEY", this.keyStatements.nextKey().text());
		statements.put("COUNT_OF_KEY", this.keyStatements.countOfKey().text());
		statements.put("DUE_OF_KEY", this.keyStatements.dueOfKey().text());
		statements.put("DUE_OF_KEY_WITH_ATTEMPT_LEFT", this.keyStatements.dueOfKeyWithAttemptLeft().text());
		statements.put("FIRST_OF_KEY", this.keyStatements.firstOfKey().text());
		statements.put("STARTS_IN_WINDOW", this.keyStatements.startsInWindow().text());
		statements.put("SWEEP_STARTS", this.sweepStarts.text());
		statements.put("CLAIM_BY_IDS", this.claimByIds.text());
		return statements;
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

	private void selectCandidates(Connection connection, List<FlowClaims.Candidate> candidates, Set<String> types,
			int limit, boolean attemptLeft, Instant now) throws SQLException {
		try (SqlStatement select = claimCandidatesStatement(types.size(), attemptLeft).prepare(connection)) {
			select.bindEach("types", types).bind("now", now).bind("limit", limit);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					candidates.add(new FlowClaims.Candidate(rows.getLong(1), rows.getString(2), null, rows.getInt(3),
							SqliteDialect.INSTANCE.instant(rows, 4)));
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

}
