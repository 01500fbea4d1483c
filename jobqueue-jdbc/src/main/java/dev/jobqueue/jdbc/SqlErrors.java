package dev.jobqueue.jdbc;

import java.sql.SQLException;

/**
 * What a failure's chain of causes says, for the error translation of every store: the
 * first SQLSTATE, the first vendor error code, the innermost message.
 */
public final class SqlErrors {

	private SqlErrors() {
	}

	/** The first SQLSTATE in the chain of causes, or {@code ""} when there is none. */
	public static String state(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql && sql.getSQLState() != null) {
				return sql.getSQLState();
			}
		}
		return "";
	}

	/**
	 * The first vendor error code in the chain of causes (MySQL's 1213), or 0 when there
	 * is none.
	 */
	public static int vendorCode(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql && sql.getErrorCode() != 0) {
				return sql.getErrorCode();
			}
		}
		return 0;
	}

	/** The message of the innermost cause: what the driver or server said. */
	public static String rootMessage(Throwable ex) {
		Throwable root = ex;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return root.getMessage();
	}

}
