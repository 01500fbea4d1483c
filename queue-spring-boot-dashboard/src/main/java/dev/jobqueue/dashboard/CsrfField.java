package dev.jobqueue.dashboard;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.security.web.csrf.CsrfToken;

/**
 * The CSRF token Spring Security put on the request, for the dashboard's forms. Loaded
 * only when Spring Security is on the classpath.
 */
final class CsrfField {

	private CsrfField() {
	}

	/**
	 * @return the form field's name and value, or {@code null} when the request has no
	 * token
	 */
	static String[] of(HttpServletRequest request) {
		if (request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken token) {
			return new String[] { token.getParameterName(), token.getToken() };
		}
		return null;
	}

}
