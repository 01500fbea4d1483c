package dev.jobqueue.dashboard;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

import com.sun.net.httpserver.HttpServer;

/**
 * A site on another origin (another port of {@code localhost}, which browsers call
 * same-site, so a session cookie goes along with what its pages send): it serves whatever
 * page a test writes, passed in the address's query.
 */
final class OtherSite implements AutoCloseable {

	private final HttpServer server;

	private OtherSite(HttpServer server) {
		this.server = server;
	}

	static OtherSite start() throws IOException {
		HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		server.createContext("/page", (exchange) -> {
			String query = exchange.getRequestURI().getRawQuery();
			byte[] body = URLDecoder.decode(query.substring("html=".length()), StandardCharsets.UTF_8)
				.getBytes(StandardCharsets.UTF_8);
			exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
			exchange.sendResponseHeaders(200, body.length);
			exchange.getResponseBody().write(body);
			exchange.close();
		});
		server.start();
		return new OtherSite(server);
	}

	/** The address of a page of this site showing {@code html}. */
	String page(String html) {
		return "http://localhost:" + this.server.getAddress().getPort() + "/page?html="
				+ URLEncoder.encode(html, StandardCharsets.UTF_8);
	}

	@Override
	public void close() {
		this.server.stop(0);
	}

}
