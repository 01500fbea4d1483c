package dev.jobqueue.sqlite;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobRequest;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.testing.QueueFileTests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Statement reuse on the queue's connections and checkpoints off the committing threads.
 */
class HotPathTests extends QueueFileTests {

	@TempDir
	Path other;

	@Test
	void theQueuesOwnConnectionsLeaveCheckpointsToTheCheckpointerThread() throws Exception {
		try (Connection connection = this.db.dataSource().getConnection();
				Statement statement = connection.createStatement()) {
			assertThat(Pragmas.number(statement, "wal_autocheckpoint")).isZero();
		}
		for (int i = 0; i < 3 * WalCheckpointer.COMMITS_PER_CHECKPOINT; i++) {
			this.harness.queue.enqueue(JobRequest.of("thumbnail", i));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> this.db.database().backgroundCheckpoints() >= 2);
		// Every page reached the database file: a reader of the file alone sees every
		// job.
		await().atMost(Duration.ofSeconds(10)).until(() -> walPagesNotCheckpointed() == 0);
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isEqualTo(3L * WalCheckpointer.COMMITS_PER_CHECKPOINT);
	}

	@Test
	void theWriteAheadLogStaysBoundedUnderManyCommits() throws Exception {
		for (int i = 0; i < 3_000; i++) {
			this.harness.queue.enqueue(JobRequest.of("thumbnail", i));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> walPagesNotCheckpointed() == 0);
		// A log that never starts over holds about 15 pages per enqueue: 45,000 pages
		// here, 64 MB once journal_size_limit trims it.
		long walBytes = Files.size(Pragmas.walOf(this.db.file()));
		assertThat(walBytes).isLessThan(2 * WalCheckpointer.RESTART_PAGES * 4096);
	}

	@Test
	void aDatabaseWhoseConnectionsCheckpointThemselvesGetsNoCheckpointerThread() throws Exception {
		try (HikariDataSource pool = new HikariDataSource()) {
			pool.setJdbcUrl("jdbc:sqlite:" + this.other.resolve("app.db"));
			pool.setDataSourceProperties(
					SqliteDataSources.connectionConfig(Duration.ofSeconds(5), "NORMAL").toProperties());
			new SqliteSchema(pool, SqliteDialect.tables("")).initialize();
			SqliteDatabase database = new SqliteDatabase(pool, "app.db", Duration.ofSeconds(5));
			SqliteJobStore store = new SqliteJobStore(database, SqliteDialect.tables(""));
			for (int i = 0; i < 2 * WalCheckpointer.COMMITS_PER_CHECKPOINT; i++) {
				store.enqueue(java.util.List
					.of(new dev.jobqueue.core.store.NewJob("thumbnail", "{}", 0, this.clock.instant(), 3, null, null)),
						this.clock.instant(), () -> {
						});
			}
			assertThat(database.backgroundCheckpoints()).isZero();
			// Nor do its connections keep statements: the application may VACUUM on them.
			Sql sql = SqliteDialect.tables("").sql("SELECT count(*) FROM jobs WHERE type = :type");
			try (Connection connection = pool.getConnection()) {
				PreparedStatement first;
				try (SqlStatement statement = sql.prepare(connection)) {
					first = statementOf(statement);
					assertThat(statement.bind("type", "thumbnail").queryLong())
						.isEqualTo(2L * WalCheckpointer.COMMITS_PER_CHECKPOINT);
				}
				assertThat(first.isClosed()).isTrue();
				try (Statement statement = connection.createStatement()) {
					statement.execute("VACUUM");
				}
			}
		}
	}

	@Test
	void aStatementIsPreparedOncePerConnectionAndReusedAcrossTransactions() throws Exception {
		Sql sql = SqliteDialect.tables("").sql("SELECT count(*) FROM jobs WHERE type = :type");
		try (Connection connection = this.db.dataSource().getConnection()) {
			PreparedStatement first;
			try (SqlStatement statement = sql.prepare(connection)) {
				first = statementOf(statement);
				assertThat(statement.bind("type", "a").queryLong()).isZero();
				// The same statement twice at once: the second is a statement of its own.
				try (SqlStatement nested = sql.prepare(connection)) {
					assertThat(statementOf(nested)).isNotSameAs(first);
					assertThat(nested.bind("type", "a").queryLong()).isZero();
				}
			}
			try (Statement tx = connection.createStatement()) {
				tx.execute("INSERT INTO jobs (type, status, priority, payload, max_attempts, run_at, created_at) "
						+ "VALUES ('a', 'pending', 0, '{}', 3, 0, 0)");
			}
			try (SqlStatement statement = sql.prepare(connection)) {
				assertThat(statementOf(statement)).isSameAs(first);
				assertThat(statement.bind("type", "a").queryLong()).isEqualTo(1);
			}
			assertThat(first.isClosed()).isFalse();
		}
	}

	@Test
	void aCachedStatementLeftWithOpenRowsHoldsNoSnapshotOnceClosed() throws Exception {
		for (int i = 0; i < 5; i++) {
			this.harness.queue.enqueue(JobRequest.of("a", i));
		}
		Sql sql = SqliteDialect.tables("").sql("SELECT id FROM jobs WHERE type = :type");
		try (Connection connection = this.db.dataSource().getConnection()) {
			try (SqlStatement statement = sql.prepare(connection)) {
				ResultSet rows = statement.bind("type", "a").executeQuery();
				assertThat(rows.next()).isTrue();
				// rows left open on purpose
			}
			this.harness.queue.enqueue(JobRequest.of("a", 99));
			try (Statement statement = connection.createStatement();
					ResultSet rows = statement.executeQuery("PRAGMA wal_checkpoint(TRUNCATE)")) {
				rows.next();
				assertThat(rows.getInt(1)).as("checkpoint busy").isZero();
			}
		}
	}

	private static PreparedStatement statementOf(SqlStatement statement) throws Exception {
		var field = SqlStatement.class.getDeclaredField("statement");
		field.setAccessible(true);
		return (PreparedStatement) field.get(statement);
	}

	private long walPagesNotCheckpointed() throws Exception {
		try (Connection connection = this.db.dataSource().getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
			rows.next();
			return rows.getLong(2) - rows.getLong(3);
		}
	}

}
