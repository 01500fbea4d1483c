/**
 * The dashboard: web pages on the application's own server where a person sees and steers
 * the queue.
 */
package dev.jobqueue.dashboard;
