package dev.jobqueue.core;

import java.util.function.Supplier;

/**
 * Runs a transactional step ({@link dev.jobqueue.JobContext#transactionalStep}) in a
 * transaction on the queue's database that the application's own data access takes part
 * in, so the step's writes and its record commit together. The Spring implementation
 * lives in the auto-configuration; {@link #refusing} is for a queue that cannot share the
 * application's transactions.
 */
public interface StepTransactions {

	/**
	 * Runs {@code work} in a new transaction, committed when it returns and rolled back
	 * when it throws.
	 * @throws Unavailable when no such transaction can be had, saying why; {@code work}
	 * has not run then
	 */
	<T> T inTransaction(Supplier<T> work);

	/** Refuses every transactional step with {@code reason} (what to do instead). */
	static StepTransactions refusing(String reason) {
		return new StepTransactions() {

			@Override
			public <T> T inTransaction(Supplier<T> work) {
				throw new Unavailable(reason);
			}

		};
	}

	/** No application transactions: a queue used without Spring's. */
	StepTransactions NONE = refusing("the queue knows no transaction of the application's to run it in: "
			+ "transactional steps need the queue on the application's DataSource with a transaction manager");

	/** No transaction for a step can be had here; the message says why. */
	final class Unavailable extends IllegalStateException {

		public Unavailable(String reason) {
			super(reason);
		}

	}

}
