package dev.jobqueue.reliability;

import dev.jobqueue.testing.LongTest;
import dev.jobqueue.testing.torture.StepsTortureHarness;
import dev.jobqueue.testing.torture.TortureStore;

/**
 * The durable steps torture ({@link StepsTortureHarness}) on one SQLite file shared by
 * the queue and the application's table. The full size:
 * {@code -Dtorture.steps.jobs=10000}.
 */
@LongTest
class StepsTortureTests extends StepsTortureHarness {

	@Override
	protected TortureStore store() {
		return new TortureTests.SqliteFile();
	}

}
