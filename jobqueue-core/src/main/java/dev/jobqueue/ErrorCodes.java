package dev.jobqueue;

import java.util.Objects;

/**
 * The error codes the queue itself records on a job ({@link Job#errorCode()}), for code
 * that matches on them: alerts, dashboards, tests. Codes have the form
 * {@code CATEGORY:SUBCATEGORY}; a handler's own codes (from {@link JobFailedException} or
 * {@link JobErrorCode}) use the same form.
 */
public final class ErrorCodes {

	/**
	 * The handler ran longer than its {@link JobHandler#timeout() timeout} and was
	 * interrupted.
	 */
	public static final String TIMEOUT_HANDLER = "TIMEOUT:HANDLER";

	/**
	 * A job that must not run twice ({@code repeatable = false}) ran longer than its
	 * handler's timeout and was interrupted mid-work: it is failed, not retried, for a
	 * person to look at.
	 */
	public static final String TIMEOUT_NOT_REPEATABLE = "TIMEOUT:NOT_REPEATABLE";

	/**
	 * A job that must not run twice ({@code repeatable = false}) was still running when
	 * its worker stopped and the shutdown timeout ran out: it is failed, not handed back,
	 * for a person to look at.
	 */
	public static final String SHUTDOWN_NOT_REPEATABLE = "SHUTDOWN:NOT_REPEATABLE";

	/**
	 * The worker running a job that must not run twice died (its lease expired): a person
	 * should look.
	 */
	public static final String LEASE_EXPIRED_NOT_REPEATABLE = "LEASE_EXPIRED:NOT_REPEATABLE";

	/** The worker running the job's last attempt died (its lease expired). */
	public static final String LEASE_EXPIRED_MAX_ATTEMPTS = "LEASE_EXPIRED:MAX_ATTEMPTS";

	/**
	 * The worker running the job died (its lease expired); the job runs again, attempt
	 * counted.
	 */
	public static final String LEASE_EXPIRED_WORKER_LOST = "LEASE_EXPIRED:WORKER_LOST";

	/**
	 * The category of {@link InvalidJobInputException}: input that can never work; never
	 * retried.
	 */
	public static final String INVALID_INPUT = "INVALID_INPUT";

	/** The payload could not be read as the handler's parameter type. */
	public static final String INVALID_INPUT_PAYLOAD = "INVALID_INPUT:PAYLOAD";

	/** The handler's return value could not be written as JSON. */
	public static final String INVALID_OUTPUT_RESULT = "INVALID_OUTPUT:RESULT";

	/**
	 * The handler's return value, as JSON, is larger than
	 * {@code jobqueue.max-result-size}: the run fails, not retried (the work was done;
	 * its result was not kept).
	 */
	public static final String INVALID_OUTPUT_RESULT_TOO_LARGE = "INVALID_OUTPUT:RESULT_TOO_LARGE";

	/**
	 * A durable step's name is blank, longer than {@link JobStep#MAX_NAME_LENGTH}, or
	 * used twice in one run ({@link JobContext#step}): a fault of the handler, not
	 * retried.
	 */
	public static final String STEP_NAME = "STEP:NAME";

	/**
	 * A durable step's result cannot be written as JSON, is larger than
	 * {@code jobqueue.max-result-size}, or its recorded result cannot be read back as the
	 * step's type: not retried (running it again would give the same).
	 */
	public static final String STEP_RESULT = "STEP:RESULT";

	/**
	 * A transactional step ({@link JobContext#transactionalStep}) was asked for where the
	 * queue cannot share the step's transaction: the queue has a DataSource of its own,
	 * or the transaction manager runs on another DataSource. Not retried.
	 */
	public static final String STEP_TRANSACTION = "STEP:TRANSACTION";

	/**
	 * The job snoozed as often as {@code jobqueue.worker.max-snoozes} allows and asked
	 * once more.
	 */
	public static final String SNOOZE_LIMIT_REACHED = "SNOOZE:LIMIT_REACHED";

	/** The job was cancelled through the API while it ran. */
	public static final String CANCELLED_BY_REQUEST = "CANCELLED:BY_REQUEST";

	/**
	 * A waiting job was cancelled because its chain was cancelled
	 * ({@link JobQueue#cancelChain(long)}).
	 */
	public static final String CANCELLED_CHAIN = "CANCELLED:CHAIN";

	/**
	 * The category of the codes a waiting job ends with when a job it waits for failed or
	 * was cancelled ({@link DependencyPolicy#CANCEL} or {@link DependencyPolicy#FAIL}).
	 */
	public static final String DEPENDENCY_FAILED = "DEPENDENCY_FAILED";

	/** A job this one waited for ended failed. */
	public static final String DEPENDENCY_FAILED_FAILED = "DEPENDENCY_FAILED:FAILED";

	/** A job this one waited for ended cancelled. */
	public static final String DEPENDENCY_FAILED_CANCELLED = "DEPENDENCY_FAILED:CANCELLED";

	/** The error classifier itself threw; the failure is recorded as retryable. */
	public static final String INTERNAL_CLASSIFIER = "INTERNAL:CLASSIFIER";

	/**
	 * The worker itself failed around a run that had reached its handler (an
	 * {@link Error} outside the handler), so whether its work was done is unknown:
	 * failed, not retried.
	 */
	public static final String INTERNAL_WORKER = "INTERNAL:WORKER";

	/** The handler ran out of memory. */
	public static final String RESOURCE_OUT_OF_MEMORY = "RESOURCE:OUT_OF_MEMORY";

	/** The handler overflowed its stack. */
	public static final String INTERNAL_STACK_OVERFLOW = "INTERNAL:STACK_OVERFLOW";

	/**
	 * The category of timeouts a handler threw ({@code TIMEOUT:<exception class>}), and
	 * of {@link #TIMEOUT_HANDLER}.
	 */
	public static final String TIMEOUT = "TIMEOUT";

	/**
	 * The category of any other exception a handler threw
	 * ({@code INTERNAL:<exception class>}).
	 */
	public static final String INTERNAL = "INTERNAL";

	private ErrorCodes() {
	}

	/** {@code CATEGORY:SUBCATEGORY}, for example {@code of(INVALID_INPUT, "PAYLOAD")}. */
	public static String of(String category, String subcategory) {
		return category + ":" + subcategory;
	}

	/** The rule a code follows, for messages. */
	public static final String FORM = "CATEGORY:SUBCATEGORY: an upper-case category of letters, digits and "
			+ "underscores, a colon, then up to 80 letters, digits or _.$- (for example DEPENDENCY:PAYMENT_API)";

	/**
	 * Whether {@code code} has the form {@code CATEGORY:SUBCATEGORY} (see {@link #FORM}).
	 */
	public static boolean isValid(String code) {
		return code != null && code.matches("[A-Z][A-Z0-9_]*:[A-Za-z0-9_.$-]{1,80}");
	}

	/**
	 * @return {@code code} if it has the form {@code CATEGORY:SUBCATEGORY}
	 * @throws IllegalArgumentException if not, with an example
	 */
	static String requireValid(String code) {
		Objects.requireNonNull(code, "'errorCode' must not be null");
		if (!isValid(code)) {
			throw new IllegalArgumentException("An error code has the form CATEGORY:SUBCATEGORY (for example "
					+ "DEPENDENCY:PAYMENT_API), got '" + code + "'");
		}
		return code;
	}

}
