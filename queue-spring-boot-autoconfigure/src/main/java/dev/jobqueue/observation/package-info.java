/**
 * The {@code jobqueue.job} observation of each run and the trace context carried from
 * enqueue to run.
 */
package dev.jobqueue.observation;
