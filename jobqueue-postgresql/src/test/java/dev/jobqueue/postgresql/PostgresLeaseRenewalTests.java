package dev.jobqueue.postgresql;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a lease renewal costs: it changes only columns no index holds, and the table's
 * pages keep room, so PostgreSQL makes it a HOT update, which writes no index entry (read
 * from the server's own counters).
 */
@PostgresTest
class PostgresLeaseRenewalTests {

	private static final Instant NOW = Instant.parse("2030-01-10T00:00:00Z");

	private static final int JOBS = 40;

	private static final int RENEWALS = 10;

	@Test
	void aLeaseRenewalIsAHotUpdateThatWritesNoIndexEntry() {
		try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
			Object now = db.timestamp(NOW);
			db.execute("""
					INSERT INTO jobs (type, status, payload, attempts, max_attempts, runs, run_at, created_at,
					                  started_at, heartbeat_at, lease_until, worker_id)
					SELECT 'report', 'running', '{"order":' || i || '}', 1, 3, 1, ?, ?, ?, ?, ?, 'w1'
					FROM generate_series(1, ?) i
					""", now, now, now, now, db.timestamp(NOW.plusSeconds(30)), JOBS);
			List<RunningJobRef> held = db.column("SELECT id FROM jobs ORDER BY id")
				.stream()
				.map((id) -> new RunningJobRef(((Number) id).longValue(), 1, true))
				.toList();
			renew(db, held, 1);
			// Rows written side by side in one statement fill their page (to the
			// table's fillfactor): the first renewal moves the ones that find no room
			// there. From then on each page holds room for a new version of its rows.
			long updatesBefore = counter(db, "n_tup_upd");
			long hotBefore = counter(db, "n_tup_hot_upd");
			for (int round = 2; round <= RENEWALS; round++) {
				renew(db, held, round);
			}
			long renewed = (long) JOBS * (RENEWALS - 1);
			assertThat(counter(db, "n_tup_upd") - updatesBefore).isEqualTo(renewed);
			assertThat(counter(db, "n_tup_hot_upd") - hotBefore).as("renewals made as HOT updates").isEqualTo(renewed);
			assertThat(db.column("SELECT count(*) FROM jobs WHERE lease_until = ?",
					db.timestamp(NOW.plusSeconds(10L * RENEWALS + 30))))
				.containsExactly((long) JOBS);
		}
	}

	/** One renewal of every lease, then waits until the server's counters show it. */
	private static void renew(PostgresTestDatabase db, List<RunningJobRef> held, int round) {
		long updatesBefore = counter(db, "n_tup_upd");
		Instant at = NOW.plusSeconds(10L * round);
		assertThat(db.store().renewLeases("w1", held, at, at.plusSeconds(30)).lost()).isEmpty();
		// Each connection reports its counters to the server within a second or so.
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> counter(db, "n_tup_upd") - updatesBefore == held.size());
	}

	private static long counter(PostgresTestDatabase db, String column) {
		return ((Number) db.column("SELECT " + column + " FROM pg_stat_user_tables WHERE relid = 'jobs'::regclass")
			.get(0)).longValue();
	}

}
