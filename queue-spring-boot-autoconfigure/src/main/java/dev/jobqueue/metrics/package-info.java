/**
 * Micrometer meters of the queue: gauges over a scheduled snapshot, and the worker's
 * timers and counters. Their auto-configuration is in
 * {@code dev.jobqueue.autoconfigure.metrics}.
 */
package dev.jobqueue.metrics;
