package dev.jobqueue;

/**
 * What a recurring schedule does about ticks that passed while no process could fire them
 * (all processes down, or the job type paused). A tick counts as missed once it is later
 * than {@code jobqueue.scheduling.misfire-threshold}; never more than one job is enqueued
 * for missed ticks.
 */
public enum Misfire {

	/** Use {@code jobqueue.scheduling.misfire}. */
	DEFAULT,

	/** Enqueue one catch-up job for all missed ticks together. */
	ONCE,

	/** Enqueue nothing for missed ticks; wait for the next tick. */
	SKIP

}
