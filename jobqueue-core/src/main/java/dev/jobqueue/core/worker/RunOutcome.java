package dev.jobqueue.core.worker;

import java.util.Locale;

import dev.jobqueue.core.store.Completion;

/** How a run ended, as a {@link RunOutcomeListener} hears it. */
public enum RunOutcome {

	/** The handler returned. */
	SUCCEEDED,
	/** The handler failed and the job has attempts left. */
	RETRY,
	/** The handler failed for good. */
	FAILED,
	/** The handler asked to run again later; the attempt is given back. */
	SNOOZED,
	/** The job was cancelled while it ran. */
	CANCELLED,
	/** The worker stopped before the run ended; the attempt is given back. */
	HANDED_BACK;

	/** The outcome of a completion a worker wrote. */
	public static RunOutcome of(Completion.Kind kind) {
		return valueOf(kind.name());
	}

	/** The outcome in lower case, as meters and traces tag it. */
	public String tag() {
		return name().toLowerCase(Locale.ROOT);
	}

}
