/**
 * Auto-configuration of the dashboard and its settings ({@code jobqueue.dashboard.*}).
 */
package dev.jobqueue.dashboard.autoconfigure;
