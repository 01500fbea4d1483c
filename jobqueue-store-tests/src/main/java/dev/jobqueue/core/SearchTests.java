package dev.jobqueue.core;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobRequest;
import dev.jobqueue.core.store.QueueInsights.JobSearch;
import dev.jobqueue.core.store.QueueInsights.SearchMatch;
import dev.jobqueue.core.store.QueueInsights.SearchResult;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Search ({@code QueueInsights.search}): by id, error code and dedup key from indexes,
 * text among the most recent jobs only, values searched only for a caller who may see
 * them.
 */
public abstract class SearchTests extends StoreTests {

	long failed(String type, Object payload, String errorCode, String errorDetail) {
		long id = this.harness.queue.enqueue(type, payload);
		this.db.execute(
				"UPDATE jobs SET status = 'failed', error_code = ?, error_detail = ?, finished_at = ? WHERE id = ?",
				errorCode, errorDetail, this.db.timestamp(this.clock.instant()), id);
		return id;
	}

	SearchResult search(String text, boolean values) {
		return this.db.insights().search(JobSearch.of(text, values));
	}

	static List<String> found(SearchResult result) {
		return result.matches().stream().map((match) -> match.job().id() + ":" + match.matchedOn()).toList();
	}

	@Test
	void findsAJobByIdAndByErrorCode() {
		long other = this.harness.queue.enqueue("mail", Map.of("to", "a@example.com"));
		long first = failed("pay", Map.of("order", 1), "DEPENDENCY:PAYMENT_API", "503 from payments");
		long second = failed("pay", Map.of("order", 2), "DEPENDENCY:PAYMENT_API", "503 from payments");

		assertThat(found(search(Long.toString(other), false))).containsExactly(other + ":id");
		assertThat(found(search("DEPENDENCY:PAYMENT_API", false))).containsExactly(second + ":error-code",
				first + ":error-code");
		// Part of a code, in any case, among the recent jobs.
		assertThat(found(search("payment_api", false))).containsExactly(second + ":error-code", first + ":error-code");
		assertThat(search("no-such-thing", false).matches()).isEmpty();
	}

	@Test
	void theJobWhoseIdWasTypedComesFirst() {
		long first = this.harness.queue.enqueue("mail", Map.of("to", "a@example.com"));
		long newer = failed("pay", Map.of("order", 4), "DEPENDENCY:PAYMENT_API", "retry job " + first + " later");

		assertThat(found(search(Long.toString(first), true))).containsExactly(first + ":id", newer + ":error-detail");
	}

	@Test
	void searchesPayloadsErrorDetailsAndDedupKeysOnlyWhenValuesMayBeSeen() {
		long payload = this.harness.queue.enqueue("mail", Map.of("to", "Alice@Example.com"));
		long detail = failed("pay", Map.of("order", 3), "DEPENDENCY:PAYMENT_API", "card of alice declined");
		long keyed = this.harness.queue.enqueue(JobRequest.of("sync", Map.of("n", 1)).dedupKey("customer-alice"));

		SearchResult withValues = search("alice", true);
		assertThat(found(withValues)).containsExactly(keyed + ":dedup-key", detail + ":error-detail",
				payload + ":payload");
		assertThat(withValues.valuesSearched()).isTrue();
		assertThat(found(search("customer-alice", true))).containsExactly(keyed + ":dedup-key");

		SearchResult withoutValues = search("alice", false);
		assertThat(withoutValues.matches()).isEmpty();
		assertThat(withoutValues.valuesSearched()).isFalse();
		assertThat(search("customer-alice", false).matches()).isEmpty();
	}

	@Test
	void aTextSearchReadsOnlyTheMostRecentJobs() {
		long old = this.harness.queue.enqueue("mail", Map.of("to", "needle@example.com"));
		for (int i = 0; i < 5; i++) {
			this.harness.queue.enqueue("mail", Map.of("to", "hay" + i + "@example.com"));
		}

		SearchResult narrow = this.db.insights().search(new JobSearch("needle", true, 5, 20));
		assertThat(narrow.matches()).isEmpty();
		assertThat(narrow.scanned()).isEqualTo(5);
		assertThat(narrow.scannedFrom()).isEqualTo(old + 1);
		assertThat(found(this.db.insights().search(new JobSearch("needle", true, 6, 20))))
			.containsExactly(old + ":payload");
		// Found by id whatever the window.
		assertThat(found(this.db.insights().search(new JobSearch(Long.toString(old), true, 1, 20))))
			.containsExactly(old + ":id");
	}

	@Test
	void wildcardsAreSearchedForAsTheyAre() {
		this.harness.queue.enqueue("mail", Map.of("to", "plain@example.com"));
		long percent = this.harness.queue.enqueue("mail", Map.of("discount", "50%_off"));

		assertThat(found(search("%", true))).containsExactly(percent + ":payload");
		assertThat(found(search("0%_o", true))).containsExactly(percent + ":payload");
		assertThat(search("_", true).matches()).extracting(SearchMatch::matchedOn).containsExactly("payload");
	}

}
