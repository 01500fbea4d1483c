package dev.jobqueue.core;

import java.nio.file.Path;

import org.junit.jupiter.api.extension.ExtendWith;

import dev.jobqueue.postgresql.testing.PostgresServer;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;
import dev.jobqueue.testing.StoreFixture;

/** {@link FlowControlTests} on a PostgreSQL database of its own. */
@ExtendWith(PostgresServer.class)
class PostgresFlowControlTests extends FlowControlTests {

	@Override
	protected StoreFixture createFixture(Path directory, String tablePrefix) {
		return PostgresTestDatabase.create(null, tablePrefix, 8);
	}

}
