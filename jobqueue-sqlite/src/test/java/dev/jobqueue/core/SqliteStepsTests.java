package dev.jobqueue.core;

import java.nio.file.Path;

import dev.jobqueue.reliability.TortureTests;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.torture.TortureStore;
import dev.jobqueue.testing.TestDatabase;

/** {@link StepsTests} on a SQLite file. */
class SqliteStepsTests extends StepsTests {

	@Override
	protected StoreFixture createFixture(Path directory, String tablePrefix) {
		return TestDatabase.createIn(directory, tablePrefix);
	}

	@Override
	protected TortureStore.SharedDatabase shareWithApplication(StoreFixture db) {
		return new TortureTests.SqliteFile().openShared(((TestDatabase) db).file().toString(), 4);
	}

}
