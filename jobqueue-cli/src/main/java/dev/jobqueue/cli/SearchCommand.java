package dev.jobqueue.cli;

import java.time.Instant;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import dev.jobqueue.views.JobSearch;
import dev.jobqueue.views.SearchMatch;
import dev.jobqueue.views.SearchResult;
import dev.jobqueue.views.ValuePolicy;

/**
 * {@code search TEXT}: jobs by id, error code, an unfinished job's dedup key, or text in
 * the error code, dedup key, error detail or payload of the most recent jobs (see
 * {@link JobSearch}). Whoever opens the database sees its values, so they are searched.
 */
@Command(name = "search", description = "Finds jobs by id, error code, key or dedup key, or by text in error codes, "
		+ "dedup keys, error details and payloads of the most recent jobs (--window). Exit code 1 when none is found.")
final class SearchCommand extends QueueCommand {

	@Parameters(index = "0", paramLabel = "TEXT",
			description = "A job id, an error code, a key, a dedup key, or any text.")
	String text;

	@Option(names = "--window", defaultValue = "" + JobSearch.DEFAULT_WINDOW,
			description = "How many of the most recent jobs are read for text (default: ${DEFAULT-VALUE}, at most "
					+ JobSearch.MAX_WINDOW + ").")
	int window;

	@Option(names = "--limit", defaultValue = "" + JobSearch.DEFAULT_LIMIT,
			description = "Most jobs shown (default: ${DEFAULT-VALUE}, at most " + JobSearch.MAX_LIMIT + ").")
	int limit;

	@Override
	int run(QueueDatabase db, Output out) {
		JobSearch search;
		try {
			search = new JobSearch(this.text, this.window, this.limit);
		}
		catch (IllegalArgumentException ex) {
			throw CliException.usage(ex.getMessage());
		}
		SearchResult result = db.views().search(search, ValuePolicy.SHOWN);
		if (out.json()) {
			out.json(result);
		}
		else {
			Instant now = Instant.now();
			if (!result.matches().isEmpty()) {
				out.line("%10s  %-24s %-10s %-12s %-28s %s", "ID", "TYPE", "STATUS", "MATCHED ON", "ERROR CODE",
						"ENQUEUED");
				for (SearchMatch match : result.matches()) {
					out.line("%10d  %-24s %-10s %-12s %-28s %s", match.job().id(), match.job().type(),
							match.job().status().dbValue(), match.matchedOn(),
							(match.job().errorCode() != null) ? match.job().errorCode() : "-",
							Output.ago(match.job().createdAt(), now));
				}
			}
			else {
				out.line("No job found for '%s'.", search.text());
			}
			out.line(
					"Text searched in the %,d most recent job(s)%s; older jobs are found by id, error code, key or an "
							+ "unfinished job's dedup key.",
					result.scanned(), (result.scannedFrom() != null) ? " (ids from " + result.scannedFrom() + ")" : "");
		}
		return result.matches().isEmpty() ? ExitCodes.NOTHING : ExitCodes.OK;
	}

}
