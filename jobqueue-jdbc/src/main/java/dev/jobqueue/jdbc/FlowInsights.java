package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.RateLimit;
import dev.jobqueue.core.store.QueueInsights.KeyQuery;
import dev.jobqueue.core.store.QueueInsights.KeyState;
import dev.jobqueue.core.store.QueueInsights.TypeKeys;
import dev.jobqueue.core.store.QueueSnapshot.FlowState;

/**
 * What flow control holds back, read for people: per type with limits, its due jobs held
 * by each limit ({@link FlowState}, in the snapshot), and a type's keys by backlog
 * ({@link TypeKeys}). The same on every store: each count is one statement over an index
 * range of the type, never over finished jobs:
 * <ul>
 * <li>a type's pending, running and failed jobs with a key, grouped by key, from
 * {@code jobs_keyed_idx} (type, status, key, id, due time): index only, in key order, so
 * the grouping needs no sort. Its cost grows with the type's pending jobs with a key: it
 * is read only for types whose limits apply per key, and for the key list;</li>
 * <li>due jobs without a key, from {@code jobs_claim_type_idx} (type, priority, due time,
 * id);</li>
 * <li>starts in a rate window, from the primary key of {@code job_rate_starts}.</li>
 * </ul>
 * Which job each limit holds is decided as {@link FlowClaims} decides a claim: see
 * {@link FlowState} for the rules.
 */
final class FlowInsights {

	/**
	 * The condition of {@code jobs_keyed_idx}, written as it is there: SQLite reads a
	 * partial index only for a statement that names its condition.
	 */
	private static final String KEYED = "job_key IS NOT NULL AND status IN ('pending', 'running', 'failed')";

	/**
	 * Per key of a type: pending jobs, due ones, the lowest pending id and the lowest due
	 * id (equal when the key's first job in enqueue order is due).
	 */
	private static final String PENDING_BY_KEY = """
			SELECT job_key, count(*), sum(CASE WHEN run_at <= :now THEN 1 ELSE 0 END), min(id),
			       min(CASE WHEN run_at <= :now THEN id END)
			FROM {jobs} {keyed_index}
			WHERE %s AND type = :type AND status = 'pending'
			GROUP BY job_key
			""".formatted(KEYED);

	/** Per key of a type: its jobs in one status, and the lowest id among them. */
	private static final String STATUS_BY_KEY = """
			SELECT job_key, count(*), min(id) FROM {jobs} {keyed_index}
			WHERE %s AND type = :type AND status = :status
			GROUP BY job_key
			""".formatted(KEYED);

	/** Due jobs of a type with a key, for a type whose limits are not per key. */
	private static final String KEYED_DUE = """
			SELECT count(*) FROM {jobs} {keyed_index}
			WHERE %s AND type = :type AND status = 'pending' AND run_at <= :now
			""".formatted(KEYED);

	private static final String UNKEYED_DUE = """
			SELECT count(*) FROM {jobs} {claim_type_index}
			WHERE status = 'pending' AND job_key IS NULL AND type = :type AND run_at <= :now
			""";

	/** Starts of one scope (a key, or '' for the type) in its window. */
	private static final String STARTS = """
			SELECT count(*) FROM {rate_starts} WHERE type = :type AND job_key = :key AND started_at > :since
			""";

	/** Starts per key of a type in the key's window. */
	private static final String STARTS_BY_KEY = """
			SELECT job_key, count(*) FROM {rate_starts}
			WHERE type = :type AND job_key > '' AND started_at > :since
			GROUP BY job_key
			""";

	/** The statements as written, by name, for tests of their plans. */
	private final Map<String, String> templates = new TreeMap<>();

	private final Sql pendingByKey;

	private final Sql statusByKey;

	private final Sql keyedDue;

	private final Sql unkeyedDue;

	private final Sql starts;

	private final Sql startsByKey;

	FlowInsights(Tables tables) {
		Dialect dialect = tables.dialect();
		String keyedIndex = dialect.indexedBy("jobs_keyed_idx");
		String claimTypeIndex = dialect.indexedBy("jobs_claim_type_idx");
		this.pendingByKey = statement(tables, "PENDING_BY_KEY", PENDING_BY_KEY.replace("{keyed_index}", keyedIndex));
		this.statusByKey = statement(tables, "STATUS_BY_KEY", STATUS_BY_KEY.replace("{keyed_index}", keyedIndex));
		this.keyedDue = statement(tables, "KEYED_DUE", KEYED_DUE.replace("{keyed_index}", keyedIndex));
		this.unkeyedDue = statement(tables, "UNKEYED_DUE", UNKEYED_DUE.replace("{claim_type_index}", claimTypeIndex));
		this.starts = statement(tables, "STARTS", STARTS);
		this.startsByKey = statement(tables, "STARTS_BY_KEY", STARTS_BY_KEY);
	}

