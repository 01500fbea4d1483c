package dev.jobqueue.testing.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.testing.torture.FlowRecords.Run;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The handlers' records: starts paired with their ends, a start without an end kept as a
 * cut-off run, a line still being written left out.
 */
class FlowRecordsTests {

	@TempDir
	Path dir;

	@Test
	void startsArePairedWithTheirEndsPerJobAndAttempt() {
		try (FlowRecords records = FlowRecords.in(this.dir)) {
			records.started(1, 1);
			records.started(2, 1);
			records.ended(1, 1);
			records.started(1, 2);
			records.ended(1, 2);
		}
		long pid = ProcessHandle.current().pid();
		assertThat(FlowRecords.read(this.dir)).hasSize(3)
			.allSatisfy((run) -> assertThat(run.pid()).isEqualTo(pid))
			.anySatisfy((run) -> assertThat(run).extracting(Run::jobId, Run::attempt, Run::ended)
				.containsExactly(2L, 1, false))
			.filteredOn(Run::ended)
			.allSatisfy((run) -> assertThat(run.end()).isGreaterThanOrEqualTo(run.start()))
			.extracting(Run::jobId, Run::attempt)
			.containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(1L, 1),
					org.assertj.core.groups.Tuple.tuple(1L, 2));
	}

	@Test
	void aLineWithoutItsNewlineIsLeftForLater() throws Exception {
		Files.writeString(this.dir.resolve("flow-42.txt"), "S 7 1 100\nE 7 1 200\nS 8 1 30");
		assertThat(FlowRecords.read(this.dir)).containsExactly(new Run(7, 1, 42, 100, 200));
	}

	@Test
	void microsecondsKeepTheClocksResolution() {
		assertThat(FlowRecords.micros(Instant.ofEpochSecond(1_700_000_000L, 123_456_789)))
			.isEqualTo(1_700_000_000_123_456L);
	}

}
