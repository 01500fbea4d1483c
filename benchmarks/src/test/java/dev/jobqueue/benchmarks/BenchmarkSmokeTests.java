package dev.jobqueue.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs every scenario of the benchmark with tiny sizes, so the harness cannot rot between
 * full runs. It asserts only that the run completes and that the printed table parses;
 * the figures of a run this small mean nothing.
 */
class BenchmarkSmokeTests {

	@TempDir
	Path directory;

	@Test
	void quickRunOfEveryScenarioPrintsATableThatParses() throws Exception {
		Options options = Options.parse("--quick", "--threads=2", "--executors=platform", "--jobs=300",
				"--enqueue-jobs=100", "--enqueue-all-calls=2", "--enqueue-all-size=100", "--latency-seconds=1",
				"--latency-rate=50", "--poll-interval-ms=200", "--big-finished=1000", "--idle-seconds=1",
				"--heap-jobs=500", "--durability-jobs=100", "--dir=" + this.directory);
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		ResultTable table = BenchmarkMain.run(options, new PrintStream(bytes, true, StandardCharsets.UTF_8));

		List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
		int header = lines.indexOf(ResultTable.HEADER);
		assertThat(header).isNotNegative();
		List<String> rows = lines.subList(header + 2, lines.size())
			.stream()
			.filter((line) -> line.startsWith("|"))
			.toList();
		assertThat(rows).hasSize(table.rows().size());
		for (String row : rows) {
			String[] cells = row.substring(1, row.length() - 1).split("\\|", -1);
			assertThat(cells).as(row).hasSize(ResultTable.COLUMNS);
			assertThat(ResultTable.parse(cells[3])).as(row).isNotNull().isFinite();
			ResultTable.parse(cells[5]);
			ResultTable.parse(cells[7]);
			assertThat(cells[9].strip()).as(row).isIn("met", "**missed**", "–");
		}
		for (String scenario : Options.SCENARIOS) {
			String prefix = switch (scenario) {
				case "enqueue" -> "enqueue, 1 job";
				case "enqueue-all" -> "enqueueAll";
				case "big-table" -> "big table";
				case "idle" -> "idle worker";
				case "heap" -> "heap after GC";
				case "steps" -> "durable steps";
				default -> scenario;
			};
			assertThat(table.rows()).as(scenario).anyMatch((row) -> row.scenario().startsWith(prefix));
		}
	}

}
