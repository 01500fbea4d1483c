package dev.jobqueue.core.store;

import java.util.Set;

/**
 * A process that claims jobs.
 *
 * @param workerId its id, unique among the processes sharing the database
 * @param host the host name
 * @param pid the process id
 * @param types the job types it handles
 * @param concurrency its worker slots
 */
public record WorkerInfo(String workerId, String host, long pid, Set<String> types, int concurrency) {

}
