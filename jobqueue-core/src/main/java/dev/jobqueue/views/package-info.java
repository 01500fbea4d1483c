/**
 * The read API: what the people who run a queue see of it, for every surface that shows
 * it (the actuator endpoint, the dashboard, the command line, the meters) and for an
 * application's own pages. {@link dev.jobqueue.views.QueueViews} answers with the records
 * of this package, payloads, results, error details and dedup keys already shown or
 * hidden by the {@link dev.jobqueue.views.ValuePolicy} the caller passes: the one place
 * that decides what a caller may see of a job. The store SPI behind it
 * ({@code dev.jobqueue.core.store}) is free to change; these records are what callers
 * build on.
 */
@NullMarked
package dev.jobqueue.views;

import org.jspecify.annotations.NullMarked;
