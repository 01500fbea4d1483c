package dev.jobqueue.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many jobs in one enqueue: each id names its own job, with or without dedup keys in the
 * batch.
 */
public abstract class JobStoreEnqueueManyTests extends StoreTests {

	static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

	@Test
	void jobsWithoutDedupKeysGetTheirOwnIdsInRequestOrderWithEvents() {
		enqueue(List.of(job("{\"n\":0}", null)));
		List<NewJob> jobs = new ArrayList<>();
		for (int i = 1; i <= 5; i++) {
			jobs.add(job("{\"n\":" + i + "}", null));
		}

		List<Long> ids = enqueue(jobs);

		assertThat(ids).hasSize(5).doesNotHaveDuplicates();
		for (int i = 0; i < 5; i++) {
			assertThat(this.db.column("SELECT payload FROM jobs WHERE id = ?", ids.get(i)))
				.containsExactly("{\"n\":" + (i + 1) + "}");
			assertThat(this.db.column("SELECT event FROM job_events WHERE job_id = ?", ids.get(i)))
				.containsExactly("ENQUEUED");
		}
	}

	@Test
	void aBatchWithADedupKeyReturnsTheExistingJobForADuplicate() {
		long existing = enqueue(List.of(job("{\"first\":true}", "key-1"))).get(0);

		List<Long> ids = enqueue(List.of(job("{}", null), job("{\"again\":true}", "key-1"), job("{}", null)));

		assertThat(ids.get(1)).isEqualTo(existing);
		assertThat(ids.get(0)).isNotEqualTo(existing);
		assertThat(ids.get(2)).isNotEqualTo(existing).isNotEqualTo(ids.get(0));
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isEqualTo(3);
	}

	private List<Long> enqueue(List<NewJob> jobs) {
		return this.db.store().enqueue(jobs, NOW, () -> {
		});
	}

	private static NewJob job(String payload, String dedupKey) {
		return new NewJob("work", payload, 0, NOW, 3, dedupKey, null);
	}

}
