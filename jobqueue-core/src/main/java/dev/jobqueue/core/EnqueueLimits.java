package dev.jobqueue.core;

/**
 * What enqueue accepts.
 *
 * @param defaultMaxAttempts attempts for jobs that set none and whose handler sets none
 * @param maxPayloadBytes largest payload, as UTF-8 JSON
 */
public record EnqueueLimits(int defaultMaxAttempts, long maxPayloadBytes) {

	/** Priorities outside this range are surely a mistake. */
	public static final int MAX_PRIORITY = 1000;

	/** Attempts of a job when nothing else says (jobqueue.retry.max-attempts). */
	public static final int DEFAULT_MAX_ATTEMPTS = 5;

	/** Attempts above this are surely a mistake. */
	public static final int MAX_ATTEMPTS = 1000;

	/**
	 * Longest job type, the same everywhere a type is taken: enqueue, schedules, pause
	 * and resume (API, endpoint, dashboard) and the dashboard's filters.
	 */
	public static final int MAX_TYPE_LENGTH = 200;

	/**
	 * Why {@code type} cannot name a job type, or {@code null} when it can: at most
	 * {@value #MAX_TYPE_LENGTH} characters, no control characters, no leading or trailing
	 * spaces, not blank.
	 */
	public static String typeProblem(String type) {
		if (type == null || type.isBlank()) {
			return "A job type must not be null or blank: pass the type its @JobHandler declares, for example "
					+ "enqueue(\"thumbnail\", payload)";
		}
		if (type.length() > MAX_TYPE_LENGTH || !type.equals(type.strip())
				|| type.chars().anyMatch(Character::isISOControl)) {
			return "Job type '" + ((type.length() > 60) ? type.substring(0, 57) + "..." : type) + "' is not usable: "
					+ "a type has at most " + MAX_TYPE_LENGTH + " characters (this one has " + type.length()
					+ "), no control characters and no leading or trailing spaces";
		}
		return null;
	}

	public static final int MAX_DEDUP_KEY_LENGTH = 500;

	/**
	 * Longest key of a job ({@link dev.jobqueue.JobRequest#key(String)}): enough for a
	 * customer, tenant or account id, or a few of them joined, and short enough to index
	 * on every store (MySQL's column is {@code VARCHAR(200)}).
	 */
	public static final int MAX_KEY_LENGTH = 200;

	/**
	 * Why {@code key} cannot be the key of a {@code type} job, or {@code null} when it
	 * can: {@code null} (no key), or 1 to {@value #MAX_KEY_LENGTH} characters, not blank,
	 * no control characters.
	 */
	public static String keyProblem(String key, String type) {
		if (key == null) {
			return null;
		}
		if (key.isBlank()) {
			return "The key of a '" + type + "' job is blank: pass the customer, tenant or account the job is for, "
					+ "or null for a job without a key";
		}
		if (key.length() > MAX_KEY_LENGTH) {
			return "The key of a '" + type + "' job has " + key.length() + " characters, more than the "
					+ MAX_KEY_LENGTH + " a key may have: use a shorter id of the customer, tenant or account (a "
					+ "database id, or a hash of a longer name)";
		}
		if (key.chars().anyMatch(Character::isISOControl)) {
			return "The key of a '" + type + "' job holds a control character (such as a line break or tab) at index "
					+ indexOfControl(key) + ": a key is printable text; strip or replace those characters";
		}
		return null;
	}

	/**
	 * Why a list or bulk filter of {@code type}, {@code errorCode} and {@code key} (each
	 * {@code null} when not filtered on) cannot match any job, or {@code null} when it
	 * can: none is longer than what enqueue takes ({@value #MAX_TYPE_LENGTH} characters
	 * for a type or error code, {@value #MAX_KEY_LENGTH} for a key). The value is not
	 * repeated: only its length.
	 */
	public static String filterProblem(String type, String errorCode, String key) {
		if (type != null && type.length() > MAX_TYPE_LENGTH) {
			return "A type is at most " + MAX_TYPE_LENGTH
					+ " characters long, as enqueue and pause allow (this one has " + type.length() + ")";
		}
		if (errorCode != null && errorCode.length() > MAX_TYPE_LENGTH) {
			return "An error code is at most " + MAX_TYPE_LENGTH + " characters long (this one has "
					+ errorCode.length() + ")";
		}
		if (key != null && key.length() > MAX_KEY_LENGTH) {
			return "A key is at most " + MAX_KEY_LENGTH + " characters long, as enqueue allows (this one has "
					+ key.length() + ")";
		}
		return null;
	}

	private static int indexOfControl(String text) {
		for (int i = 0; i < text.length(); i++) {
			if (Character.isISOControl(text.charAt(i))) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * Most jobs one request may wait for
	 * ({@link dev.jobqueue.JobRequest#after(long...)}). A fan-in over more jobs is a
	 * fan-out ({@link #MAX_FAN_OUT}): its join waits for children created in the same
	 * call.
	 */
	public static final int MAX_DEPENDENCIES = 1000;

	/** Most children one fan-out may create (in one call, or from one handler). */
	public static final int MAX_FAN_OUT = 100_000;

	public EnqueueLimits {
		if (defaultMaxAttempts < 1 || defaultMaxAttempts > MAX_ATTEMPTS) {
			throw new IllegalArgumentException("jobqueue.retry.max-attempts must be between 1 and " + MAX_ATTEMPTS
					+ ", got " + defaultMaxAttempts);
		}
		if (maxPayloadBytes < 1) {
			throw new IllegalArgumentException("jobqueue.max-payload-size must be positive, got " + maxPayloadBytes);
		}
	}

}
