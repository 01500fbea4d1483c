package dev.jobqueue.reliability;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.testing.JobRows;
import dev.jobqueue.testing.Invariants;
import dev.jobqueue.testing.SchemaStarter;
import dev.jobqueue.testing.LongTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three processes starting at once on a new file: the schema is migrated exactly once and
 * all come up.
 */
@LongTest
class StartupRaceTests {

	@TempDir
	Path dir;

	@Test
	void threeProcessesStartingAtOnceOnANewFileMigrateOnceAndAllComeUp() throws Exception {
		Path file = this.dir.resolve("new.db");
		long startAt = System.currentTimeMillis() + 3_000;
		List<Process> processes = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			processes.add(SchemaStarter.launch(file, startAt, this.dir.resolve("start-" + i + ".log")));
		}
		for (int i = 0; i < processes.size(); i++) {
			Process process = processes.get(i);
			String log = this.dir.resolve("start-" + i + ".log").toString();
			assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("process %d finished", i).isTrue();
			assertThat(process.exitValue()).as(Files.readString(Path.of(log))).isZero();
			assertThat(Files.readString(Path.of(log))).contains("OK");
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
