package dev.jobqueue.views;

import java.util.Objects;

/**
 * A search for jobs by one text, as an operator types it into a search box.
 * <ul>
 * <li>A number is a job id: that job, found by primary key.</li>
 * <li>The text is an error code: jobs whose latest failure has exactly that code, newest
 * first.</li>
 * <li>The text is a job's key: that key's jobs, newest first (a key is shown in every job
 * list, so it is searched whatever the value policy).</li>
 * <li>When values are shown: the unfinished job holding the text as its dedup key.</li>
 * <li>Anywhere in the error code, and when values are shown in the dedup key, error
 * detail or payload, case-insensitively: only among the {@code window} most recent jobs.
 * The cost is bounded by the window, not by the table.</li>
 * </ul>
 * When the {@link ValuePolicy} hides values, dedup keys, error details and payloads are
 * not searched, so they cannot be probed.
 *
 * @param text what to look for
 * @param window how many of the most recent jobs a text search reads, 1 to
 * {@link #MAX_WINDOW}
 * @param limit most jobs found, 1 to {@link #MAX_LIMIT}
 */
public record JobSearch(String text, int window, int limit) {

	/** Jobs a text search reads unless asked otherwise. */
	public static final int DEFAULT_WINDOW = 10_000;

	/** Most jobs a text search reads. */
	public static final int MAX_WINDOW = 100_000;

	/** Jobs found unless asked otherwise. */
	public static final int DEFAULT_LIMIT = 20;

	/** Most jobs found. */
	public static final int MAX_LIMIT = 100;

	/** Longest text searched for. */
	public static final int MAX_TEXT = 200;

	public JobSearch {
		Objects.requireNonNull(text, "'text' must not be null");
		text = text.strip();
		if (text.isEmpty() || text.length() > MAX_TEXT) {
			throw new IllegalArgumentException("Search for 1 to " + MAX_TEXT + " characters, not " + text.length());
		}
		if (window < 1 || window > MAX_WINDOW) {
			throw new IllegalArgumentException("A search window of " + window + " jobs is out of range: use 1 to "
					+ MAX_WINDOW + " (the most recent jobs a text search reads)");
		}
		if (limit < 1 || limit > MAX_LIMIT) {
			throw new IllegalArgumentException(
					"A search limit of " + limit + " is out of range: use 1 to " + MAX_LIMIT);
		}
	}

	/** A search with the default window and limit. */
	public static JobSearch of(String text) {
		return new JobSearch(text, DEFAULT_WINDOW, DEFAULT_LIMIT);
	}

}