	private Sql statement(Tables tables, String name, String template) {
		this.templates.put(name, template);
		return tables.sql(template);
	}

	/**
	 * The statements as written (tables in braces, values named), by name, for tests of
	 * their plans.
	 */
	Map<String, String> statements() {
		return Map.copyOf(this.templates);
	}

	/** The held jobs of each type with limits. */
	Map<String, FlowState> states(Connection connection, Instant now, Map<String, FlowControl> flows)
			throws SQLException {
		Map<String, FlowState> states = new TreeMap<>();
		for (Map.Entry<String, FlowControl> entry : flows.entrySet()) {
			if (entry.getValue().limits()) {
				states.put(entry.getKey(), state(connection, entry.getKey(), entry.getValue(), now));
			}
		}
		return states;
	}

	private FlowState state(Connection connection, String type, FlowControl flow, Instant now) throws SQLException {
		long unkeyedDue = count(this.unkeyedDue, connection, type, now);
		long typeStarts = (flow.rateLimit() != null)
				? starts(connection, type, FlowClaims.Start.TYPE_WIDE, FlowClaims.windowStart(flow.rateLimit(), now))
				: 0;
		if (!flow.limitsKeys()) {
			long keyedDue = count(this.keyedDue, connection, type, now);
			return held(flow, List.of(), unkeyedDue + keyedDue, unkeyedDue, typeStarts, 0);
		}
		Map<String, KeyCounts> keys = keys(connection, type, flow, now, false);
		long blockedKeys = keys.values().stream().filter((key) -> key.blocked(flow)).count();
		long keyedDue = keys.values().stream().mapToLong(KeyCounts::due).sum();
		return held(flow, keys.values(), keyedDue + unkeyedDue, unkeyedDue, typeStarts, blockedKeys);
	}

	/**
	 * Adds up what each limit holds, in the order a claim applies them (see
	 * {@link FlowState}).
	 * @param keys the type's keys with their pending, running and failed jobs and starts
	 * @param due every due job of the type
	 * @param unkeyedDue due jobs without a key
	 * @param typeStarts the type's starts in its rate window
	 */
	static FlowState held(FlowControl flow, Iterable<KeyCounts> keys, long due, long unkeyedDue, long typeStarts,
			long blockedKeys) {
		long blocked = 0;
		long keyLimit = 0;
		long keyRateLimit = 0;
		long mayStart = unkeyedDue;
		if (!flow.limitsKeys()) {
			mayStart = due;
		}
		else {
			for (KeyCounts key : keys) {
				if (key.blocked(flow)) {
					blocked += key.due();
					continue;
				}
				long allowed = key.allowedByKeyLimits(flow);
				keyLimit += key.due() - allowed;
				if (flow.keyRateLimit() != null) {
					long left = Math.max(0, flow.keyRateLimit().permits() - key.starts());
					keyRateLimit += allowed - Math.min(allowed, left);
					allowed = Math.min(allowed, left);
				}
				mayStart += allowed;
			}
		}
		long rateLimit = 0;
		RateLimit rate = flow.rateLimit();
		if (rate != null) {
			rateLimit = Math.max(0, mayStart - Math.max(0, rate.permits() - typeStarts));
		}
		return new FlowState(flow, due, blocked, keyLimit, keyRateLimit, rateLimit, blockedKeys, typeStarts);
	}

	/** The keys of a type: the busiest by backlog, and the blocked ones. */
	TypeKeys typeKeys(Connection connection, KeyQuery query) throws SQLException {
		FlowControl flow = query.flowControl();
		Map<String, KeyCounts> keys = keys(connection, query.type(), flow, query.now(), true);
		List<KeyState> all = new ArrayList<>(keys.size());
		for (KeyCounts key : keys.values()) {
			all.add(new KeyState(key.key(), key.pending(), key.due(), key.running(), key.failed(), key.firstFailedId(),
					key.blocked(flow)));
		}
		Comparator<KeyState> byBacklog = Comparator.comparingLong(KeyState::pending)
			.reversed()
			.thenComparing(Comparator.comparingLong(KeyState::running).reversed())
			.thenComparing(KeyState::key);
		List<KeyState> blocked = all.stream().filter(KeyState::blocked).sorted(byBacklog).toList();
		List<KeyState> busiest = all.stream().sorted(byBacklog).limit(query.limit()).toList();
		return new TypeKeys(query.type(), flow, query.now(), all.size(), blocked.size(), busiest,
				blocked.subList(0, Math.min(blocked.size(), query.limit())));
	}

