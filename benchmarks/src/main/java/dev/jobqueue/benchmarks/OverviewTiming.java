package dev.jobqueue.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;

import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.dashboard.QueueDashboard;

/**
 * The rows of the dashboard scenarios, on either store: the server time of the overview
 * page against the target, and beside it the part of it that is the chart's read
 * (runs ended per minute over the last hour, as the overview asks for them), each the
 * median of 20 after 3 warm-ups.
 */
final class OverviewTiming {

	private static final Duration MINUTE = Duration.ofMinutes(1);

	private OverviewTiming() {
	}

	static void rows(ResultTable table, QueueDashboard dashboard, QueueInsights insights, String scenario,
			String layout) {
		double overview = median(() -> dashboard.overviewHtml("/jobqueue"));
		table.add(new ResultTable.Row(scenario, "1", "server time, " + layout + " (median of 20)", overview, "ms", null,
				null, null, "< 150 ms", overview < 150));
		double chart = median(() -> {
			Instant now = Instant.now();
			insights.outcomes(now.minus(Duration.ofHours(1)).plus(MINUTE), now, MINUTE);
		});
		table.add(new ResultTable.Row(scenario, "1", "of which the chart's read, " + layout + " (median of 20)", chart,
				"ms", null, null, null, "", null));
	}

	private static double median(Runnable work) {
		for (int i = 0; i < 3; i++) {
			work.run();
		}
		double[] millis = new double[20];
		for (int i = 0; i < millis.length; i++) {
			long start = System.nanoTime();
			work.run();
			millis[i] = (System.nanoTime() - start) / 1e6;
		}
		Arrays.sort(millis);
		return millis[millis.length / 2];
	}

}
