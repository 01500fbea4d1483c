package dev.jobqueue.core;

import java.nio.file.Path;

import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.TestDatabase;

/** {@link FlowControlTests} on a SQLite file. */
class SqliteFlowControlTests extends FlowControlTests {

	@Override
	protected StoreFixture createFixture(Path directory, String tablePrefix) {
		return TestDatabase.createIn(directory, tablePrefix);
	}

}
