package dev.jobqueue.benchmarks;

/**
 * The payload of every benchmark job: small, as most real payloads are (an id to work
 * on).
 */
public record Payload(int n) {
}
