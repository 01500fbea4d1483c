package dev.jobqueue.core;

import java.nio.file.Path;

import org.junit.jupiter.api.extension.ExtendWith;

import dev.jobqueue.postgresql.testing.PostgresServer;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;
import dev.jobqueue.postgresql.reliability.PostgresTortureTests;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.torture.TortureStore;

/** {@link StepsTests} on a PostgreSQL database of its own. */
@ExtendWith(PostgresServer.class)
class PostgresStepsTests extends StepsTests {

	@Override
	protected StoreFixture createFixture(Path directory, String tablePrefix) {
		return PostgresTestDatabase.create(null, tablePrefix, 8);
	}

	@Override
	protected TortureStore.SharedDatabase shareWithApplication(StoreFixture db) {
		return new PostgresTortureTests.PostgresDatabaseOfItsOwn().openShared(((PostgresTestDatabase) db).name(), 4);
	}

}
