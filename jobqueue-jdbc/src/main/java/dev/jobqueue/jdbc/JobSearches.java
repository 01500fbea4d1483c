package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.jobqueue.core.store.QueueInsights.JobQuery;
import dev.jobqueue.core.store.QueueInsights.JobSearch;
import dev.jobqueue.core.store.QueueInsights.JobSummary;
import dev.jobqueue.core.store.QueueInsights.SearchMatch;
import dev.jobqueue.core.store.QueueInsights.SearchResult;

/**
 * A {@link JobSearch} as statements: exact matches from an index (id, error code, key, an
 * unfinished job's dedup key), then a text match among the most recent jobs only, read
 * backwards along the primary key, so its cost is the window's rows and never the
 * table's. Text is matched with {@code lower(...) LIKE} and {@code !} as escape, which
 * every database reads alike.
 */
final class JobSearches {

	private static final String BY_ID = "SELECT " + JobColumns.SUMMARY + " FROM {jobs} WHERE id = :id";

	/** From the dedup index, which holds unfinished jobs only. */
	private static final String BY_DEDUP_KEY = "SELECT " + JobColumns.SUMMARY
			+ " FROM {jobs} WHERE dedup_key = :dedup_key AND status IN ('pending', 'running')";

	/** How many jobs the window holds and its smallest id: the primary key only. */
	private static final String WINDOW = """
			SELECT count(*), min(id) FROM (SELECT id FROM {jobs} ORDER BY id DESC LIMIT :window) w
			""";

	private static final String ERROR_CODE_LIKE = "lower(coalesce(error_code, '')) LIKE :pattern ESCAPE '!'";

	private static final String DEDUP_KEY_LIKE = "lower(coalesce(dedup_key, '')) LIKE :pattern ESCAPE '!'";

	private static final String ERROR_DETAIL_LIKE = "lower(coalesce(error_detail, '')) LIKE :pattern ESCAPE '!'";

	private static final String PAYLOAD_LIKE = "lower(payload) LIKE :pattern ESCAPE '!'";

	private final Tables tables;

	private final JobDetails details;

	private final Sql textWithValues;

	private final Sql textWithoutValues;

	JobSearches(Tables tables, JobDetails details) {
		this.tables = tables;
		this.details = details;
		this.textWithValues = tables.sql(textSearch(true));
		this.textWithoutValues = tables.sql(textSearch(false));
		List.of(BY_ID, BY_DEDUP_KEY, WINDOW).forEach(tables::sql);
	}

	private static String textSearch(boolean values) {
		String matchedOn = values
				? "CASE WHEN " + ERROR_CODE_LIKE + " THEN 'error-code' WHEN " + DEDUP_KEY_LIKE
						+ " THEN 'dedup-key' WHEN " + ERROR_DETAIL_LIKE + " THEN 'error-detail' ELSE 'payload' END"
				: "'error-code'";
		matchedOn += " AS matched_on";
		String where = values
				? ERROR_CODE_LIKE + " OR " + DEDUP_KEY_LIKE + " OR " + ERROR_DETAIL_LIKE + " OR " + PAYLOAD_LIKE
				: ERROR_CODE_LIKE;
		return "SELECT " + JobColumns.SUMMARY + ", " + matchedOn + " FROM (SELECT " + JobColumns.SUMMARY
				+ ", dedup_key, error_detail, payload FROM {jobs} ORDER BY id DESC LIMIT :window) w WHERE " + where
				+ " ORDER BY id DESC LIMIT :limit";
	}

	SearchResult search(Connection connection, JobSearch search) throws SQLException {
		Map<Long, SearchMatch> found = new LinkedHashMap<>();
		Long id = parseId(search.text());
		if (id != null) {
			try (SqlStatement select = sql(BY_ID).prepare(connection)) {
				add(found, JobColumns.summaries(select.bind("id", id), dialect()), "id");
			}
		}
		add(found, this.details.jobs(connection, new JobQuery(null, null, search.text(), null, search.limit())).jobs(),
				"error-code");
		add(found, this.details.jobs(connection, new JobQuery(null, null, null, search.text(), null, search.limit()))
			.jobs(), "key");
		if (search.values()) {
			try (SqlStatement select = sql(BY_DEDUP_KEY).prepare(connection)) {
				add(found, JobColumns.summaries(select.bind("dedup_key", search.text()), dialect()), "dedup-key");
			}
		}
		long scanned;
		Long scannedFrom;
		try (SqlStatement window = sql(WINDOW).prepare(connection);
				ResultSet rows = window.bind("window", search.window()).executeQuery()) {
			rows.next();
			scanned = rows.getLong(1);
			scannedFrom = (scanned > 0) ? rows.getLong(2) : null;
		}
		Sql text = search.values() ? this.textWithValues : this.textWithoutValues;
		try (SqlStatement select = text.prepare(connection)) {
			select.bind("pattern", pattern(search.text()))
				.bind("window", search.window())
				.bind("limit", search.limit());
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					JobSummary job = JobColumns.summary(rows, dialect());
					found.putIfAbsent(job.id(), new SearchMatch(job, rows.getString("matched_on")));
				}
			}
		}
		List<SearchMatch> matches = new ArrayList<>(found.values());
		// The job whose id was typed first, then newest first.
		matches.sort(Comparator.comparing((SearchMatch match) -> !"id".equals(match.matchedOn()))
			.thenComparing(Comparator.comparingLong((SearchMatch match) -> match.job().id()).reversed()));
		return new SearchResult(matches.subList(0, Math.min(matches.size(), search.limit())), scanned, scannedFrom,
				search.values());
	}

	/** {@code %text%}, lower case, with LIKE's wildcards and the escape escaped. */
	static String pattern(String text) {
		StringBuilder pattern = new StringBuilder("%");
		for (char c : text.toLowerCase(Locale.ROOT).toCharArray()) {
			if (c == '%' || c == '_' || c == '!') {
				pattern.append('!');
			}
			pattern.append(c);
		}
		return pattern.append('%').toString();
	}

	private static void add(Map<Long, SearchMatch> found, List<JobSummary> jobs, String matchedOn) {
		for (JobSummary job : jobs) {
			found.putIfAbsent(job.id(), new SearchMatch(job, matchedOn));
		}
	}

	private static Long parseId(String text) {
		if (!text.isEmpty() && text.length() < 19 && text.chars().allMatch(Character::isDigit)) {
			return Long.parseLong(text);
		}
		return null;
	}

	private Dialect dialect() {
		return this.tables.dialect();
	}

	private Sql sql(String template) {
		return this.tables.sql(template);
	}

}
