package dev.jobqueue.mysql.reliability;

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
import dev.jobqueue.mysql.testing.MariaDbServer;
import dev.jobqueue.mysql.testing.MariaDbTest;
import dev.jobqueue.mysql.testing.MysqlTestDatabase;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.torture.TortureHarness;
import dev.jobqueue.testing.torture.TortureStore;

/**
 * The process torture test ({@link TortureHarness}) on MariaDB: worker JVMs on a database
 * of their own, polling for jobs, killed (and, in a second run, stopped by SIGTERM) at
 * random while jobs go in. CI runs it with {@code -Preliability}.
 */
@MariaDbTest
@Tag("long")
public class MysqlTortureTests extends TortureHarness {

	@Override
	protected TortureStore store() {
		return new MysqlDatabaseOfItsOwn();
	}

	/** The torture database: a database of its own on the test server, by name. */
	public static final class MysqlDatabaseOfItsOwn implements TortureStore {

		@Override
		public StoreFixture create(Path directory) {
			return MysqlTestDatabase.create();
		}

		@Override
		public String location(StoreFixture db) {
			return ((MysqlTestDatabase) db).name();
		}

		@Override
		public StoreFixture open(String location, int poolSize) {
			return MysqlTestDatabase.open(location, poolSize);
		}

		/** Jobs that turn pending in a worker's own process wake it at once. */
		@Override
		public void connect(StoreFixture db, JobWorker worker) {
			((MysqlTestDatabase) db).storage().signals(worker);
		}

		@Override
		public SharedDatabase openShared(String location, int poolSize) {
			MysqlTestDatabase db = MysqlTestDatabase.openShared(location, poolSize, new SpringTransactions());
			JdbcTemplate application = new JdbcTemplate(db.dataSource());
			return new SharedDatabase(db, new SpringStepTransactions(new DataSourceTransactionManager(db.dataSource())),
					application::update);
		}

		@Override
		public Connection connect(StoreFixture db) throws SQLException {
			return DriverManager.getConnection(MariaDbServer.urlOf(((MysqlTestDatabase) db).name()));
		}

	}

}
