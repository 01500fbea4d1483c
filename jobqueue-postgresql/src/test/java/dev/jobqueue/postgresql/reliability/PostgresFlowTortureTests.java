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

	/**
	 * A third of the full size, as on MariaDB: PostgreSQL's claim by rounds takes about
	 * 180 ordered jobs a second on a loaded 2-core machine, and what the run proves does
	 * not grow with it. Both kills are still aimed at a long run of a limited key (about
	 * 50 such runs in the plan) and must cut one off, every cut-off key must go on after
	 * its job is taken back, and order is checked on the same 100 keys (30 jobs each
	 * instead of 100); the rate and pair limits run at full size. SQLite runs the full
	 * 10,000 in CI, and {@code -Dflow.orderedJobs=10000} runs it here.
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
