package dev.jobqueue.core.worker;

/**
 * How a failure is recorded.
 *
 * @param code {@code CATEGORY:SUBCATEGORY}
 * @param detail a short summary
 * @param retryable whether the job should be tried again while it has attempts left
 */
public record ErrorClassification(String code, String detail, boolean retryable) {

	/** Longest {@code error_detail} kept: the database is no log store. */
	public static final int MAX_DETAIL_LENGTH = 500;

	public ErrorClassification {
		detail = truncate(detail);
	}

	static String truncate(String detail) {
		if (detail == null || detail.length() <= MAX_DETAIL_LENGTH) {
			return detail;
		}
		return detail.substring(0, MAX_DETAIL_LENGTH - 1) + "…";
	}

}
