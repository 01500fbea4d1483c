package dev.jobqueue.postgresql.reliability;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

import org.junit.jupiter.api.Tag;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.jdbc.spring.SpringStepTransactions;
import dev.jobqueue.jdbc.spring.SpringTransactions;
import dev.jobqueue.postgresql.testing.PostgresServer;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.torture.TortureHarness;
import dev.jobqueue.testing.torture.TortureStore;

/**
 * The process torture test ({@link TortureHarness}) on PostgreSQL: worker JVMs on a
 * database of their own, woken by {@code LISTEN/NOTIFY}, killed (and, in a second run,
 * stopped by SIGTERM) at random while jobs go in. The long run:
 * {@code ./mvnw -B -pl jobqueue-postgresql -am -Ptorture-postgresql test}.
 */
@PostgresTest
@Tag("long")
public class PostgresTortureTests extends TortureHarness {

	@Override
	protected TortureStore store() {
		return new PostgresDatabaseOfItsOwn();
	}

	/** The torture database: a database of its own on the test server, by name. */
	public static final class PostgresDatabaseOfItsOwn implements TortureStore {

		@Override
		public StoreFixture create(Path directory) {
			return PostgresTestDatabase.create();
		}

		@Override
		public String location(StoreFixture db) {
			return ((PostgresTestDatabase) db).name();
		}

		@Override
		public StoreFixture open(String location, int poolSize) {
			return PostgresTestDatabase.open(location, poolSize);
		}

		@Override
		public void connect(StoreFixture db, JobWorker worker) {
			((PostgresTestDatabase) db).storage().signals(worker);
		}

		@Override
		public SharedDatabase openShared(String location, int poolSize) {
			PostgresTestDatabase db = PostgresTestDatabase.openShared(location, poolSize, new SpringTransactions());
			JdbcTemplate application = new JdbcTemplate(db.dataSource());
			return new SharedDatabase(db, new SpringStepTransactions(new DataSourceTransactionManager(db.dataSource())),
					application::update);
		}

		@Override
		public Connection connect(StoreFixture db) throws SQLException {
			return DriverManager.getConnection(PostgresServer.urlOf(((PostgresTestDatabase) db).name()));
		}

	}

}
