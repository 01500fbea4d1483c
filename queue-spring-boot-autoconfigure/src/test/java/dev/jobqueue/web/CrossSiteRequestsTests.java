package dev.jobqueue.web;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.ServletException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import dev.jobqueue.actuate.CrossSiteWriteFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cross-site rule's matrix, outside any browser: every {@code Sec-Fetch-Site} a
 * browser sends (and its absence) against every kind of {@code Origin} and
 * {@code Referer}, on a request to {@code http://localhost:8080}; then which methods the
 * endpoint's filter lets through whatever the headers say.
 */
class CrossSiteRequestsTests {

	private static final String ABSENT = "absent";

	/** Origins: the request's own, another port, another host, another scheme, null. */
	private static final Map<String, String> ORIGINS = origins();

	/** Pages that made the request: the application's own, another site's, none. */
	private static final String[] REFERERS = { "http://localhost:8080/jobqueue/jobs/7",
			"http://localhost:9090/attack.html", "http://attacker.example/attack.html", ABSENT };

	@ParameterizedTest(name = "Sec-Fetch-Site: {0} -> cross-site {1}, whatever Origin and Referer say")
	@CsvSource({ "same-origin, false", "none, false", "same-site, true", "cross-site, true",
			// Anything else a client makes up is not a browser's word that the page is
			// ours.
			"Same-Origin, true", "'', true" })
	void secFetchSiteDecidesWhenPresent(String site, boolean crossSite) {
		for (String origin : ORIGINS.values()) {
			for (String referer : REFERERS) {
				MockHttpServletRequest request = request("POST", site, origin, referer);
				assertThat(CrossSiteRequests.isCrossSite(request))
					.as("Sec-Fetch-Site %s, Origin %s, Referer %s", site, origin, referer)
					.isEqualTo(crossSite);
			}
		}
	}

	@ParameterizedTest(name = "no Sec-Fetch-Site, Origin {0}, Referer {1} -> cross-site {2}")
	@CsvSource({
			// The Origin decides when present: only the request's own scheme, host and
			// port.
			"same, same, false", "same, other-port, false", "same, other-host, false", "same, absent, false",
			"other-port, same, true", "other-port, other-port, true", "other-port, other-host, true",
			"other-port, absent, true", "other-host, same, true", "other-host, other-port, true",
			"other-host, other-host, true", "other-host, absent, true", "other-scheme, same, true",
			"other-scheme, absent, true", "null, same, true", "null, other-host, true", "null, absent, true",
			"malformed, same, true", "malformed, absent, true",
			// An older browser without either still names the page it came from.
			"absent, same, false", "absent, other-port, true", "absent, other-host, true",
			// Nothing at all: curl, a script, a monitoring tool; it carries no browser's
			// credentials.
			"absent, absent, false" })
	void withoutSecFetchSiteTheOriginThenTheRefererDecide(String origin, String referer, boolean crossSite) {
		MockHttpServletRequest request = request("POST", ABSENT, ORIGINS.get(origin), referer(referer));
		assertThat(CrossSiteRequests.isCrossSite(request)).isEqualTo(crossSite);
	}

	@Test
	void anOriginWithoutPortMeansTheSchemesDefault() {
		MockHttpServletRequest onPort80 = request("POST", ABSENT, "http://localhost", ABSENT);
		onPort80.setServerPort(80);
		assertThat(CrossSiteRequests.isCrossSite(onPort80)).isFalse();
		MockHttpServletRequest onHttps = request("POST", ABSENT, "https://LOCALHOST", ABSENT);
		onHttps.setScheme("https");
		onHttps.setServerPort(443);
		assertThat(CrossSiteRequests.isCrossSite(onHttps)).isFalse();
		MockHttpServletRequest elsewhere = request("POST", ABSENT, "http://localhost", ABSENT);
		assertThat(CrossSiteRequests.isCrossSite(elsewhere)).as("port 80 is not the request's 8080").isTrue();
	}

	@ParameterizedTest(name = "{0} from another site is refused")
	@ValueSource(strings = { "POST", "PUT", "PATCH", "DELETE" })
	void theFilterRefusesEveryWriteFromAnotherSite(String method) throws IOException, ServletException {
		assertThat(filtered(request(method, "cross-site", "http://attacker.example", ABSENT)).getStatus())
			.isEqualTo(403);
		assertThat(filtered(request(method, "same-site", "http://localhost:9090", ABSENT)).getStatus()).isEqualTo(403);
		assertThat(filtered(request(method, ABSENT, "null", ABSENT)).getStatus()).isEqualTo(403);
		assertThat(filtered(request(method, ABSENT, ABSENT, "http://attacker.example/x")).getStatus()).isEqualTo(403);
	}

	@ParameterizedTest(name = "{0} from this site, a typed address or a script passes")
	@ValueSource(strings = { "POST", "PUT", "PATCH", "DELETE" })
	void theFilterLetsOwnWritesThrough(String method) throws IOException, ServletException {
		assertThat(filtered(request(method, "same-origin", "http://localhost:8080", ABSENT)).getStatus())
			.isEqualTo(299);
		assertThat(filtered(request(method, "none", ABSENT, ABSENT)).getStatus()).isEqualTo(299);
		assertThat(filtered(request(method, ABSENT, "http://localhost:8080", ABSENT)).getStatus()).isEqualTo(299);
		assertThat(filtered(request(method, ABSENT, ABSENT, ABSENT)).getStatus()).isEqualTo(299);
	}

	@ParameterizedTest(name = "{0} passes even from another site: its answer cannot be read there")
	@ValueSource(strings = { "GET", "HEAD", "OPTIONS", "TRACE" })
	void theFilterLetsReadsThrough(String method) throws IOException, ServletException {
		assertThat(filtered(request(method, "cross-site", "http://attacker.example", ABSENT)).getStatus())
			.isEqualTo(299);
	}

	@Test
	void aRefusalSaysWhyWithoutEchoingTheRequest() throws IOException, ServletException {
		MockHttpServletResponse response = filtered(request("POST", "cross-site", "http://attacker.example", ABSENT));
		assertThat(response.getContentType()).startsWith("application/json");
		assertThat(response.getContentAsString()).contains("another site")
			.contains("nothing was changed")
			.doesNotContain("attacker.example");
	}

	private static MockHttpServletResponse filtered(MockHttpServletRequest request)
			throws IOException, ServletException {
		MockHttpServletResponse response = new MockHttpServletResponse();
		// A status no filter sets, so "passed on" cannot be mistaken for a refusal's
		// default.
		MockFilterChain chain = new MockFilterChain(new jakarta.servlet.http.HttpServlet() {
			@Override
			protected void service(jakarta.servlet.http.HttpServletRequest req,
					jakarta.servlet.http.HttpServletResponse res) {
				res.setStatus(299);
			}
		});
		new CrossSiteWriteFilter().doFilter(request, response, chain);
		return response;
	}

	private static MockHttpServletRequest request(String method, String site, String origin, String referer) {
		MockHttpServletRequest request = new MockHttpServletRequest(method, "/actuator/jobqueue/jobs/7/cancel");
		request.setScheme("http");
		request.setServerName("localhost");
		request.setServerPort(8080);
		if (!ABSENT.equals(site)) {
			request.addHeader("Sec-Fetch-Site", site);
		}
		if (!ABSENT.equals(origin)) {
			request.addHeader("Origin", origin);
		}
		if (!ABSENT.equals(referer)) {
			request.addHeader("Referer", referer);
		}
		return request;
	}

	private static String referer(String kind) {
		return switch (kind) {
			case "same" -> REFERERS[0];
			case "other-port" -> REFERERS[1];
			case "other-host" -> REFERERS[2];
			default -> ABSENT;
		};
	}

	private static Map<String, String> origins() {
		Map<String, String> origins = new LinkedHashMap<>();
		origins.put("same", "http://localhost:8080");
		origins.put("other-port", "http://localhost:9090");
		origins.put("other-host", "http://attacker.example");
		origins.put("other-scheme", "https://localhost:8080");
		origins.put("null", "null");
		origins.put("malformed", "http://local host:8080");
		origins.put(ABSENT, ABSENT);
		return origins;
	}

}
