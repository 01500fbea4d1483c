package dev.jobqueue.testing;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of tests on one real, migrated SQLite file in a temporary folder, with a queue and
 * workers driven by a clock the test moves.
 */
public abstract class QueueFileTests {

	@TempDir
	protected Path dir;

	protected TestDatabase db;

	protected final MutableClock clock = MutableClock.startingAt("2026-01-01T00:00:00Z");

	protected WorkerHarness harness;

	@BeforeEach
	void openQueueFile() {
		this.db = TestDatabase.create(this.dir);
		this.harness = new WorkerHarness(this.db, this.clock);
	}

	@AfterEach
	void closeQueueFile() {
		this.db.close();
	}

}
