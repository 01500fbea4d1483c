package dev.jobqueue.mysql.reliability;

import org.junit.jupiter.api.Tag;

import dev.jobqueue.mysql.testing.MariaDbTest;
import dev.jobqueue.testing.torture.FlowTortureHarness;
import dev.jobqueue.testing.torture.TortureStore;

/**
 * Flow control across worker JVMs ({@link FlowTortureHarness}) on a MariaDB database of
 * their own: key limits, rate limits and order per key judged by the handlers' own
 * records, with and without SIGKILLs, and fairness to a quiet key beside a busy one. CI
 * runs it with {@code -Preliability}.
 */
@MariaDbTest
@Tag("long")
class MysqlFlowTortureTests extends FlowTortureHarness {

	@Override
	protected TortureStore store() {
		return new MysqlTortureTests.MysqlDatabaseOfItsOwn();
	}

	/**
	 * A third of the full size: MySQL's claim by rounds reads key by key and takes about
	 * 100 ordered jobs a second on a loaded 2-core machine, so the full 10,000 held CI
	 * for minutes to show again what SQLite and PostgreSQL show at full size.
	 */
	@Override
	protected int orderedJobsWithKills() {
		return Integer.getInteger("flow.orderedJobs", 3_000);
	}

	@Override
	protected int orderedJobsWithoutKills() {
		return Integer.getInteger("flow.baselineOrderedJobs", 1_000);
	}

}
