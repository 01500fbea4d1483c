/**
 * Micrometer meters of the queue: gauges over a scheduled snapshot, and the worker's
 * timers and counters.
 */
package dev.jobqueue.metrics;
