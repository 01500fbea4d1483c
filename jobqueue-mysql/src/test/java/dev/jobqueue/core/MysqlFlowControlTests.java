package dev.jobqueue.core;

import java.nio.file.Path;

import org.junit.jupiter.api.extension.ExtendWith;

import dev.jobqueue.mysql.testing.MariaDbServer;
import dev.jobqueue.mysql.testing.MysqlTestDatabase;
import dev.jobqueue.testing.StoreFixture;

/** {@link FlowControlTests} on a MariaDB database of its own. */
@ExtendWith(MariaDbServer.class)
class MysqlFlowControlTests extends FlowControlTests {

	@Override
	protected StoreFixture createFixture(Path directory, String tablePrefix) {
		return MysqlTestDatabase.create(tablePrefix, 8);
	}

}
