package dev.jobqueue.actuate;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.sql.DataSource;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.WorkerInfo;
import dev.jobqueue.jdbc.FinishedCounts;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteJobStore;

/**
 * Jobs in every state, at known times before {@code now}, with the numbers the
 * observability tests assert.
 *
 * <pre>
 * pending    p1 email     due now-120s (oldest claimable)        attempts 0
 *            p2 email     due now-30s                           attempts 1  TIMEOUT:HANDLER (retrying)
 *            p3 thumbnail due now+600s (in backoff), created first attempts 2  DEPENDENCY:S3 (retrying)
 *            p4 report    due now-60s (its only worker is dead) attempts 0
 *            p5 orphan    due now-10s (no worker handles it)    attempts 0
 * running    r1 email     w-alive claimed now-600s  heartbeat now-20s    attempts 1
 *            r2 thumbnail w-alive claimed now-3000s heartbeat now-2000s  attempts 3  DEPENDENCY:S3 (stuck)
 *            r3 email     w-alive claimed now-100s  heartbeat now-100s   attempts 1
 * succeeded  s1 s2 email, s3 thumbnail, and "timeline": an invoice job that failed once, then succeeded
 * failed     f1 f2 email TIMEOUT:HANDLER, f3 thumbnail DEPENDENCY:S3, f4 thumbnail INVALID_INPUT:PAYLOAD
 *            (attempts 1), f5 report TIMEOUT:HANDLER; all others attempts 3
 * cancelled  c1 email
 * workers    w-alive (email, thumbnail) heartbeat now-10s; w-dead (report) heartbeat now-10min
 * keys       p1 and f2 customer-7, s1 customer-8; the others none
 * </pre>
 */
final class QueueSeed {

	private QueueSeed() {
	}

	static Map<String, Long> seed(SqliteJobStore store, DataSource dataSource, Instant now) throws SQLException {
		Map<String, Long> ids = new LinkedHashMap<>();
		ids.put("timeline", timelineJob(store, now));
		try (Connection connection = dataSource.getConnection()) {
			long t = now.toEpochMilli();
			long s = 1000;
			ids.put("p3", insert(connection, "thumbnail", "pending", 2, t + 600 * s, t - 3600 * s, t - 700 * s, null,
					null, "DEPENDENCY:S3", null));
			ids.put("p1",
					insert(connection, "email", "pending", 0, t - 120 * s, t - 300 * s, null, null, null, null, null));
			ids.put("p2", insert(connection, "email", "pending", 1, t - 30 * s, t - 200 * s, t - 100 * s, null, null,
					"TIMEOUT:HANDLER", null));
			ids.put("p4",
					insert(connection, "report", "pending", 0, t - 60 * s, t - 60 * s, null, null, null, null, null));
			ids.put("p5",
					insert(connection, "orphan", "pending", 0, t - 10 * s, t - 10 * s, null, null, null, null, null));
			ids.put("r1", insert(connection, "email", "running", 1, t - 700 * s, t - 700 * s, t - 600 * s, "w-alive",
					t - 20 * s, null, null));
			ids.put("r2", insert(connection, "thumbnail", "running", 3, t - 3100 * s, t - 5000 * s, t - 3000 * s,
					"w-alive", t - 2000 * s, "DEPENDENCY:S3", null));
			ids.put("r3", insert(connection, "email", "running", 1, t - 100 * s, t - 100 * s, t - 100 * s, "w-alive",
					t - 100 * s, null, null));
			ids.put("s1", insert(connection, "email", "succeeded", 1, t - 900 * s, t - 900 * s, t - 890 * s, "w-alive",
					t - 890 * s, null, t - 880 * s));
			ids.put("s2", insert(connection, "email", "succeeded", 1, t - 800 * s, t - 800 * s, t - 790 * s, "w-alive",
					t - 790 * s, null, t - 780 * s));
			ids.put("s3", insert(connection, "thumbnail", "succeeded", 1, t - 800 * s, t - 800 * s, t - 790 * s,
					"w-alive", t - 790 * s, null, t - 780 * s));
			ids.put("f1", insert(connection, "email", "failed", 3, t - 900 * s, t - 1900 * s, t - 900 * s, "w-alive",
					t - 900 * s, "TIMEOUT:HANDLER", t - 890 * s));
			ids.put("f2", insert(connection, "email", "failed", 3, t - 900 * s, t - 1900 * s, t - 900 * s, "w-alive",
					t - 900 * s, "TIMEOUT:HANDLER", t - 890 * s));
			ids.put("f3", insert(connection, "thumbnail", "failed", 3, t - 900 * s, t - 1900 * s, t - 900 * s,
					"w-alive", t - 900 * s, "DEPENDENCY:S3", t - 890 * s));
			ids.put("f4", insert(connection, "thumbnail", "failed", 1, t - 900 * s, t - 1900 * s, t - 900 * s,
					"w-alive", t - 900 * s, "INVALID_INPUT:PAYLOAD", t - 890 * s));
			ids.put("f5", insert(connection, "report", "failed", 3, t - 900 * s, t - 1900 * s, t - 900 * s, "w-dead",
					t - 900 * s, "TIMEOUT:HANDLER", t - 890 * s));
			ids.put("c1", insert(connection, "email", "cancelled", 0, t - 900 * s, t - 900 * s, null, null, null, null,
					t - 850 * s));
			try (PreparedStatement key = connection.prepareStatement("UPDATE jobs SET job_key = ? WHERE id = ?")) {
				for (Map.Entry<String, String> keyed : Map
					.of("p1", "customer-7", "f2", "customer-7", "s1", "customer-8")
					.entrySet()) {
					key.setString(1, keyed.getValue());
					key.setLong(2, ids.get(keyed.getKey()));
					key.executeUpdate();
				}
			}
			// Jobs put in with SQL are counted as the migration that keeps the counts
			// of finished jobs counts those it finds.
			try (Statement statement = connection.createStatement()) {
				for (String sql : FinishedCounts.RECOUNT) {
					statement.execute(SqliteDialect.tables("").expand(sql));
				}
			}
		}
		store.registerWorker(new WorkerInfo("w-dead", "host-b", 2, Set.of("report"), 2),
				now.minus(Duration.ofMinutes(10)));
		store.registerWorker(new WorkerInfo("w-alive", "host-a", 1, Set.of("email", "thumbnail"), 4),
				now.minusSeconds(10));
		return ids;
	}

