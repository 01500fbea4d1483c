package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.mysql.testing.MariaDbServer;
import dev.jobqueue.mysql.testing.MariaDbTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The schema on MySQL and MariaDB: verified without a change for operators who migrate it
 * ({@code initialize-schema=never}), and refused at start-up, with what to do, on a
 * server that cannot run the queue right: too old, an isolation level the queue's reads
 * are wrong or slow at, tables that are not InnoDB, a user without rights, a server that
 * is down.
 */
@MariaDbTest
class MysqlSchemaTests {

	private static final Tables TABLES = MysqlDialect.tables("jq_");

	@RegisterExtension
	final MigrationDatabase db = new MigrationDatabase(TABLES);

	@Test
	void anEmptyDatabaseIsRefusedWithHowToMigrateAndLeftUntouched() {
		assertThatExceptionOfType(JobQueueException.class).isThrownBy(this.db.storage()::verifySchema)
			.withMessageContaining("initialize-schema=never")
			.withMessageContaining("the first being version 1 ")
			.withMessageContaining(MysqlSchema.MIGRATION_LOCATION)
			.withMessageContaining("placeholder prefix = 'jq_'");
		assertThat(this.db.count("SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE()"))
			.isZero();
	}

	@Test
	void aSchemaTheOperatorMigratedPasses() {
		this.db.migrateTo(null);
		assertThatNoException().isThrownBy(this.db.storage()::verifySchema);
	}

	@Test
	void aSchemaNewerThanThisVersionIsRefusedByVerificationAndByMigration() {
		this.db.migrateTo(null);
		this.db.execute(
				"INSERT INTO jq_jobqueue_schema_history (installed_rank, version, description, type, script, checksum, "
						+ "installed_by, installed_on, execution_time, success) SELECT max(installed_rank) + 1, '99', "
						+ "'from the future', 'SQL', 'V99__from_the_future.sql', 0, 'test', now(), 0, 1 "
						+ "FROM jq_jobqueue_schema_history");
		MysqlStorage storage = this.db.storage();
		assertThatExceptionOfType(JobQueueException.class).isThrownBy(storage::verifySchema)
			.withMessageContaining("has schema version 99, written by a newer version of jobqueue")
			.withMessageContaining("Refusing to start");
		assertThatExceptionOfType(JobQueueException.class).isThrownBy(storage::initializeSchema)
			.withMessageContaining("has schema version 99");
	}

	@Test
	void tablesThatAreNotInnoDbAreRefused() {
		this.db.migrateTo(null);
		this.db.execute("ALTER TABLE jq_job_paused_types ENGINE = MyISAM");
		assertThatExceptionOfType(JobQueueException.class).isThrownBy(this.db.storage()::initializeSchema)
			.withMessageContaining("must be InnoDB")
			.withMessageContaining("jq_job_paused_types (MyISAM)")
			.withMessageContaining("ALTER TABLE ... ENGINE = InnoDB");
	}

	@Test
	void serializableAndReadUncommittedAreRefusedAndRepeatableReadIsTaken() {
		for (String level : List.of("TRANSACTION_SERIALIZABLE", "TRANSACTION_READ_UNCOMMITTED")) {
			try (HikariDataSource pool = this.db.pool(level)) {
				assertThatExceptionOfType(JobQueueException.class).isThrownBy(this.db.storage(pool)::initializeSchema)
					.withMessageContaining(level.substring("TRANSACTION_".length()).replace('_', '-'))
					.withMessageContaining("Use READ-COMMITTED or REPEATABLE-READ");
			}
		}
		try (HikariDataSource pool = this.db.pool("TRANSACTION_REPEATABLE_READ")) {
			MysqlStorage storage = this.db.storage(pool);
			storage.initializeSchema();
			Instant now = Instant.parse("2026-01-01T00:00:00Z");
			storage.jobs().enqueue(List.of(new NewJob("mail", "{}", 0, now, 3, null, null)), now, () -> {
			});
			assertThat(storage.jobs().claim(request(now), now)).extracting(ClaimedJob::type).containsExactly("mail");
		}
	}

