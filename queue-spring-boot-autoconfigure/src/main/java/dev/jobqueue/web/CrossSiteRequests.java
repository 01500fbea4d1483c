package dev.jobqueue.web;

import java.net.URI;
import java.util.Locale;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Tells a request that a page of another site made from one of the application's own: a
 * browser sends a session cookie or a cached Basic login with a form another site posts,
 * but it also says where the request comes from, in headers no page can set.
 * {@code Sec-Fetch-Site} decides when present (only {@code same-origin}, and {@code none}
 * for what the user typed, pass; {@code same-site} is another port or sub-domain);
 * otherwise an {@code Origin} must be the request's own ({@code null}, from a sandboxed
 * or file page, is not); an older browser that sends neither still names the page in
 * {@code Referer}, which must then be the request's own when present. A request with none
 * of them (curl, a script, a monitoring tool) comes from no page and passes: it carries
 * no browser's credentials. The endpoint's writes and the dashboard's actions both ask
 * it, whether or not a CSRF token guards them too.
 */
public final class CrossSiteRequests {

	/** What a refused request is told; it echoes nothing of the request. */
	public static final String REFUSAL = "A page of another site (or another port) sent this request, and the browser "
			+ "would have sent your login with it: nothing was changed. Send it from a script, or from a page of "
			+ "this application.";

	private CrossSiteRequests() {
	}

	/** Whether a browser says another site's page made this request. */
	public static boolean isCrossSite(HttpServletRequest request) {
		String site = request.getHeader("Sec-Fetch-Site");
		if (site != null) {
			return !site.equals("same-origin") && !site.equals("none");
		}
		String origin = request.getHeader("Origin");
		if (origin != null) {
			return !isOwnOrigin(origin, request);
		}
		String referer = request.getHeader("Referer");
		return referer != null && !isOwnOrigin(referer, request);
	}

	/**
	 * Whether an origin (or a page's address) is the request's own scheme, host and port.
	 */
	private static boolean isOwnOrigin(String origin, HttpServletRequest request) {
		URI uri;
		try {
			uri = URI.create(origin.trim());
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
		// "null" (a sandboxed or file page) has neither.
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
