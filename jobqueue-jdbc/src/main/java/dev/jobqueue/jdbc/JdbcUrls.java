package dev.jobqueue.jdbc;

import java.util.Objects;
import java.util.regex.Pattern;

/** JDBC URLs as they may be shown in messages, logs and the endpoint. */
public final class JdbcUrls {

	/** A key that names a password: any holding "password" or "pwd", in any case. */
	private static final String SECRET_KEY = "[^=&;?(),/]*(?:password|pwd)[^=&;?(),/]*";

	/**
	 * A secret in the query ({@code ?}, {@code &} or {@code ;} before it): its value runs
	 * to the next {@code &} or {@code ;}.
	 */
	private static final Pattern SECRET_PARAMETER = Pattern.compile("(?i)([?&;]\\s*" + SECRET_KEY + "=)[^&;]*");

	/**
	 * A secret in MySQL's key-value host forms, {@code address=(host=…)(password=…)} and
	 * {@code (host=…,password=…)}: its value runs to the next {@code ,} or {@code )}.
	 */
	private static final Pattern SECRET_PROPERTY = Pattern.compile("(?i)([(,]\\s*" + SECRET_KEY + "=)[^,)]*");

	/**
	 * {@code user:password@} after {@code //}: the password runs to the last {@code @}
	 * before the query, so one holding {@code @} is masked whole.
	 */
	private static final Pattern USER_INFO = Pattern.compile("(//[^/:@?;()]+:)[^?;]*(@)");

	private JdbcUrls() {
	}

	/**
	 * The URL with its passwords masked: query parameters and MySQL's host properties
	 * whose key holds {@code password} or {@code pwd} (any case: {@code sslpassword},
	 * {@code trustStorePassword}, {@code password1}), and {@code user:password@}.
	 */
	public static String withoutCredentials(String url) {
		Objects.requireNonNull(url, "'url' must not be null");
		String masked = SECRET_PARAMETER.matcher(url).replaceAll("$1***");
		masked = SECRET_PROPERTY.matcher(masked).replaceAll("$1***");
		return USER_INFO.matcher(masked).replaceAll("$1***$2");
	}

}