	@Test
	void aUserWithoutRightsIsToldWhatToGrant() {
		String user = "jq_noright_" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000, 0xfffff));
		try (Connection admin = MariaDbServer.connectAdmin(); Statement statement = admin.createStatement()) {
			statement.execute("CREATE USER '" + user + "'@'%'");
			statement.execute("GRANT SELECT ON " + this.db.name() + ".* TO '" + user + "'@'%'");
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		String url = this.db.url().replaceFirst("\\?.*", "");
		try (HikariDataSource pool = MysqlDataSources.create(url, user, "", 2, Duration.ofSeconds(10))) {
			assertThatExceptionOfType(JobQueueException.class).isThrownBy(this.db.storage(pool)::initializeSchema)
				.withMessageContaining("lacks a privilege")
				.withMessageContaining("GRANT SELECT, INSERT, UPDATE, DELETE, CREATE");
		}
		finally {
			this.db.execute("DROP USER '" + user + "'@'%'");
		}
	}

	@Test
	void aServerThatIsDownIsNamed() {
		try (HikariDataSource pool = MysqlDataSources.create("jdbc:mariadb://127.0.0.1:1/queue", "root", "", 2,
				Duration.ofSeconds(2))) {
			assertThatExceptionOfType(JobQueueException.class).isThrownBy(this.db.storage(pool)::initializeSchema)
				.withMessageContaining("cannot be reached")
				.withMessageContaining("Check that the server is running");
		}
	}

	@Test
	void serversAreNamedByTheirVersion() {
		assertThat(MysqlSchema.serverName("10.11.6-MariaDB-0+deb12u1")).isEqualTo("MariaDB 10.11.6");
		assertThat(MysqlSchema.serverName("11.4.2-MariaDB")).isEqualTo("MariaDB 11.4.2");
		assertThat(MysqlSchema.serverName("8.0.36")).isEqualTo("MySQL 8.0.36");
		assertThat(MysqlSchema.serverName("8.4.0-commercial")).isEqualTo("MySQL 8.4.0");
	}

	@Test
	void serversTooOldAreRefused() {
		assertThatExceptionOfType(JobQueueException.class)
			.isThrownBy(() -> MysqlSchema.refuseVersion("10.5.22-MariaDB", "db"))
			.withMessageContaining("needs MariaDB 10.6 or newer")
			.withMessageContaining("runs 10.5.22-MariaDB");
		assertThatExceptionOfType(JobQueueException.class).isThrownBy(() -> MysqlSchema.refuseVersion("5.7.44", "db"))
			.withMessageContaining("needs MySQL 8.0 or newer");
		assertThatNoException().isThrownBy(() -> MysqlSchema.refuseVersion("10.6.0-MariaDB-log", "db"));
		assertThatNoException().isThrownBy(() -> MysqlSchema.refuseVersion("8.0.36", "db"));
		assertThatNoException().isThrownBy(() -> MysqlSchema.refuseVersion("11.4.2-MariaDB", "db"));
	}

	/**
	 * MySQL Connector/J with a {@code jdbc:mysql:} URL, on the MariaDB test server (no
	 * MySQL server is at hand): the store migrates, enqueues and claims through it.
	 */
	@Test
	void aJdbcMysqlUrlWorksThroughConnectorJ() {
		String url = this.db.url().replace("jdbc:mariadb:", "jdbc:mysql:");
		try (HikariDataSource pool = MysqlDataSources.create(url, "root", "", 2, Duration.ofSeconds(10))) {
			assertThat(pool.getDriverClassName()).isEqualTo(MysqlDataSources.MYSQL_DRIVER);
			MysqlStorage storage = this.db.storage(pool);
			storage.initializeSchema();
			Instant now = Instant.parse("2026-01-01T00:00:00Z");
			List<Long> ids = storage.jobs()
				.enqueue(List.of(new NewJob("mail", "{\"to\":\"ana\"}", 0, now, 3, null, null),
						new NewJob("mail", "{}", 0, now, 3, null, null)), now, () -> {
						});
			List<ClaimedJob> claimed = storage.jobs().claim(request(now), now);
			assertThat(claimed).extracting(ClaimedJob::id).containsExactlyElementsOf(ids);
			assertThat(claimed.get(0).payload()).isEqualTo("{\"to\":\"ana\"}");
		}
	}

	private static ClaimRequest request(Instant now) {
		return new ClaimRequest("w1", 10, Set.of("mail"), Map.of(), Set.of(), now.plusSeconds(30));
	}

}
