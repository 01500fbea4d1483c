package dev.jobqueue.core;

import java.util.ArrayList;
import java.util.List;

import dev.jobqueue.JobRequest;
import dev.jobqueue.testing.StoreTests;

/**
 * Base of the flow control suites: jobs of one type, {@link #TYPE}, each with a key or
 * without one.
 */
abstract class KeyedJobsTests extends StoreTests {

	static final String TYPE = "charge";

	/** Enqueues a job of {@link #TYPE}, with {@code key} unless it is null. */
	long enqueue(String payload, String key) {
		JobRequest request = JobRequest.of(TYPE, payload);
		return this.harness.queue.enqueue((key != null) ? request.key(key) : request);
	}

	/**
	 * Enqueues {@code count} jobs of {@link #TYPE} at once, with payloads {@code prefix1}
	 * to {@code prefix<count>} and {@code key} unless it is null.
	 */
	void enqueueMany(String prefix, String key, int count) {
		List<JobRequest> requests = new ArrayList<>();
		for (int i = 1; i <= count; i++) {
			JobRequest request = JobRequest.of(TYPE, prefix + i);
			requests.add((key != null) ? request.key(key) : request);
		}
		this.harness.queue.enqueueAll(requests);
	}

}
