package dev.jobqueue.postgresql.reliability;

import org.junit.jupiter.api.Tag;

import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.testing.torture.FlowTortureHarness;
import dev.jobqueue.testing.torture.TortureStore;

/**
 * Flow control across worker JVMs ({@link FlowTortureHarness}) on a PostgreSQL database
 * of their own: key limits, rate limits and order per key judged by the handlers' own
 * records, with and without SIGKILLs, and fairness to a quiet key beside a busy one. CI
 * runs it with {@code -Preliability}.
 */
@PostgresTest
@Tag("long")
class PostgresFlowTortureTests extends FlowTortureHarness {

	@Override
	protected TortureStore store() {
		return new PostgresTortureTests.PostgresDatabaseOfItsOwn();
	}

}
