package dev.jobqueue.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

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
				"--heap-jobs=500", "--durability-jobs=100", "--flow-jobs=300", "--flow-keys=30",
				"--rate-per-second=200", "--rate-seconds=1", "--rate-backlog=1000", "--dir=" + this.directory);
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
				case "flow" -> "flow: ";
				default -> scenario;
			};
			assertThat(table.rows()).as(scenario).anyMatch((row) -> row.scenario().startsWith(prefix));
		}
		assertFlowRows(table, "starter, @JobHandler attributes");
		assertFlowRows(table, "bare engine");
	}

	/**
	 * Every row of issue 25 of the stack labelled {@code stack}: the burn-downs over keys
	 * with the ratio and its target, and the rate limit's figures with theirs.
	 */
	static void assertFlowRows(ResultTable table, String stack) {
		List<ResultTable.Row> burnDown = table.rows()
			.stream()
			.filter((row) -> row.scenario().startsWith("flow: burn-down of ") && row.scenario().endsWith(stack + ")"))
			.toList();
		assertThat(burnDown).extracting(ResultTable.Row::measure)
			.containsExactly("no keys, no limits (the plain burn-down, for context)", "keys, no limits (the baseline)",
					"keyConcurrency = 1", "ordered = true",
					"ordered = true: starts before an earlier job of the key (handlers' view)");
		ResultTable.Row keyConcurrency = burnDown.get(2);
		assertThat(keyConcurrency.reference()).isEqualTo(burnDown.get(1).value());
		assertThat(keyConcurrency.ratio()).isEqualTo(keyConcurrency.value() / keyConcurrency.reference());
		assertThat(keyConcurrency.target()).isEqualTo("≥ 0.50 × baseline");
		assertThat(keyConcurrency.met()).isNotNull();
		List<ResultTable.Row> rate = table.rows()
			.stream()
			.filter((row) -> row.scenario().startsWith("flow: rateLimit = ") && row.scenario().endsWith(stack + ")"))
			.toList();
		assertThat(rate).extracting(ResultTable.Row::measure)
			.containsExactly("starts per second over the 1 s (handlers' start times)", "deviation from the limit",
					"most starts in any 1 s, sliding (handlers' start times)",
					"most starts in any 1 s, sliding (claim times the database recorded)",
					"starts in each whole second from the first, fewest",
					"starts in each whole second from the first, most", "due jobs left when the 1 s ended");
		assertThat(rate.get(0).reference()).isEqualTo(200.0);
		assertThat(rate.get(1).target()).isEqualTo("within ±5 %");
		assertThat(rate.get(1).met()).isNotNull();
		// The handlers' sliding count is context (the limit counts claim times).
		assertThat(rate.get(2).target()).isEmpty();
		assertThat(rate.get(2).met()).isNull();
		assertThat(rate.get(3).target()).isEqualTo("≤ 200");
		for (ResultTable.Row row : burnDown) {
			assertThat(row.value()).as(row.measure()).isFinite().isNotNegative();
		}
		for (ResultTable.Row row : rate) {
			assertThat(row.value()).as(row.measure()).isFinite();
		}
	}

	@Test
	void flowScenarioIsNamedAndSizedByItsOptions() {
		Options defaults = Options.parse("--scenario=flow");
		assertThat(defaults.scenarios).containsExactly("flow");
		assertThat(defaults.flowJobs).isEqualTo(100_000);
		assertThat(defaults.flowKeys).isEqualTo(1_000);
		assertThat(defaults.ratePerSecond).isEqualTo(1_000);
		assertThat(defaults.rateDuration).hasSeconds(60);
		assertThat(defaults.rateBacklog).isEqualTo(70_000);
		assertThatIllegalArgumentException().isThrownBy(() -> Options.parse("--flow-keys=0"))
			.withMessage("--flow-keys must be 1 or more, got 0");
	}

	@Test
	void mostInAnyWindowCountsHalfOpenSpans() {
		assertThat(FlowScenario.mostInAnyWindow(new long[0], 1_000)).isZero();
		assertThat(FlowScenario.mostInAnyWindow(new long[] { 0, 999, 1_000, 1_999, 2_000 }, 1_000)).isEqualTo(2);
		assertThat(FlowScenario.mostInAnyWindow(new long[] { 0, 500, 600, 999, 1_500 }, 1_000)).isEqualTo(4);
	}

}
