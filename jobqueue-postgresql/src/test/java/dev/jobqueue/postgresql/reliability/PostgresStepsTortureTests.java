package dev.jobqueue.postgresql.reliability;

import org.junit.jupiter.api.Tag;

import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.testing.torture.StepsTortureHarness;
import dev.jobqueue.testing.torture.TortureStore;

/**
 * The durable steps torture ({@link StepsTortureHarness}) on a PostgreSQL database of its
 * own shared by the queue and the application's table. The full size:
 * {@code -Dtorture.steps.jobs=10000}.
 */
@PostgresTest
@Tag("long")
class PostgresStepsTortureTests extends StepsTortureHarness {

	@Override
	protected TortureStore store() {
		return new PostgresTortureTests.PostgresDatabaseOfItsOwn();
	}

}
