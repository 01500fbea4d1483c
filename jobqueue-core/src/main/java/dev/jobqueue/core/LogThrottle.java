package dev.jobqueue.core;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides whether a log line about something that may repeat without end (a failing
 * handler, a failing listener) is written: per key, the first {@code burst} occurrences
 * in a window, then none until the window ends; the next line written says how many were
 * left out. A flood of one failure writes a bounded number of lines, while a new key is
 * always logged at once. Keys are few (a job type and an error code): the map is emptied
 * when it grows past a bound, which at worst writes a few lines more.
 */
public final class LogThrottle {

	private static final int MAX_KEYS = 10_000;

	private final int burst;

	private final long windowNanos;

	private final Ticker ticker;

	private final Map<String, Window> windows = new ConcurrentHashMap<>();

	public LogThrottle(int burst, Duration window, Ticker ticker) {
		this.burst = burst;
		this.windowNanos = window.toNanos();
		this.ticker = ticker;
	}

	/**
	 * @return {@code -1} if this occurrence is not to be logged; else how many
	 * occurrences of the key were left out since the last line written
	 */
	public long admit(String key) {
		if (this.windows.size() > MAX_KEYS) {
			this.windows.clear();
		}
		long now = this.ticker.nanos();
		Window window = this.windows.computeIfAbsent(key, (k) -> new Window(now));
		synchronized (window) {
			if (now - window.start >= this.windowNanos) {
				window.start = now;
				window.written = 0;
			}
			if (window.written >= this.burst) {
				window.suppressed++;
				return -1;
			}
			window.written++;
			long suppressed = window.suppressed;
			window.suppressed = 0;
			return suppressed;
		}
	}

	private static final class Window {

		long start;

		int written;

		long suppressed;

		Window(long start) {
			this.start = start;
		}

	}

}
