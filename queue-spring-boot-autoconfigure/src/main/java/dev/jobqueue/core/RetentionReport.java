package dev.jobqueue.core;

import java.util.Map;

/**
 * What the latest cleanup of finished jobs did, for the actuator endpoint. Whatever runs the cleanup provides
 * it; without one the endpoint shows the retention settings only.
 */
@FunctionalInterface
public interface RetentionReport {

	/**
	 * The latest cleanup as JSON-friendly values (when it ran, what it deleted per status, pages freed, last
	 * WAL checkpoint, ...), or {@code null} if none has run since start.
	 */
	Map<String, Object> lastCleanup();

}
