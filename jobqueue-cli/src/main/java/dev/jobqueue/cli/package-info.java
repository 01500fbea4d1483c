/**
 * {@code jobqueue-cli}, the command line that operates a queue's database directly, with
 * or without the application running: {@link dev.jobqueue.cli.JobQueueCli} and its
 * commands. See docs/guide/command-line.md.
 */
package dev.jobqueue.cli;
