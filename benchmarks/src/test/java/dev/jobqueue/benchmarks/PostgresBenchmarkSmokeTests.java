package dev.jobqueue.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.jobqueue.postgresql.testing.PostgresServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The single-enqueue and burn-down rows of the PostgreSQL run, with tiny sizes on the
 * test server, so the harness cannot rot between full runs: every contender of the
 * burn-down (the ceiling, raw on the queue's tables, db-scheduler, the bare engine and
 * the starter) finishes and lands in the one table. The figures of a run this small mean
 * nothing.
 */
@ExtendWith(PostgresServer.class)
class PostgresBenchmarkSmokeTests {

	@Test
	void everyStackIsMeasuredBesideTheBaselinesInOneTable() throws Exception {
		PostgresBenchmarkMain benchmark = new PostgresBenchmarkMain(PostgresServer.adminUrl(), true, 300, 30,
				PostgresBenchmarkMain.STACKS);
		benchmark.singleEnqueues();
		benchmark.burnDowns();
		List<String> rows = print(benchmark);

		for (String row : rows) {
			String[] cells = row.substring(1, row.length() - 1).split("\\|", -1);
			assertThat(cells).as(row).hasSize(4);
			assertThat(number(cells[1])).as(row).isPositive();
			assertThat(number(cells[2])).as(row).isPositive();
			assertThat(cells[3].strip()).as(row).matches("\\d+\\.\\d\\dx");
		}
		assertThat(rows).anyMatch((row) -> row.contains("bare engine vs raw"))
			.anyMatch((row) -> row.contains("the starter's JobQueue bean vs raw"))
			.anyMatch((row) -> row.contains("on the queue's tables vs the ceiling"))
			.anyMatch((row) -> row.contains("db-scheduler 16.7.1, lock-and-fetch (1.0, 4.0), 8 threads vs the ceiling"))
			.anyMatch((row) -> row.contains("bare engine (its store, worker and pool) vs the ceiling"))
			.anyMatch((row) -> row.contains("through the starter (Spring Boot application, @JobHandler bean, "
					+ "default pool) vs the ceiling"))
			.anyMatch((row) -> row.contains("through the starter (Spring Boot application, @JobHandler bean, "
					+ "default pool) vs db-scheduler"))
			.anyMatch((row) -> row.contains("through the starter vs bare engine, same run"));
	}

	@Test
	void flowRowsOfEveryStackPrintInOneTable() throws Exception {
		Options options = Options.parse("--quick", "--flow-jobs=200", "--flow-keys=20", "--rate-per-second=200",
				"--rate-seconds=1", "--rate-backlog=1000", "--warm-up-jobs=60", "--repeat=1");
		ResultTable table = PostgresBenchmarkMain.runFlow(PostgresServer.adminUrl(), options,
				PostgresBenchmarkMain.STACKS);

		BenchmarkSmokeTests.assertFlowRows(table, "PostgreSQL, starter, @JobHandler attributes");
		BenchmarkSmokeTests.assertFlowRows(table, "PostgreSQL, bare engine");
	}

	@Test
	void stacksAreTheEngineAndTheStarter() {
		assertThat(Options.parseStacks("starter", PostgresBenchmarkMain.STACKS)).containsExactly("starter");
		assertThat(Options.parseStacks("engine, starter", PostgresBenchmarkMain.STACKS)).containsExactly("engine",
				"starter");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Options.parseStacks("engine,starter-shared", PostgresBenchmarkMain.STACKS))
			.withMessage("Unknown stack 'starter-shared': use one or more of engine, starter");
	}

	private static List<String> print(PostgresBenchmarkMain benchmark) {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		benchmark.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
		List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
		assertThat(lines.get(0)).isEqualTo("| PostgreSQL scenario | baseline | measured | ratio |");
		return lines.subList(2, lines.size());
	}

	private static double number(String cell) {
		return Double.parseDouble(cell.strip().replace(",", ""));
	}

}
