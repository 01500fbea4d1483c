package dev.jobqueue.core.store;

import java.time.Instant;

/**
 * A running job whose lease has passed by the reader's clock, as read: the run and the
 * lease's end identify what was seen, so a recovery can be fenced on nothing having
 * changed since.
 *
 * @param jobId the job
 * @param run the claim number of the run holding it
 * @param leaseUntil the end of the lease as stored
 */
public record ExpiredLease(long jobId, int run, Instant leaseUntil) {

}
