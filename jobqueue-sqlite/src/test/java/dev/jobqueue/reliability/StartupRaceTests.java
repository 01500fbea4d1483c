package dev.jobqueue.reliability;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.testing.ChildJvm;
import dev.jobqueue.testing.JobRows;
import dev.jobqueue.testing.Invariants;
import dev.jobqueue.testing.SchemaStarter;
import dev.jobqueue.testing.LongTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three processes starting at once on a new file: the schema is migrated exactly once and
 * all come up. Each waits on a barrier before it starts the queue, and says how many
 * start-ups had finished when it began: none, so they overlapped.
 */
@LongTest
class StartupRaceTests {

	@TempDir
	Path dir;

	@Test
	void threeProcessesStartingAtOnceOnANewFileMigrateOnceAndAllComeUp() throws Exception {
		Path file = this.dir.resolve("new.db");
		Path barrier = Files.createDirectory(this.dir.resolve("barrier"));
		List<ChildJvm> starters = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			starters
				.add(ChildJvm.start(SchemaStarter.class, this.dir.resolve("start-" + i + ".log"), file, barrier, 3, i));
		}
		for (ChildJvm starter : starters) {
			starter.assertExitsCleanly(Duration.ofSeconds(60));
			assertThat(starter.output()).contains("OK")
				.as("no start-up had finished when this one began: they overlapped")
				.contains("finishedBeforeMyStart=0");
		}
		List<String> known = knownVersions();
		assertThat(known).isNotEmpty();
		assertThat(JobRows.count(file, "SELECT count(*) FROM jobqueue_schema_history WHERE type = 'SQL'"))
			.isEqualTo(known.size());
		assertThat(JobRows.count(file,
				"SELECT count(DISTINCT version) FROM jobqueue_schema_history WHERE type = 'SQL' AND success = 1"))
			.isEqualTo(known.size());
		assertThat(JobRows.count(file, "SELECT count(*) FROM jobqueue_schema_history WHERE success = 0")).isZero();
		assertThat(JobRows.count(file, "PRAGMA auto_vacuum")).as("incremental vacuum set before the first table")
			.isEqualTo(2);
		assertThat(Invariants.violations(file)).isEmpty();
	}

	/** The versions of the migrations on the class path (V1__..., V2__...). */
	private static List<String> knownVersions() throws Exception {
		Path folder = Path.of(StartupRaceTests.class.getResource("/dev/jobqueue/sqlite/migration").toURI());
		try (Stream<Path> files = Files.list(folder)) {
			return files.map((path) -> path.getFileName().toString())
				.filter((name) -> name.startsWith("V") && name.endsWith(".sql"))
				.map((name) -> name.substring(1, name.indexOf("__")))
				.toList();
		}
	}

}