	/**
	 * A type's keys with their counts: pending jobs always; running and failed ones when
	 * {@code everything} is asked for or a limit needs them; starts when the type has a
	 * key rate limit.
	 */
	private Map<String, KeyCounts> keys(Connection connection, String type, FlowControl flow, Instant now,
			boolean everything) throws SQLException {
		Map<String, KeyCounts> keys = new TreeMap<>();
		try (SqlStatement select = this.pendingByKey.prepare(connection)) {
			try (ResultSet rows = select.bind("type", type).bind("now", now).executeQuery()) {
				while (rows.next()) {
					long firstDue = rows.getLong(5);
					Long firstDueId = rows.wasNull() ? null : firstDue;
					keys.put(rows.getString(1), new KeyCounts(rows.getString(1), rows.getLong(2), rows.getLong(3),
							rows.getLong(4), firstDueId));
				}
			}
		}
		if (everything || flow.runningPerKey() > 0) {
			readByStatus(connection, type, "running", keys);
		}
		if (everything || (flow.ordered() && flow.blockOnFailure())) {
			readByStatus(connection, type, "failed", keys);
		}
		if (flow.keyRateLimit() != null) {
			try (SqlStatement select = this.startsByKey.prepare(connection)) {
				select.bind("type", type).bind("since", FlowClaims.windowStart(flow.keyRateLimit(), now));
				try (ResultSet rows = select.executeQuery()) {
					while (rows.next()) {
						KeyCounts key = keys.get(rows.getString(1));
						if (key != null) {
							key.starts = rows.getLong(2);
						}
					}
				}
			}
		}
		return keys;
	}

	private void readByStatus(Connection connection, String type, String status, Map<String, KeyCounts> keys)
			throws SQLException {
		try (SqlStatement select = this.statusByKey.prepare(connection)) {
			try (ResultSet rows = select.bind("type", type).bind("status", status).executeQuery()) {
				while (rows.next()) {
					KeyCounts key = keys.computeIfAbsent(rows.getString(1),
							(name) -> new KeyCounts(name, 0, 0, 0, null));
					if (status.equals("running")) {
						key.running = rows.getLong(2);
					}
					else {
						key.failed = rows.getLong(2);
						key.firstFailedId = rows.getLong(3);
					}
				}
			}
		}
	}

	private long starts(Connection connection, String type, String key, Instant since) throws SQLException {
		try (SqlStatement select = this.starts.prepare(connection)) {
			return select.bind("type", type).bind("key", key).bind("since", since).queryLong();
		}
	}

	private static long count(Sql sql, Connection connection, String type, Instant now) throws SQLException {
		try (SqlStatement select = sql.prepare(connection)) {
			return select.bind("type", type).bind("now", now).queryLong();
		}
	}

	/**
	 * One key's jobs as the counts see them.
	 */
	static final class KeyCounts {

		private final String key;

		private final long pending;

		private final long due;

		private final long firstPendingId;

		private final Long firstDueId;

		private long running;

		private long failed;

		private Long firstFailedId;

		private long starts;

		/**
		 * @param firstPendingId the key's lowest pending id (0 without pending jobs)
		 * @param firstDueId its lowest due id, or {@code null}
		 */
		KeyCounts(String key, long pending, long due, long firstPendingId, Long firstDueId) {
			this.key = key;
			this.pending = pending;
			this.due = due;
			this.firstPendingId = firstPendingId;
			this.firstDueId = firstDueId;
		}

		/** The same key with running and failed jobs and starts in its window. */
		KeyCounts with(long running, long failed, Long firstFailedId, long starts) {
			this.running = running;
			this.failed = failed;
			this.firstFailedId = firstFailedId;
			this.starts = starts;
			return this;
		}

		String key() {
			return this.key;
		}

		long pending() {
			return this.pending;
		}

		long due() {
			return this.due;
		}

		long running() {
			return this.running;
		}

		long failed() {
			return this.failed;
		}

		Long firstFailedId() {
			return this.firstFailedId;
		}

		long starts() {
			return this.starts;
		}

		/** Whether a failed job holds the key (ordered, blocking on failure). */
		boolean blocked(FlowControl flow) {
			return flow.ordered() && flow.blockOnFailure() && this.failed > 0;
		}

		/**
		 * How many of its due jobs its concurrency and order let start now: ordered, its
		 * first job in enqueue order if that is due and nothing of the key runs; with a
		 * key concurrency, what its running jobs leave of it.
		 */
		long allowedByKeyLimits(FlowControl flow) {
			if (flow.ordered()) {
				boolean firstIsDue = this.firstDueId != null && this.firstDueId == this.firstPendingId;
				return (this.running == 0 && firstIsDue) ? 1 : 0;
			}
			if (flow.keyConcurrency() > 0) {
				return Math.max(0, Math.min(this.due, flow.keyConcurrency() - this.running));
			}
			return this.due;
		}

	}

}
