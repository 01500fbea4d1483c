package dev.jobqueue;

import java.time.Instant;

/**
 * A job type an operator paused: its pending jobs are not claimed by any process and its
 * schedules wait.
 *
 * @param type the job type
 * @param since when it was paused
 */
public record PausedType(String type, Instant since) {
}