	/**
	 * An invoice job run through the store: claimed, failed and retried, claimed again,
	 * succeeded.
	 */
	private static long timelineJob(SqliteJobStore store, Instant now) {
		Instant start = now.minusSeconds(500);
		long id = store.enqueue(List
			.of(new NewJob("invoice", "{\"invoice\":\"INV-2026-0001\",\"lines\":[1,2,3]}", 0, start, 3, null, null)),
				start, () -> {
				})
			.get(0);
		ClaimedJob first = claim(store, start.plusSeconds(10));
		store.complete(
				List.of(Completion.retry(first, "DEPENDENCY:PDF", "renderer answered 503", start.plusSeconds(30))),
				"w-alive", start.plusSeconds(20));
		ClaimedJob second = claim(store, start.plusSeconds(40));
		store.complete(List.of(Completion.succeeded(second, "\"sent\"")), "w-alive", start.plusSeconds(50));
		return id;
	}

	private static ClaimedJob claim(SqliteJobStore store, Instant at) {
		ClaimRequest request = new ClaimRequest("w-alive", 1, Set.of(), Map.of("invoice", 1), Set.of(),
				at.plusSeconds(60));
		return store.claim(request, at).get(0);
	}

	private static long insert(Connection connection, String type, String status, int attempts, long runAt,
			long createdAt, Long startedAt, String workerId, Long heartbeatAt, String errorCode, Long finishedAt)
			throws SQLException {
		try (PreparedStatement insert = connection.prepareStatement("""
				INSERT INTO jobs (type, status, payload, attempts, max_attempts, runs, run_at, created_at, started_at,
				                  worker_id, heartbeat_at, lease_until, error_code, error_detail, finished_at)
				VALUES (?, ?, '{}', ?, 3, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				RETURNING id
				""")) {
			insert.setString(1, type);
			insert.setString(2, status);
			insert.setInt(3, attempts);
			insert.setInt(4, attempts);
			insert.setLong(5, runAt);
			insert.setLong(6, createdAt);
			insert.setObject(7, startedAt);
			insert.setString(8, workerId);
			insert.setObject(9, heartbeatAt);
			insert.setObject(10, "running".equals(status) ? heartbeatAt + 60_000 : null);
			insert.setString(11, errorCode);
			insert.setString(12, (errorCode != null) ? "seeded failure" : null);
			insert.setObject(13, finishedAt);
			try (ResultSet rows = insert.executeQuery()) {
				rows.next();
				return rows.getLong(1);
			}
		}
	}

}
