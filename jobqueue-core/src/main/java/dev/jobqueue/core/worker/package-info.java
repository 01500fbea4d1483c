/**
 * The worker: claims jobs, runs their handlers in slots, turns what a handler did into an
 * outcome, keeps leases and recovers those that expired.
 * {@link dev.jobqueue.core.worker.JobWorker} is the entry point.
 */
package dev.jobqueue.core.worker;
