package dev.jobqueue.testing.torture;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * The judgements of the flow torture test, on times alone (epoch microseconds): how many
 * runs overlapped at most, how many starts fell in one window at most, whether one key's
 * runs went in enqueue order one after another. No I/O, so each is tested on its own.
 */
public final class FlowChecks {

	private FlowChecks() {
	}

	/**
	 * A time during which a job held its place: from its handler's start to its end (for
	 * a run whose process was killed: until the queue took the job back).
	 *
	 * @param jobId the job
	 * @param start when it started
	 * @param end when it stopped holding its place, after {@code start}
	 */
	public record Interval(long jobId, long start, long end) {

		public Interval {
			if (end < start) {
				throw new IllegalArgumentException(
						"job " + jobId + " ends (" + end + ") before it starts (" + start + "): the records are wrong");
			}
		}

	}

	/**
	 * The most intervals that held at one moment, by a sweep over their starts and ends.
	 * An interval that ends when another starts does not overlap it: an end is recorded
	 * before the queue learns of it, so a later claim's start at the same microsecond
	 * came after it.
	 */
	public static int maxConcurrent(List<Interval> intervals) {
		long[][] events = new long[intervals.size() * 2][];
		int i = 0;
		for (Interval interval : intervals) {
			events[i++] = new long[] { interval.start(), 1 };
			events[i++] = new long[] { interval.end(), -1 };
		}
		// By time; at one time, ends (-1) before starts (+1).
		Arrays.sort(events,
				Comparator.<long[]>comparingLong((event) -> event[0]).thenComparingLong((event) -> event[1]));
		int running = 0;
		int most = 0;
		for (long[] event : events) {
			running += (int) event[1];
			most = Math.max(most, running);
		}
		return most;
	}

	/**
	 * The most starts in any window {@code [t, t + window)}: the sliding count a rate
	 * limit of that window bounds.
	 * @param starts the start times, in any order
	 * @param window the window's length in microseconds, positive
	 */
	public static int maxInWindow(long[] starts, long window) {
		if (window <= 0) {
			throw new IllegalArgumentException("a window must be positive, not " + window);
		}
		long[] sorted = starts.clone();
		Arrays.sort(sorted);
		int most = 0;
		int first = 0;
		for (int last = 0; last < sorted.length; last++) {
			while (sorted[last] - sorted[first] >= window) {
				first++;
			}
			most = Math.max(most, last - first + 1);
		}
		return most;
	}

	/**
	 * What is wrong with one key's runs for a key whose jobs must go one after another in
	 * enqueue order: a run of an earlier job after a later job's, a run that starts
	 * before the previous one stopped holding the key, a job that never ran to its end,
	 * or one that is not the key's.
	 * @param enqueued the key's jobs in enqueue order
	 * @param runs every run of the key's jobs, each with the time it held the key, in any
	 * order; a run that ended has its end, one that was cut off the time the queue took
	 * its job back
	 * @param ended the jobs whose body ran to its end
	 * @return the violations, each one line; empty when the key went in order
	 */
	public static List<String> orderViolations(String key, List<Long> enqueued, List<Interval> runs, Set<Long> ended) {
		List<String> violations = new ArrayList<>();
		List<Interval> sorted = new ArrayList<>(runs);
		sorted.sort(Comparator.comparingLong(Interval::start).thenComparingLong(Interval::jobId));
		List<Long> order = new ArrayList<>();
		Interval previous = null;
		for (Interval run : sorted) {
			if (previous != null) {
				if (run.jobId() < previous.jobId()) {
					violations.add(key + ": job " + run.jobId() + " started at " + run.start() + ", after job "
							+ previous.jobId() + " (enqueued later) started at " + previous.start());
				}
				if (run.start() < previous.end()) {
					violations.add(key + ": job " + run.jobId() + " started at " + run.start() + ", before job "
							+ previous.jobId() + " let the key go at " + previous.end());
				}
			}
			if (order.isEmpty() || order.get(order.size() - 1) != run.jobId()) {
				order.add(run.jobId());
			}
			previous = run;
		}
		for (Long job : enqueued) {
			if (!ended.contains(job)) {
				violations.add(key + ": job " + job + " never ran to its end");
			}
		}
		if (violations.isEmpty() && !order.equals(enqueued)) {
			violations.add(key + ": jobs started in the order " + order + ", enqueued in the order " + enqueued);
		}
		return violations;
	}

}
