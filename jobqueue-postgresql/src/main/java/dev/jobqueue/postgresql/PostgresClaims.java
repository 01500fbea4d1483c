package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.jdbc.Claims;
import dev.jobqueue.jdbc.FlowClaims;
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
 *
 * <p>
 * <b>Keys and flow control.</b> The claim index holds jobs without a key only. Jobs with
 * a key are claimed in rounds across keys, and types with flow control under their
 * limits, as {@link FlowClaims} decides, in two statements: {@link #READ_FOR_ROUNDS}
 * reads, for every claimed type, its due jobs without a key, its keys after this
 * process's cursor (a recursive skip-scan of {@code jobs_keyed_idx}, wrapping around)
 * with each key's state and due jobs, and the starts in its rate windows;
 * {@link #TAKE_BY_IDS} locks the chosen ones ({@code SKIP LOCKED}), takes them and logs
 * their starts. The one-statement claim takes nothing when a claimed type has a pending
 * job with a key: it says so, and the claim falls back to the two statements, which it
 * keeps using while keys are pending. A type with flow control is claimed after a
 * transaction-scoped advisory lock of its own (with the global caps'), so the counts of
 * running jobs and starts the read sees are exact across processes, and its candidates
 * need no lock until the take; other types run concurrently as before, their candidates
 * locked as the read returns them.
 */
final class PostgresClaims implements Claims {

	/** The condition of {@code jobs_keyed_idx} for alias {@code a}. */
	private static final String KEYED = "%1$s.job_key IS NOT NULL AND %1$s.status IN ('pending', 'running', 'failed')";

	/**
	 * Marks the chosen jobs running and records their claims; {@code chosen} is a CTE of
	 * the ids of pending jobs this statement locked. The ids go in as an array, so the
	 * update finds each row by primary key (a join with the CTE was planned as a hash
	 * join over every pending job); it asks nothing of their status, which a lock held
	 * since they were seen pending keeps: a status in its condition let the planner read
	 * the partial index of all pending jobs instead, and with statistics from before the
	 * jobs came it did (measured: 85 ms of a 190 ms claim of 371 jobs).
	 */
	static final String TAKE_CHOSEN_ROWS = """
			, claimed AS (
			    UPDATE {jobs} j
			    SET status = 'running', runs = j.runs + 1, attempts = j.attempts + 1, worker_id = :worker_id,
			        started_at = :now, heartbeat_at = :now, lease_until = :lease_until,
			        repeatable = NOT (j.type = ANY(:not_repeatable::text[]))
			    WHERE j.id = ANY(ARRAY(SELECT id FROM chosen))
			    RETURNING j.id, j.type, j.payload, j.priority, j.runs, j.attempts, j.max_attempts, j.snoozes, j.run_at,
			              j.created_at, j.trace_parent, j.job_key
			), attempt_rows AS (
			    INSERT INTO {attempts} (job_id, run, attempt, worker_id, started_at)
			    SELECT id, runs, attempts, :worker_id, :now FROM claimed
			), event_rows AS (
			    INSERT INTO {events} (job_id, at, event, actor, detail)
			    SELECT id, :now, 'CLAIMED', :worker_id, 'attempt ' || attempts || '/' || max_attempts FROM claimed
			    ORDER BY priority DESC, run_at, id
			)
			""";

	private static final String CLAIMED_ROWS = """
			SELECT id, type, payload, priority, runs, attempts, max_attempts, snoozes, run_at, created_at, trace_parent,
			       job_key
			FROM claimed
			""";

	/**
	 * The one-statement claim's end: the claimed rows, or when a claimed type has a
	 * pending job with a key (and so took nothing), one row with no id that says so.
	 */
	private static final String CLAIMED_OR_KEYED = CLAIMED_ROWS + """
			UNION ALL
			SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM keyed WHERE keyed.pending
			""";

	static final String TAKE_CHOSEN = TAKE_CHOSEN_ROWS + CLAIMED_ROWS;

	/**
	 * The best due jobs of one type, in claim order from the partial index of pending
	 * jobs without a key. Whether the type is paused is asked of the parameter, not of
	 * each row: the planner then checks it once (a one-time filter) and estimates the
	 * rows by the index alone. Asked of {@code c.type}, on a table where one type holds
	 * most rows, it estimated a single matching row and read and sorted every pending job
	 * in each claim (measured: 30 ms per claim of 128 at 16,000 pending jobs). Nothing is
	 * taken when the type has a pending job with a key (one probe of
	 * {@code jobs_keyed_idx}): those are claimed in rounds.
	 */
	static final String CLAIM_DUE = """
			WITH keyed AS (
			    SELECT (SELECT k.job_key FROM {jobs} k WHERE %s AND k.status = 'pending' AND k.type = :type
			            AND :type <> ALL(ARRAY(SELECT type FROM {paused}))
			            ORDER BY k.job_key LIMIT 1) IS NOT NULL AS pending
			), chosen AS (
			    SELECT c.id FROM {jobs} c
			    WHERE c.status = 'pending' AND c.job_key IS NULL AND c.type = :type AND c.run_at <= :now {attempt_left}
			      AND :type <> ALL(ARRAY(SELECT type FROM {paused})) AND NOT (SELECT pending FROM keyed)
			    ORDER BY c.priority DESC, c.run_at, c.id
			    LIMIT :limit
			    FOR UPDATE SKIP LOCKED
			)
			""".formatted(KEYED.formatted("k")) + TAKE_CHOSEN_ROWS + CLAIMED_OR_KEYED;

	/**
	 * The best due jobs of each type (at most its room, and for a global cap at most the
	 * cap minus its running jobs), each read in claim order from
	 * {@code jobs_claim_type_idx}, then the best of them all. One index probe per type
	 * whatever the backlog: with {@code type = ANY(...)} the planner may read all due
	 * jobs of the types and sort them (measured: 308 ms per claim on 96,000 pending jobs,
	 * instead of 5 ms). Nothing is taken when a type has a pending job with a key.
	 */
	static final String CLAIM_BY_TYPE = """
			WITH keyed AS (
			    SELECT EXISTS (SELECT 1 FROM unnest(:types::text[]) AS t(type)
			                   WHERE t.type <> ALL(ARRAY(SELECT type FROM {paused}))
			                     AND (SELECT k.job_key FROM {jobs} k WHERE %s AND k.status = 'pending' AND k.type = t.type
			                          ORDER BY k.job_key LIMIT 1) IS NOT NULL) AS pending
			), candidates AS (
			    SELECT l.id, l.priority, l.run_at
			    FROM unnest(:types::text[], :rooms::int[], :global_caps::int[]) AS t(type, room, cap)
			    CROSS JOIN LATERAL (
			        SELECT c.id, c.priority, c.run_at FROM {jobs} c
			        WHERE c.status = 'pending' AND c.job_key IS NULL AND c.type = t.type AND c.run_at <= :now {attempt_left}
			        ORDER BY c.priority DESC, c.run_at, c.id
			        LIMIT CASE WHEN t.cap IS NULL THEN t.room
			                   ELSE greatest(0, least(t.room, t.cap - (SELECT count(*) FROM {jobs} r
			                                                        WHERE r.status = 'running' AND r.type = t.type))) END
			        FOR UPDATE SKIP LOCKED
			    ) l
			    WHERE t.type <> ALL(ARRAY(SELECT type FROM {paused})) AND NOT (SELECT pending FROM keyed)
			), chosen AS (
			    SELECT id FROM candidates ORDER BY priority DESC, run_at, id LIMIT :limit
			)
			"""
		.formatted(KEYED.formatted("k")) + TAKE_CHOSEN_ROWS + CLAIMED_OR_KEYED;

	/**
	 * A type's candidates in a claim by rounds: the rows that {@code %1$s} (a query up to
	 * its WHERE clause's last term) and {@code %2$s} (its order and limit) select, locked
	 * and skipping rows other claimers hold unless the type is claimed under its advisory
	 * lock ({@code t.serialised}): no other claim takes its jobs meanwhile, and the take
	 * locks the chosen ones. A lock is a write per row (measured: a claim of 130 jobs
	 * with a key concurrency of 1 read 536 keys in 45 ms with their first jobs locked, 16
	 * ms without), and most candidates of a type with limits per key are not chosen. The
	 * type's flag is a one-time filter in each branch: only one of them reads.
	 */
	private static final String CANDIDATES = """
			SELECT * FROM (%1$s AND NOT t.serialised %2$s FOR UPDATE SKIP LOCKED) locked
			UNION ALL
			SELECT * FROM (%1$s AND t.serialised %2$s) unlocked
			""";

	/** A type's due jobs without a key, in claim order, at most its room. */
	private static final String UNKEYED_JOBS = CANDIDATES.formatted("""
			SELECT c.id, c.priority, c.run_at FROM {jobs} c
			WHERE c.status = 'pending' AND c.job_key IS NULL AND c.type = t.type AND c.run_at <= :now {attempt_left}
			""".strip(), "ORDER BY c.priority DESC, c.run_at, c.id LIMIT t.room");

	/**
	 * A visited key's due jobs in id order (for an ordered type its lowest pending job,
	 * due or not), at most its share of the room.
	 */
	private static final String KEY_JOBS = CANDIDATES.formatted("""
			SELECT c.id, c.priority, c.run_at FROM {jobs} c
			WHERE %s AND c.type = v.type AND c.status = 'pending' AND c.job_key = v.job_key
			  AND c.run_at <= CASE WHEN t.ordered THEN 'infinity'::timestamptz ELSE :now END {attempt_left}
			""".formatted(KEYED.formatted("c")).strip(), """
			ORDER BY c.id
			LIMIT CASE WHEN t.ordered THEN 1
			           ELSE least(greatest(1, (t.room + v.keys - 1) / v.keys),
			                      CASE WHEN t.key_concurrency > 0 THEN t.key_concurrency ELSE t.room END) END
			""".strip());

	/**
	 * What a claim by rounds reads, in one statement, for each claimed type (its room
	 * after a global cap, its cursor, how many keys to visit, and what its flow control
	 * needs read): rows of kind {@code t} (the type: its room and the starts in its rate
	 * window), {@code u} (a due job without a key, in claim order, at most the room) and
	 * {@code k} (a visited key in visit order, with its running jobs, whether a job of it
	 * failed, its lowest pending id, the starts in its window, and one of its jobs, or
	 * none). The keys come from a recursive skip-scan of {@code jobs_keyed_idx}: after
	 * the cursor in key order, then from the first key up to the cursor, one index probe
	 * each. A key's jobs are its due pending jobs in id order (for an ordered type its
	 * lowest pending job, due or not), at most its share of the room ({@code jobsPerKey}
	 * of {@link FlowClaims}, written here in SQL since only the statement knows how many
	 * keys it visited). Candidates are read as {@link #CANDIDATES} says; the lowest
	 * pending id of an ordered key is read apart, so a first job the claim-ahead part
	 * passes over (its last attempt) holds its key. A key's running and failed jobs are
	 * counted with the status taken from {@code t}, not written as a literal: against a
	 * literal the planner may read the index of all running (or failed) jobs of the type
	 * and filter by key, and with statistics taken before the jobs started it did
	 * (measured: 0.07 ms a key with 136 jobs running, 0.002 ms from
	 * {@code jobs_keyed_idx}); a status it does not know when planning leaves no partial
	 * index but {@code jobs_keyed_idx}, whose condition the statement names.
	 */
	static final String READ_FOR_ROUNDS = """
			WITH RECURSIVE t AS (
			    SELECT p.type, p.after, p.visits, p.ordered, p.key_concurrency, p.read_running, p.read_failed,
			           p.serialised, 'running'::text AS running, 'failed'::text AS failed,
			           :now - p.type_window * interval '1 millisecond' AS type_since,
			           :now - p.key_window * interval '1 millisecond' AS key_since,
			           CASE WHEN p.cap IS NULL THEN p.room
			                ELSE greatest(0, least(p.room, p.cap - (SELECT count(*) FROM {jobs} r
			                                                     WHERE r.status = 'running' AND r.type = p.type))) END AS room
			    FROM unnest(:types::text[], :rooms::int[], :global_caps::int[], :cursors::text[], :visits::int[],
			                :ordered::boolean[], :key_concurrency::int[], :read_running::boolean[], :read_failed::boolean[],
			                :type_window::bigint[], :key_window::bigint[], :serialised::boolean[])
			         AS p(type, room, cap, after, visits, ordered, key_concurrency, read_running, read_failed, type_window,
			              key_window, serialised)
			    WHERE p.type <> ALL(ARRAY(SELECT type FROM {paused}))
			), keys (type, job_key, phase, n) AS (
			    SELECT t.type, coalesce(t.after, ''), 0, 0 FROM t WHERE t.room > 0 AND t.visits > 0
			    UNION ALL
			    SELECT k.type, s.job_key, s.phase, k.n + 1
			    FROM keys k JOIN t ON t.type = k.type
			    CROSS JOIN LATERAL (
			        (SELECT j.job_key, 0 AS phase FROM {jobs} j
			         WHERE %1$s AND j.type = k.type AND j.status = 'pending' AND k.phase = 0 AND j.job_key > k.job_key
			         ORDER BY j.job_key LIMIT 1)
			        UNION ALL
			        (SELECT j.job_key, 1 FROM {jobs} j
			         WHERE %1$s AND j.type = k.type AND j.status = 'pending' AND t.after IS NOT NULL
			           AND j.job_key > CASE WHEN k.phase = 0 THEN '' ELSE k.job_key END AND j.job_key <= t.after
			         ORDER BY j.job_key LIMIT 1)
			        LIMIT 1
			    ) s
			    WHERE k.n < t.visits
			), visited AS (
			    SELECT k.type, k.job_key, k.n, count(*) OVER (PARTITION BY k.type) AS keys FROM keys k WHERE k.n > 0
			)
			SELECT 't' AS kind, t.type, NULL AS job_key, NULL::int AS visit, t.room AS running, NULL::boolean AS failed,
			       NULL::bigint AS lowest, ts.starts, ts.oldest, NULL::bigint AS id, NULL::int AS priority,
			       NULL::timestamptz AS run_at
			FROM t
			LEFT JOIN LATERAL (
			    SELECT count(*)::int AS starts, min(r.started_at) AS oldest FROM {rate_starts} r
			    WHERE r.type = t.type AND r.job_key = '' AND r.started_at > t.type_since
			) ts ON t.type_since IS NOT NULL
			UNION ALL
			SELECT 'u', t.type, NULL, NULL, NULL, NULL, NULL, NULL, NULL, l.id, l.priority, l.run_at
			FROM t CROSS JOIN LATERAL (
			%5$s) l
			UNION ALL
			SELECT 'k', v.type, v.job_key, v.n,
			       CASE WHEN t.read_running THEN (SELECT count(*)::int FROM {jobs} r WHERE %2$s AND r.type = v.type
			                                      AND r.status = t.running AND r.job_key = v.job_key) ELSE 0 END,
			       CASE WHEN t.read_failed THEN EXISTS (SELECT 1 FROM {jobs} f WHERE %3$s AND f.type = v.type
			                                            AND f.status = t.failed AND f.job_key = v.job_key) ELSE false END,
			       CASE WHEN t.ordered THEN (SELECT min(m.id) FROM {jobs} m WHERE %4$s AND m.type = v.type
			                                 AND m.status = 'pending' AND m.job_key = v.job_key) END,
			       ks.starts, ks.oldest, c.id, c.priority, c.run_at
			FROM visited v JOIN t ON t.type = v.type
			LEFT JOIN LATERAL (
			    SELECT count(*)::int AS starts, min(r.started_at) AS oldest FROM {rate_starts} r
			    WHERE r.type = v.type AND r.job_key = v.job_key AND r.started_at > t.key_since
			) ks ON t.key_since IS NOT NULL
			LEFT JOIN LATERAL (
			%6$s) c ON true
			"""
		.formatted(KEYED.formatted("j"), KEYED.formatted("r"), KEYED.formatted("f"), KEYED.formatted("m"), UNKEYED_JOBS,
				KEY_JOBS);

	/**
	 * Takes the jobs a claim by rounds chose, records their claims, logs the starts of
	 * rate-limited types and keys, and deletes the starts that left every window of the
	 * types due a sweep. The chosen jobs are locked here, skipping any another
	 * transaction holds (the read locked those of types claimed without their advisory
	 * lock already), and those of ordered keys taken only if still first in their key.
	 * They are found by primary key alone and their status checked once locked, for the
	 * reason {@link #TAKE_CHOSEN_ROWS} gives.
	 */
	static final String TAKE_BY_IDS = """
			WITH locked AS (
			    SELECT c.id, c.status FROM {jobs} c
			    WHERE c.id = ANY(:ids::bigint[])
			      AND %s
			    FOR UPDATE SKIP LOCKED
			), chosen AS (
			    SELECT id FROM locked WHERE status = 'pending'
			)
			""".formatted(FlowClaims.STILL_HEAD_OF_ORDERED_KEY.strip()) + TAKE_CHOSEN_ROWS + """
			, start_rows AS (
			    INSERT INTO {rate_starts} (type, job_key, started_at, job_id)
			    SELECT s.type, s.job_key, :lease_until, s.job_id
			    FROM unnest(:start_types::text[], :start_keys::text[], :start_ids::bigint[]) AS s(type, job_key, job_id)
			    WHERE s.job_id IN (SELECT id FROM claimed)
			), swept AS (
			    DELETE FROM {rate_starts} r
			    USING unnest(:sweep_types::text[], :sweep_windows::bigint[]) AS w(type, window_millis)
			    WHERE r.type = w.type AND r.started_at <= :now - w.window_millis * interval '1 millisecond'
			)
			""" + CLAIMED_ROWS;

	/**
	 * Serialises claims of globally capped types and of types with flow control across
	 * processes for the rest of the transaction, so that the claim statement after it
	 * (with a snapshot taken after the locks) counts every running job and start of the
	 * type.
	 */
	static final String LOCK_CAPPED_TYPES = """
			SELECT pg_advisory_xact_lock(hashtextextended(:channel || ':' || t, 0))
			FROM unnest(:types::text[]) AS t ORDER BY t
			""";

	private final Tables tables;

	/** Rounds across keys and flow control; keeps this process's key cursors. */
	private final FlowClaims flow = new FlowClaims();

	/**
	 * Whether the latest claim saw pending jobs with a key: the next one then claims by
	 * rounds at once instead of trying the one-statement claim first.
	 */
	private volatile boolean keysPending;

	PostgresClaims(Tables tables) {
		this.tables = tables;
	}

	@Override
	public Claimed claim(Connection connection, ClaimRequest request, Instant now) throws SQLException {
		Set<String> locked = lockedTypes(request);
		if (!locked.isEmpty()) {
			// Both parts of a claim ahead run after the locks, taken for the types of
			// either part.
			try (SqlStatement lock = this.tables.sql(LOCK_CAPPED_TYPES).prepare(connection)) {
				lock.bind("channel", PostgresNotifications.channel(this.tables)).bindTexts("types", locked);
				lock.executeQuery().close();
			}
		}
		// A statement per part: the first statement's jobs are running by the second, so
		// it does not see them.
		return Claims.inParts(request, (part, attemptLeft) -> claimPart(connection, part, attemptLeft, now));
	}

	/**
	 * The types whose claims hold their advisory lock, in lock order: those with a global
	 * cap or flow control.
	 */
	private static Set<String> lockedTypes(ClaimRequest request) {
		TreeSet<String> locked = new TreeSet<>(request.globalLimits().keySet());
		locked.addAll(request.flowControls().keySet());
		return locked;
	}

	@Override
	public void beforeNextTake(FlowClaims.BeforeTake hook) {
		this.flow.beforeNextTake(hook);
	}

	private Claimed claimPart(Connection connection, ClaimRequest request, boolean attemptLeft, Instant now)
			throws SQLException {
		if (request.flowControls().isEmpty() && !this.keysPending) {
			List<ClaimedJob> claimed = new ArrayList<>();
			boolean keyed = (request.limitedTypes().isEmpty() && request.unlimitedTypes().size() == 1)
					? claimOneType(connection, request, attemptLeft, now, claimed)
					: claimByType(connection, request, attemptLeft, now, claimed);
			if (!keyed) {
				return Claimed.of(claimed);
			}
		}
		return claimByRounds(connection, request, attemptLeft, now);
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
	 * {@link #CLAIM_DUE}, {@link #CLAIM_BY_TYPE} or {@link #READ_FOR_ROUNDS}, with or
	 * without the attempts filter.
	 */
	static String claimSql(String template, boolean attemptLeft) {
		return template.replace("{attempt_left}", attemptLeft ? "AND c.attempts + 1 < c.max_attempts" : "");
	}

	/**
	 * @return whether a pending job with a key held the claim back
	 */
	private boolean claimOneType(Connection connection, ClaimRequest request, boolean attemptLeft, Instant now,
			List<ClaimedJob> claimed) throws SQLException {
		try (SqlStatement claim = claimStatement(CLAIM_DUE, attemptLeft).prepare(connection)) {
			claim.bind("type", request.unlimitedTypes().iterator().next());
			return execute(bindClaimedBy(claim, request, now).bind("limit", request.limit()), claimed);
		}
	}

	/**
	 * @return whether a pending job with a key held the claim back
	 */
	private boolean claimByType(Connection connection, ClaimRequest request, boolean attemptLeft, Instant now,
			List<ClaimedJob> claimed) throws SQLException {
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
			return execute(bindClaimedBy(claim, request, now).bind("limit", request.limit()), claimed);
		}
	}

	/**
	 * The claim when keys are pending or types have flow control: the read of every
	 * type's candidates, keys and windows, the choice of {@link FlowClaims}, the take.
	 */
	private Claimed claimByRounds(Connection connection, ClaimRequest request, boolean attemptLeft, Instant now)
			throws SQLException {
		Map<String, Integer> rooms = new LinkedHashMap<>();
		for (String type : new TreeSet<>(request.unlimitedTypes())) {
			rooms.put(type, request.limit());
		}
		for (Map.Entry<String, Integer> limited : request.limitedTypes().entrySet()) {
			rooms.put(limited.getKey(), Math.max(0, Math.min(limited.getValue(), request.limit())));
		}
		Reads reads = read(connection, request, rooms, attemptLeft, now);
		this.keysPending = reads.keysVisited();
		FlowClaims.Plan plan = this.flow.plan(reads.unkeyed(), reads.types(), request.limit(), now);
		List<String> sweepTypes = new ArrayList<>();
		List<Long> sweepWindows = new ArrayList<>();
		for (FlowClaims.TypeRead type : reads.types()) {
			Instant before = this.flow.sweepBefore(type.type(), type.flow(), now);
			if (before != null) {
				sweepTypes.add(type.type());
				sweepWindows.add(now.toEpochMilli() - before.toEpochMilli());
			}
		}
		if (plan.chosen().isEmpty() && sweepTypes.isEmpty()) {
			return new Claimed(List.of(), plan.throttledUntil());
		}
		List<String> startTypes = new ArrayList<>();
		List<String> startKeys = new ArrayList<>();
		List<Long> startIds = new ArrayList<>();
		for (FlowClaims.Start start : plan.starts()) {
			startTypes.add(start.type());
			startKeys.add(start.key());
			startIds.add(start.jobId());
		}
		this.flow.beforeTake(connection);
		List<ClaimedJob> claimed = new ArrayList<>();
		try (SqlStatement take = this.tables.sql(TAKE_BY_IDS).prepare(connection)) {
			plan.bindHeads(take)
				.bindArray("ids", "int8", plan.ids().toArray())
				.bindArray("start_types", "text", startTypes.toArray())
				.bindArray("start_keys", "text", startKeys.toArray())
				.bindArray("start_ids", "int8", startIds.toArray())
				.bindArray("sweep_types", "text", sweepTypes.toArray())
				.bindArray("sweep_windows", "int8", sweepWindows.toArray());
			execute(bindClaimedBy(take, request, now), claimed);
		}
		return new Claimed(claimed, plan.throttledUntil());
	}

	private Reads read(Connection connection, ClaimRequest request, Map<String, Integer> rooms, boolean attemptLeft,
			Instant now) throws SQLException {
		int size = rooms.size();
		Object[] types = new Object[size];
		Object[] roomArray = new Object[size];
		Object[] caps = new Object[size];
		Object[] cursors = new Object[size];
		Object[] visits = new Object[size];
		Object[] ordered = new Object[size];
		Object[] keyConcurrency = new Object[size];
		Object[] readRunning = new Object[size];
		Object[] readFailed = new Object[size];
		Object[] typeWindow = new Object[size];
		Object[] keyWindow = new Object[size];
		Object[] serialised = new Object[size];
		Set<String> locked = lockedTypes(request);
		int i = 0;
		for (Map.Entry<String, Integer> room : rooms.entrySet()) {
			String type = room.getKey();
			FlowControl control = request.flowControl(type);
			types[i] = type;
			roomArray[i] = room.getValue();
			caps[i] = request.globalLimits().get(type);
			cursors[i] = this.flow.cursor(type);
			visits[i] = this.flow.keysToVisit(type, room.getValue(), control);
			ordered[i] = control.ordered();
			keyConcurrency[i] = control.keyConcurrency();
			readRunning[i] = control.runningPerKey() > 0;
			readFailed[i] = control.ordered() && control.blockOnFailure();
			typeWindow[i] = (control.rateLimit() != null) ? control.rateLimit().window().toMillis() : null;
			keyWindow[i] = (control.keyRateLimit() != null) ? control.keyRateLimit().window().toMillis() : null;
			serialised[i] = locked.contains(type);
			i++;
		}
		Map<String, Integer> effectiveRooms = new LinkedHashMap<>();
		Map<String, FlowClaims.Starts> typeStarts = new LinkedHashMap<>();
		Map<String, List<FlowClaims.KeyVisit>> visitsByType = new LinkedHashMap<>();
		List<FlowClaims.Candidate> unkeyed = new ArrayList<>();
		boolean keysVisited = false;
		try (SqlStatement read = claimStatement(READ_FOR_ROUNDS, attemptLeft).prepare(connection)) {
			read.bindArray("types", "text", types)
				.bindArray("rooms", "int4", roomArray)
				.bindArray("global_caps", "int4", caps)
				.bindArray("cursors", "text", cursors)
				.bindArray("visits", "int4", visits)
				.bindArray("ordered", "bool", ordered)
				.bindArray("key_concurrency", "int4", keyConcurrency)
				.bindArray("read_running", "bool", readRunning)
				.bindArray("read_failed", "bool", readFailed)
				.bindArray("type_window", "int8", typeWindow)
				.bindArray("key_window", "int8", keyWindow)
				.bindArray("serialised", "bool", serialised)
				.bind("now", now);
			// Rows of one visit (one per job read of its key) come together, but the
			// statement keeps no order: visits are put in order by their number.
			Map<String, Map<Integer, VisitRows>> keyRows = new LinkedHashMap<>();
			try (ResultSet rows = read.executeQuery()) {
				while (rows.next()) {
					String kind = rows.getString(1);
					String type = rows.getString(2);
					if (kind.equals("t")) {
						effectiveRooms.put(type, rows.getInt(5));
						typeStarts.put(type, starts(rows));
					}
					else if (kind.equals("u")) {
						unkeyed.add(new FlowClaims.Candidate(rows.getLong(10), type, null, rows.getInt(11),
								PostgresDialect.INSTANCE.instant(rows, 12)));
					}
					else {
						keysVisited = true;
						String key = rows.getString(3);
						VisitRows visit = keyRows.computeIfAbsent(type, (any) -> new TreeMap<>())
							.computeIfAbsent(rows.getInt(4), (n) -> new VisitRows(key));
						visit.running = rows.getInt(5);
						visit.failed = rows.getBoolean(6);
						long lowest = rows.getLong(7);
						visit.lowest = rows.wasNull() ? null : lowest;
						visit.starts = starts(rows);
						long id = rows.getLong(10);
						if (!rows.wasNull()) {
							visit.jobs.add(new FlowClaims.Candidate(id, type, key, rows.getInt(11),
									PostgresDialect.INSTANCE.instant(rows, 12)));
						}
					}
				}
			}
			keyRows.forEach((type, byNumber) -> {
				List<FlowClaims.KeyVisit> keyVisits = new ArrayList<>();
				byNumber.values().forEach((visit) -> keyVisits.add(visit.toVisit()));
				visitsByType.put(type, keyVisits);
			});
		}
		List<FlowClaims.TypeRead> reads = new ArrayList<>();
		effectiveRooms.forEach((type, room) -> reads.add(new FlowClaims.TypeRead(type, room, request.flowControl(type),
				typeStarts.get(type), visitsByType.getOrDefault(type, List.of()))));
		return new Reads(unkeyed, reads, keysVisited);
	}

	private static FlowClaims.Starts starts(ResultSet rows) throws SQLException {
		int count = rows.getInt(8);
		return rows.wasNull() ? FlowClaims.Starts.NONE
				: new FlowClaims.Starts(count, PostgresDialect.INSTANCE.instant(rows, 9));
	}

	private static SqlStatement bindClaimedBy(SqlStatement claim, ClaimRequest request, Instant now)
			throws SQLException {
		return claim.bind("worker_id", request.workerId())
			.bind("now", now)
			.bind("lease_until", request.leaseUntil())
			.bindTexts("not_repeatable", request.notRepeatableTypes());
	}

	/**
	 * Runs a statement ending in {@link #CLAIMED_ROWS} or {@link #CLAIMED_OR_KEYED}.
	 * @return whether it said that a pending job with a key held it back
	 */
	private static boolean execute(SqlStatement claim, List<ClaimedJob> claimed) throws SQLException {
		boolean keyed = false;
		try (ResultSet rows = claim.executeQuery()) {
			while (rows.next()) {
				long id = rows.getLong(1);
				if (rows.wasNull()) {
					keyed = true;
					continue;
				}
				claimed.add(new ClaimedJob(id, rows.getString(2), rows.getString(3), rows.getInt(4), rows.getInt(5),
						rows.getInt(6), rows.getInt(7), rows.getInt(8), PostgresDialect.INSTANCE.instant(rows, 9),
						PostgresDialect.INSTANCE.instant(rows, 10), rows.getString(11), rows.getString(12)));
			}
		}
		claimed.sort(ClaimedJob.CLAIM_ORDER);
		return keyed;
	}

	/** What {@link #READ_FOR_ROUNDS} returned. */
	private record Reads(List<FlowClaims.Candidate> unkeyed, List<FlowClaims.TypeRead> types, boolean keysVisited) {

	}

	/** The rows of one visited key. */
	private static final class VisitRows {

		final String key;

		final List<FlowClaims.Candidate> jobs = new ArrayList<>();

		int running;

		boolean failed;

		Long lowest;

		FlowClaims.Starts starts = FlowClaims.Starts.NONE;

		VisitRows(String key) {
			this.key = key;
		}

		FlowClaims.KeyVisit toVisit() {
			this.jobs.sort(Comparator.comparingLong(FlowClaims.Candidate::id));
			return new FlowClaims.KeyVisit(this.key, this.running, this.failed, this.lowest, this.starts, this.jobs);
		}

	}

}
