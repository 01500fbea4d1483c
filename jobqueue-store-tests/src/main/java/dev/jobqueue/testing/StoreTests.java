package dev.jobqueue.testing;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of the behaviour suite: each test gets a real, migrated database of the store
 * under test, a queue and workers driven by a clock the test moves. A store module runs a
 * suite class by subclassing it and saying how its databases are made
 * ({@link #createFixture}).
 */
public abstract class StoreTests {

	@TempDir
	protected Path dir;

	protected StoreFixture db;

	protected final MutableClock clock = MutableClock.startingAt("2026-01-01T00:00:00Z");

	protected WorkerHarness harness;

	/**
	 * A new, empty, migrated database of the store under test.
	 * @param directory a temporary folder of this test, for stores that keep files
	 * @param tablePrefix the prefix of the queue's tables ({@code ""} for none)
	 */
	protected abstract StoreFixture createFixture(Path directory, String tablePrefix);

	@BeforeEach
	void openStore() {
		this.db = createFixture(this.dir, "");
		this.harness = new WorkerHarness(this.db, this.clock);
	}

	@AfterEach
	void closeStore() {
		this.db.close();
	}

}
