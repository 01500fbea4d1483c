package dev.jobqueue.core.worker;

/**
 * Bounded texts of a failure for the database: the short detail stored on the job and its
 * attempt, and the stack trace kept with the attempt (with its causes, as
 * {@link Throwable#printStackTrace} writes it). A failure with a megabyte message or a
 * ten-thousand-frame stack costs a few kilobytes per attempt, not megabytes.
 */
final class FailureTraces {

	/** Longest error detail stored on a job and an attempt. */
	static final int MAX_DETAIL = 1_000;

	/** Longest stack trace kept with an attempt. */
	static final int MAX_TRACE = 8_000;

	private FailureTraces() {
	}

	/** Frames written per exception of a chain; the rest are counted. */
	static final int MAX_FRAMES = 25;

	/** Causes followed down a chain. */
	private static final int MAX_CAUSES = 5;

	/**
	 * The stack trace of {@code failure} and its causes, each cut to its first
	 * {@value #MAX_FRAMES} frames (where the handler's own code usually is), at most
	 * {@link #MAX_TRACE} characters in all.
	 */
	static String of(Throwable failure) {
		try {
			StringBuilder text = new StringBuilder();
			Throwable current = failure;
			for (int depth = 0; current != null && depth <= MAX_CAUSES; depth++) {
				if (depth > 0) {
					text.append("Caused by: ");
				}
				text.append(current).append('\n');
				StackTraceElement[] frames = current.getStackTrace();
				for (int i = 0; i < Math.min(frames.length, MAX_FRAMES); i++) {
					text.append("\tat ").append(frames[i]).append('\n');
				}
				if (frames.length > MAX_FRAMES) {
					text.append("\t... ").append(frames.length - MAX_FRAMES).append(" more\n");
				}
				current = (current.getCause() != current) ? current.getCause() : null;
			}
			return bounded(text.toString(), MAX_TRACE);
		}
		catch (RuntimeException | StackOverflowError ex) {
			return bounded(String.valueOf(failure), MAX_TRACE);
		}
	}

	/**
	 * {@code text} cut to {@code max} characters, saying how much was cut; {@code null}
	 * stays {@code null}.
	 */
	static String bounded(String text, int max) {
		if (text == null || text.length() <= max) {
			return text;
		}
		String note = " … (" + (text.length() - max) + " more characters)";
		int end = max - note.length();
		if (Character.isHighSurrogate(text.charAt(end - 1))) {
			end--;
		}
		return text.substring(0, end) + note;
	}

}
