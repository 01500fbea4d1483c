/**
 * Spring Boot auto-configuration of the queue: properties, the data source choice,
 * handler scanning and the worker's lifecycle.
 */
package dev.jobqueue.autoconfigure;
