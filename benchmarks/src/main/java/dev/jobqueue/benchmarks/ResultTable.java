package dev.jobqueue.benchmarks;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one table a run prints: each figure of the queue next to its reference measured in
 * the same run (a raw SQLite baseline, or for the big-table and heap rows the queue's own
 * empty-table figure), the ratio, and the target with whether it was met. Printed as a
 * Markdown table so it can go into docs/benchmarks.md as it is.
 */
final class ResultTable {

	static final String HEADER = "| scenario | threads | measure | jobqueue | unit | reference | reference is | ratio | target | result |";

	static final int COLUMNS = 10;

	private final List<Row> rows = new ArrayList<>();

	/** One line of the table. */
	record Row(String scenario, String threads, String measure, double value, String unit, Double reference,
			String referenceKind, Double ratio, String target, Boolean met) {
	}

	/** A throughput next to a raw baseline; the target (if any) is a least ratio. */
	void throughput(String scenario, String threads, String measure, double value, double raw, String rawKind,
			Double minRatio) {
		double ratio = value / raw;
		add(new Row(scenario, threads, measure, value, "jobs/s", raw, rawKind, ratio,
				(minRatio != null) ? "≥ " + format(minRatio) + " × raw" : "",
				(minRatio != null) ? ratio >= minRatio : null));
	}

	void add(Row row) {
		this.rows.add(row);
	}

	List<Row> rows() {
		return this.rows;
	}

	void print(PrintStream out) {
		out.println(HEADER);
		out.println("|---|---|---|--:|---|--:|---|--:|---|---|");
		for (Row row : this.rows) {
			out.println("| " + String.join(" | ", row.scenario(), row.threads(), row.measure(), format(row.value()),
					row.unit(), (row.reference() != null) ? format(row.reference()) : "–",
					(row.referenceKind() != null) ? row.referenceKind() : "–",
					(row.ratio() != null) ? format(row.ratio()) : "–", row.target().isEmpty() ? "–" : row.target(),
					(row.met() == null) ? "–" : (row.met() ? "met" : "**missed**")) + " |");
		}
	}

	static String format(double value) {
		double magnitude = Math.abs(value);
		if (magnitude >= 100) {
			return String.format(Locale.ROOT, "%,.0f", value);
		}
		if (magnitude >= 10) {
			return String.format(Locale.ROOT, "%.1f", value);
		}
		return String.format(Locale.ROOT, "%.2f", value);
	}

	/** Reads a printed number back (for the smoke test); "–" is {@code null}. */
	static Double parse(String cell) {
		String text = cell.strip();
		return text.equals("–") ? null : Double.valueOf(text.replace(",", ""));
	}

}
