/**
 * Recurring jobs: {@link dev.jobqueue.core.schedule.JobScheduler} declares schedules and
 * fires each tick once across every process on the database.
 */
package dev.jobqueue.core.schedule;
