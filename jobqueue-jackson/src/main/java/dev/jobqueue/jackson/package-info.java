/**
 * Payloads, results and step results as JSON, written and read by the application's
 * Jackson {@code JsonMapper}: {@link dev.jobqueue.jackson.JacksonPayloadCodec}, and the
 * module that writes job statuses in lower case.
 */
package dev.jobqueue.jackson;
