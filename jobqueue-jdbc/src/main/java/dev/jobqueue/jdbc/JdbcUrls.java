package dev.jobqueue.jdbc;

import java.util.Objects;
import java.util.regex.Pattern;

/** JDBC URLs as they may be shown in messages, logs and the endpoint. */
public final class JdbcUrls {

	private static final Pattern SECRET_PARAMETER = Pattern.compile("(?i)([?&;](password|sslpassword|pwd)=)[^&;]*");

	private static final Pattern USER_INFO = Pattern.compile("(//[^/:@?]+:)[^@/?]*(@)");

	private JdbcUrls() {
	}

	/**
	 * The URL with its passwords (as a parameter or in {@code user:password@}) masked.
	 */
	public static String withoutCredentials(String url) {
		Objects.requireNonNull(url, "'url' must not be null");
		return USER_INFO.matcher(SECRET_PARAMETER.matcher(url).replaceAll("$1***")).replaceAll("$1***$2");
	}

}
