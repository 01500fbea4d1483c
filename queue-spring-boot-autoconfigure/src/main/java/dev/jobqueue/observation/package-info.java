/**
 * The {@code jobqueue.job} observation of each run and the trace context carried from
 * enqueue to run. Their auto-configuration is in
 * {@code dev.jobqueue.autoconfigure.observation}.
 */
package dev.jobqueue.observation;
