/**
 * Auto-configuration of the {@code jobqueue} actuator endpoint and health indicator, and
 * the endpoint's settings ({@code management.endpoint.jobqueue.*}).
 */
package dev.jobqueue.autoconfigure.actuate;
