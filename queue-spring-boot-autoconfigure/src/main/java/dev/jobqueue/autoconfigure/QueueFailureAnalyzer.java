package dev.jobqueue.autoconfigure;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.jobqueue.JobQueueException;

/**
 * Turns a start-up failure of the queue into Boot's "APPLICATION FAILED TO START" block:
 * the queue's sentence of what is wrong as the description, its advice as the action,
 * instead of a long stack with the useful sentence several {@code Caused by} down.
 *
 * <p>
 * The queue's messages say what is wrong in their first sentence and what to do in the
 * rest; that is where they are split.
 */
class QueueFailureAnalyzer extends AbstractFailureAnalyzer<JobQueueException> {

	/** The end of a sentence: a full stop, then a space and a capital letter. */
	private static final Pattern SENTENCE_END = Pattern.compile("(?<!\\b(?:e\\.g|i\\.e|etc))\\.\\s+(?=[A-Z'\"])");

	private static final String DEFAULT_ACTION = "Check the jobqueue.* settings and the queue's database named above.";

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, JobQueueException cause) {
		String message = cause.getMessage();
		if (message == null || message.isBlank()) {
			return null;
		}
		String[] parts = split(message);
		return new FailureAnalysis("The job queue could not start: " + parts[0], parts[1], cause);
	}

	/** The description (the first sentence) and the action (the rest, or a default). */
	static String[] split(String message) {
		Matcher end = SENTENCE_END.matcher(message);
		if (end.find()) {
			String action = message.substring(end.end()).strip();
			if (!action.isEmpty()) {
				return new String[] { message.substring(0, end.start() + 1), action };
			}
		}
		return new String[] { message, DEFAULT_ACTION };
	}

}
