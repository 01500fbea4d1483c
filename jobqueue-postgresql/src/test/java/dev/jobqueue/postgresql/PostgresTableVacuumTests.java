package dev.jobqueue.postgresql;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.RetentionPolicy;
import dev.jobqueue.core.retention.RetentionReport;
import dev.jobqueue.core.retention.RetentionSettings;
import dev.jobqueue.core.retention.TableVacuums;
import dev.jobqueue.core.store.QueueInsights.SnapshotSettings;
import dev.jobqueue.core.store.RetentionStore;
import dev.jobqueue.core.store.TableMaintenance;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Where autovacuum leaves the queue's tables alone, the housekeeping run vacuums them
 * itself (by default), or says that nobody does; read from the server's own counters.
 */
@PostgresTest
class PostgresTableVacuumTests {

	private static final Instant NOW = Instant.parse("2030-01-10T00:00:00Z");

	private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final List<String> ALL_TABLES = Tables.NAMES.stream().sorted().toList();

	@Test
	void tablesWithAutovacuumTurnedOffAreFound() {
		try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
			TableMaintenance tables = db.storage().tableMaintenance().orElseThrow();
			db.execute("ALTER TABLE jobs SET (autovacuum_enabled = off)");
			db.execute("ALTER TABLE job_events SET (autovacuum_enabled = false)");
			db.execute("ALTER TABLE job_steps SET (autovacuum_enabled = true)");
			List<String> expected = serverAutovacuumOn(db) ? List.of("job_events", "jobs") : ALL_TABLES;
			assertThat(tables.tablesWithoutAutovacuum()).isEqualTo(expected);
			assertThat(storageDetails(db)).contains("autovacuumOffFor=" + expected);
		}
	}

	@Test
	void withAutovacuumOffTheCleanupRunVacuumsTheQueuesTables() {
		try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
			db.execute("ALTER TABLE jobs SET (autovacuum_enabled = off)");
			leaveDeadRows(db);
			long vacuumsBefore = vacuumCount(db);
			RetentionCleaner cleaner = cleaner(db, TableVacuums.Mode.AUTO);
			RetentionReport report = cleaner.purgeOnce();
			assertThat(report.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
			await().atMost(Duration.ofSeconds(30)).until(() -> vacuumCount(db) > vacuumsBefore);
			assertThat(deadRows(db)).as("dead rows of jobs after the vacuum").isZero();
			assertThat(cleaner.tableVacuums().orElseThrow().lastVacuum()).isEqualTo(NOW);
			assertThat(cleaner.tableVacuums().orElseThrow().warning()).isNull();
		}
	}

	@Test
	void housekeepingWithoutDeletesVacuumsToo() {
		try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
			db.execute("ALTER TABLE jobs SET (autovacuum_enabled = off)");
			leaveDeadRows(db);
			long vacuumsBefore = vacuumCount(db);
			RetentionCleaner cleaner = new RetentionCleaner(db.retention(), null,
					new TableVacuums(db.storage().tableMaintenance().orElseThrow(), TableVacuums.Mode.AUTO, CLOCK),
					RetentionSettings.of(RetentionPolicy.keepForever(), 100), CLOCK, "me", () -> true);
			cleaner.upkeep();
			await().atMost(Duration.ofSeconds(30)).until(() -> vacuumCount(db) > vacuumsBefore);
		}
	}

	@Test
	void setToNeverTheQueueVacuumsNothingAndSaysSo() {
		try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
			db.execute("ALTER TABLE jobs SET (autovacuum_enabled = off)");
			leaveDeadRows(db);
			RetentionCleaner cleaner = cleaner(db, TableVacuums.Mode.NEVER);
			cleaner.purgeOnce();
			// Another table's vacuum shows the server's counters have caught up.
			db.execute("VACUUM job_events");
			await().atMost(Duration.ofSeconds(30))
				.until(() -> !db
					.column("SELECT last_vacuum FROM pg_stat_user_tables WHERE relid = " + "'job_events'::regclass")
					.contains((Object) null));
			assertThat(vacuumCount(db)).isZero();
			assertThat(deadRows(db)).isPositive();
			TableVacuums vacuums = cleaner.tableVacuums().orElseThrow();
			vacuums.check();
			assertThat(vacuums.warning()).contains("jobs").contains("jobqueue.retention.vacuum=auto");
		}
	}

	@Test
	void setToAlwaysTheQueueVacuumsWhateverAutovacuumDoes() {
		try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
			for (String table : ALL_TABLES) {
				db.execute("ALTER TABLE " + table + " SET (autovacuum_enabled = on)");
			}
			long vacuumsBefore = vacuumCount(db);
			cleaner(db, TableVacuums.Mode.ALWAYS).purgeOnce();
			await().atMost(Duration.ofSeconds(30)).until(() -> vacuumCount(db) > vacuumsBefore);
		}
	}

	@Test
	void aVacuumThatFailsLeavesTheDeletesOfTheRunCompletedAndTheLeaseReleased() {
		try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
			insertExpired(db, 30);
			CountingTables tables = new CountingTables(false, true);
			RetentionCleaner cleaner = cleaner(db.retention(), tables, TableVacuums.Mode.ALWAYS, LEASE);
			RetentionReport report = cleaner.purgeOnce();
			assertThat(tables.vacuums).isEqualTo(1);
			assertThat(report.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
			assertThat(report.totalDeleted()).isEqualTo(30);
			assertThat(db.retention().acquireLease(RetentionCleaner.LEASE_TASK, "other", NOW, NOW.plusSeconds(30)))
				.as("lease free after the failed vacuum")
				.isTrue();
		}
	}

	@Test
	void aCheckThatFailsDoesNotFailTheRunsDeletes() {
		try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
			insertExpired(db, 30);
			CountingTables tables = new CountingTables(true, false);
			RetentionCleaner cleaner = cleaner(db.retention(), tables, TableVacuums.Mode.AUTO, LEASE);
			RetentionReport report = cleaner.purgeOnce();
			assertThat(report.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
			assertThat(report.totalDeleted()).isEqualTo(30);
			cleaner.upkeep();
			assertThat(tables.vacuums).isZero();
		}
	}

	@Test
	void aRunThatLostTheLeaseDoesNotVacuum() {
		try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
			insertExpired(db, 30);
			PostgresRetentionStore real = db.retention();
			AtomicInteger acquired = new AtomicInteger();
			// The first take of the lease works; its renewal finds another owner.
			RetentionStore store = (RetentionStore) Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { RetentionStore.class }, (proxy, method, args) -> {
						if (method.getName().equals("acquireLease") && acquired.incrementAndGet() > 1) {
							return false;
						}
						try {
							return method.invoke(real, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getCause();
						}
					});
			CountingTables tables = new CountingTables(false, false);
			RetentionCleaner cleaner = cleaner(store, tables, TableVacuums.Mode.ALWAYS, Duration.ofMillis(4));
			RetentionReport report = cleaner.purgeOnce();
			assertThat(report.outcome()).isEqualTo(RetentionReport.Outcome.LEASE_LOST);
			assertThat(tables.vacuums).isZero();
		}
	}

	@Test
	void whileAnotherProcessHoldsTheLeaseNeitherRunVacuums() {
		try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
			assertThat(db.retention().acquireLease(RetentionCleaner.LEASE_TASK, "other", NOW, NOW.plusSeconds(60)))
				.isTrue();
			CountingTables tables = new CountingTables(false, false);
			RetentionCleaner cleaner = cleaner(db.retention(), tables, TableVacuums.Mode.ALWAYS, LEASE);
			assertThat(cleaner.purgeOnce().outcome()).isEqualTo(RetentionReport.Outcome.SKIPPED);
			cleaner.upkeep();
			assertThat(tables.vacuums).isZero();
		}
	}

	private static RetentionCleaner cleaner(RetentionStore store, TableMaintenance tables, TableVacuums.Mode mode,
			Duration lease) {
		return new RetentionCleaner(store, null, new TableVacuums(tables, mode, CLOCK),
				RetentionSettings
					.of(RetentionPolicy.of(Duration.ofDays(1), Duration.ofDays(1), Duration.ofDays(1), Map.of()), 10)
					.withLease(lease),
				CLOCK, "me", () -> true);
	}

	/** {@code count} succeeded jobs that finished two days ago. */
	private static void insertExpired(PostgresTestDatabase db, int count) {
		Object finished = db.timestamp(NOW.minus(Duration.ofDays(2)));
		db.execute("""
				INSERT INTO jobs (type, status, payload, attempts, max_attempts, runs, run_at, created_at, started_at,
					finished_at)
				SELECT 'report', 'succeeded', '{}', 1, 3, 1, ?, ?, ?, ? FROM generate_series(1, ?)
				""", finished, finished, finished, finished, count);
	}

	/**
	 * Maintenance that says autovacuum skips jobs and counts vacuums without running
	 * them; its check or its vacuum fails if asked.
	 */
	private static final class CountingTables implements TableMaintenance {

		private final boolean checkFails;

		private final boolean vacuumFails;

		int vacuums;

		CountingTables(boolean checkFails, boolean vacuumFails) {
			this.checkFails = checkFails;
			this.vacuumFails = vacuumFails;
		}

		@Override
		public List<String> tablesWithoutAutovacuum() {
			if (this.checkFails) {
				throw new IllegalStateException("server out of reach");
			}
			return List.of("jobs");
		}

		@Override
		public void vacuum() {
			this.vacuums++;
			if (this.vacuumFails) {
				throw new IllegalStateException("canceling statement due to statement timeout");
			}
		}

	}

	private static RetentionCleaner cleaner(PostgresTestDatabase db, TableVacuums.Mode mode) {
		return new RetentionCleaner(db.retention(), null,
				new TableVacuums(db.storage().tableMaintenance().orElseThrow(), mode, CLOCK),
				RetentionSettings
					.of(RetentionPolicy.of(Duration.ofDays(1), Duration.ofDays(1), Duration.ofDays(1), Map.of()), 100),
				CLOCK, "me", () -> true);
	}

	/** Jobs claimed and finished leave the versions of their rows before each change. */
	private static void leaveDeadRows(PostgresTestDatabase db) {
		Object now = db.timestamp(NOW);
		db.execute("""
				INSERT INTO jobs (type, status, payload, attempts, max_attempts, runs, run_at, created_at)
				SELECT 'report', 'pending', '{}', 0, 3, 0, ?, ? FROM generate_series(1, 200)
				""", now, now);
		db.execute("UPDATE jobs SET status = 'running', attempts = 1, runs = 1, started_at = ?, worker_id = 'w1', "
				+ "lease_until = ?", now, db.timestamp(NOW.plusSeconds(30)));
		db.execute("UPDATE jobs SET status = 'succeeded', finished_at = ?, lease_until = NULL, worker_id = NULL", now);
		await().atMost(Duration.ofSeconds(30)).until(() -> deadRows(db) > 0);
	}

	private static boolean serverAutovacuumOn(PostgresTestDatabase db) {
		return "on".equals(db.column("SELECT current_setting('autovacuum')").get(0))
				&& "on".equals(db.column("SELECT current_setting('track_counts')").get(0));
	}

	private static String storageDetails(PostgresTestDatabase db) {
		return String.valueOf(db.insights()
			.snapshot(NOW, new SnapshotSettings(Duration.ofMinutes(15), 2, Duration.ofMinutes(3), 2))
			.storage()
			.details());
	}

	private static long vacuumCount(PostgresTestDatabase db) {
		return ((Number) db.column("SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = 'jobs'::regclass")
			.get(0)).longValue();
	}

	private static long deadRows(PostgresTestDatabase db) {
		return ((Number) db.column("SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = 'jobs'::regclass").get(0))
			.longValue();
	}

}
