package dev.jobqueue.reliability;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

import org.sqlite.SQLiteConfig;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import dev.jobqueue.jdbc.spring.SpringStepTransactions;
import dev.jobqueue.jdbc.spring.SpringTransactions;
import dev.jobqueue.testing.LongTest;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.torture.TortureHarness;
import dev.jobqueue.testing.torture.TortureStore;

/**
 * The process torture test ({@link TortureHarness}) on one SQLite file: worker JVMs
 * killed (and, in a second run, stopped by SIGTERM) at random while jobs go in. The long
 * run: {@code ./mvnw -B -pl jobqueue-sqlite -am -Ptorture test}, or the harness's
 * {@code torture.*} system properties.
 */
@LongTest
public class TortureTests extends TortureHarness {

	@Override
	protected TortureStore store() {
		return new SqliteFile();
	}

	/** The torture database: one SQLite file, opened by path from every worker JVM. */
	public static final class SqliteFile implements TortureStore {

		@Override
		public StoreFixture create(Path directory) {
			return TestDatabase.create(directory.resolve("torture.db"), "");
		}

		@Override
		public String location(StoreFixture db) {
			return ((TestDatabase) db).file().toString();
		}

		@Override
		public StoreFixture open(String location, int poolSize) {
			return TestDatabase.create(Path.of(location), "");
		}

		@Override
		public SharedDatabase openShared(String location, int poolSize) {
			TestDatabase db = TestDatabase.openShared(Path.of(location), new SpringTransactions(), poolSize);
			JdbcTemplate application = new JdbcTemplate(db.dataSource());
			return new SharedDatabase(db, new SpringStepTransactions(new DataSourceTransactionManager(db.dataSource())),
					application::update);
		}

		@Override
		public Connection connect(StoreFixture db) throws SQLException {
			SQLiteConfig config = new SQLiteConfig();
			config.setBusyTimeout(30_000);
			return DriverManager.getConnection("jdbc:sqlite:" + ((TestDatabase) db).file(), config.toProperties());
		}

	}

}
