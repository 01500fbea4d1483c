package dev.jobqueue.core;

import java.nio.file.Path;

import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.TestDatabase;

/** {@link FinishedCountsTests} on a SQLite file. */
class SqliteFinishedCountsTests extends FinishedCountsTests {

	@Override
	protected StoreFixture createFixture(Path directory, String tablePrefix) {
		return TestDatabase.createIn(directory, tablePrefix);
	}

}
