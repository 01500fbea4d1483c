package dev.jobqueue.reliability;

import dev.jobqueue.testing.LongTest;
import dev.jobqueue.testing.torture.FlowTortureHarness;
import dev.jobqueue.testing.torture.TortureStore;

/**
 * Flow control across worker JVMs ({@link FlowTortureHarness}) on one SQLite file: key
 * limits, rate limits and order per key judged by the handlers' own records, with and
 * without SIGKILLs, and fairness to a quiet key beside a busy one.
 */
@LongTest
class FlowTortureTests extends FlowTortureHarness {

	@Override
	protected TortureStore store() {
		return new TortureTests.SqliteFile();
	}

}
