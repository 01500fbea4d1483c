package dev.jobqueue.core.schedule;

import java.nio.file.Path;

import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.TestDatabase;

/** {@link JobSchedulerTests} on a SQLite file. */
class SqliteJobSchedulerTests extends JobSchedulerTests {

	@Override
	protected StoreFixture createFixture(Path directory, String tablePrefix) {
		return TestDatabase.createIn(directory, tablePrefix);
	}

}
