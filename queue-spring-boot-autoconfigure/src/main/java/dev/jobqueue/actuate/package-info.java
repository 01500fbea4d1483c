/**
 * The {@code jobqueue} actuator endpoint and health indicator, with their
 * auto-configurations.
 */
package dev.jobqueue.actuate;
