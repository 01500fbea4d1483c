package dev.jobqueue.views;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What a search found, newest first.
 *
 * @param matches the jobs found, at most the limit asked for
 * @param scanned how many of the most recent jobs the text search read
 * @param scannedFrom the smallest id the text search read, {@code null} when it read
 * none; older jobs are found only by id, error code, key or an unfinished job's dedup key
 * @param valuesSearched whether dedup keys, error details and payloads were searched
 * (only when the {@link ValuePolicy} shows values)
 */
public record SearchResult(List<SearchMatch> matches, long scanned, @Nullable Long scannedFrom,
		boolean valuesSearched) {

	public SearchResult {
		matches = List.copyOf(matches);
	}

}
