/**
 * Auto-configuration of the queue's Micrometer meters.
 */
package dev.jobqueue.autoconfigure.metrics;
