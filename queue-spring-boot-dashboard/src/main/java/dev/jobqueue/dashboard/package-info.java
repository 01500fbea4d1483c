/**
 * The dashboard: web pages on the application's own server where a person sees and steers
 * the queue. Its auto-configuration is in {@code dev.jobqueue.dashboard.autoconfigure}.
 */
package dev.jobqueue.dashboard;
