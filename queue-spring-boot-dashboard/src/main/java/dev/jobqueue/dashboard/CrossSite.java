package dev.jobqueue.dashboard;

import java.net.URI;
import java.util.Locale;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Tells a request a page of another site made from one the dashboard's own pages made,
 * for the actions' POSTs when no CSRF token guards them (no Spring Security): a browser
 * sends the session's cookie (or a cached Basic login) with a form another site posts,
 * but it also says where the request comes from, in headers no page can set.
 * {@code Sec-Fetch-Site} decides when present (only {@code same-origin} and {@code none},
 * typed by the user, pass: {@code same-site} is another port or sub-domain); otherwise an
 * {@code Origin} must be the request's own. A request with neither comes from no page
 * (curl, a script) and passes, as it carries no browser's credentials.
 */
final class CrossSite {

	private CrossSite() {
	}

	static boolean isCrossSite(HttpServletRequest request) {
		String site = request.getHeader("Sec-Fetch-Site");
		if (site != null) {
			return !site.equals("same-origin") && !site.equals("none");
		}
		String origin = request.getHeader("Origin");
		if (origin == null) {
			return false;
		}
		return !isOwnOrigin(origin, request);
	}

	private static boolean isOwnOrigin(String origin, HttpServletRequest request) {
		URI uri;
		try {
			uri = URI.create(origin.trim());
		}
		catch (IllegalArgumentException ex) {
			// "null" (a sandboxed or file page) and anything malformed are not this site.
			return false;
		}
		if (uri.getScheme() == null || uri.getHost() == null) {
			return false;
		}
		String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
		return scheme.equals(request.getScheme().toLowerCase(Locale.ROOT))
				&& uri.getHost().equalsIgnoreCase(request.getServerName())
				&& port(scheme, uri.getPort()) == port(scheme, request.getServerPort());
	}

	private static int port(String scheme, int port) {
		if (port > 0) {
			return port;
		}
		return scheme.equals("https") ? 443 : 80;
	}

}
