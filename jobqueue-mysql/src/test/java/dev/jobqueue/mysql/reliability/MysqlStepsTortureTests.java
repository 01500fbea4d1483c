package dev.jobqueue.mysql.reliability;

import org.junit.jupiter.api.Tag;

import dev.jobqueue.mysql.testing.MariaDbTest;
import dev.jobqueue.testing.torture.StepsTortureHarness;
import dev.jobqueue.testing.torture.TortureStore;

/**
 * The durable steps torture ({@link StepsTortureHarness}) on a MariaDB database of its
 * own shared by the queue and the application's table: each transactional step's record
 * is fenced inside the application's transaction (REPEATABLE READ, the job's row locked
 * until it commits). The full size: {@code -Dtorture.steps.jobs=10000}.
 */
@MariaDbTest
@Tag("long")
class MysqlStepsTortureTests extends StepsTortureHarness {

	@Override
	protected TortureStore store() {
		return new MysqlTortureTests.MysqlDatabaseOfItsOwn();
	}

}
