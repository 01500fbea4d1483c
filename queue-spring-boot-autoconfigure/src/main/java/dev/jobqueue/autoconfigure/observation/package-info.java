/**
 * Auto-configuration of the {@code jobqueue.job} observation and of trace context
 * propagation from enqueue to run.
 */
package dev.jobqueue.autoconfigure.observation;
