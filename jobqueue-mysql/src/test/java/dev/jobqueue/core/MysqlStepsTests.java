package dev.jobqueue.core;

import java.nio.file.Path;

import org.junit.jupiter.api.extension.ExtendWith;

import dev.jobqueue.mysql.testing.MariaDbServer;
import dev.jobqueue.mysql.testing.MysqlTestDatabase;
import dev.jobqueue.mysql.reliability.MysqlTortureTests;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.torture.TortureStore;

/** {@link StepsTests} on a MariaDB database of its own. */
@ExtendWith(MariaDbServer.class)
class MysqlStepsTests extends StepsTests {

	@Override
	protected StoreFixture createFixture(Path directory, String tablePrefix) {
		return MysqlTestDatabase.create(tablePrefix, 8);
	}

	@Override
	protected TortureStore.SharedDatabase shareWithApplication(StoreFixture db) {
		return new MysqlTortureTests.MysqlDatabaseOfItsOwn().openShared(((MysqlTestDatabase) db).name(), 4);
	}

}
