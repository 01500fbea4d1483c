/**
 * The {@code jobqueue} actuator endpoint, its web extension and the health indicator.
 * Their auto-configuration is in {@code dev.jobqueue.autoconfigure.actuate}.
 */
package dev.jobqueue.actuate;
