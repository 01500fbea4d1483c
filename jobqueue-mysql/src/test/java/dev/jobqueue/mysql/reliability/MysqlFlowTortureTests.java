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

}
