package dev.jobqueue.actuate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import dev.jobqueue.web.CrossSiteRequests;

/**
 * Refuses the {@code jobqueue} endpoint's writes (retry, cancel, pause, resume) when a
 * page of another site made them: a browser sends a cached Basic login or a session
 * cookie with a form post or a {@code fetch(…, {mode: 'no-cors'})} of any page, and the
 * endpoint has no token to tell them apart, but the browser also says where the request
 * comes from in headers no page can set. {@code Sec-Fetch-Site} decides when present
 * (only {@code same-origin}, and {@code none} for what the user typed, pass;
 * {@code same-site} is another port or sub-domain); otherwise an {@code Origin} must be
 * the request's own. A request with neither (curl, a script, a monitoring tool) comes
 * from no page and passes: it carries no browser's credentials. Reads pass: a page of
 * another site cannot read their answers. An application may register it for its own
 * API's paths too.
 */
public class CrossSiteWriteFilter implements Filter {

	private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

	@Override
	public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		if (request instanceof HttpServletRequest http && response instanceof HttpServletResponse answer
				&& !READS.contains(http.getMethod()) && CrossSiteRequests.isCrossSite(http)) {
			answer.setStatus(HttpServletResponse.SC_FORBIDDEN);
			answer.setContentType("application/json");
			answer.setCharacterEncoding(StandardCharsets.UTF_8.name());
			answer.getWriter().write("{\"status\":403,\"message\":\"" + CrossSiteRequests.REFUSAL + "\"}");
			return;
		}
		chain.doFilter(request, response);
	}

}
