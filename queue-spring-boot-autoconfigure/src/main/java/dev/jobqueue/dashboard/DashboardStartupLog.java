package dev.jobqueue.dashboard;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;

/**
 * Says where the dashboard is once the web server listens, so nobody has to guess its
 * address.
 */
final class DashboardStartupLog implements ApplicationListener<WebServerInitializedEvent> {

	private static final Logger logger = LoggerFactory.getLogger(QueueDashboard.class);

	private final DashboardProperties properties;

	private final ValuesPolicy values;

	DashboardStartupLog(DashboardProperties properties, ValuesPolicy values) {
		this.properties = properties;
		this.values = values;
	}

	@Override
	public void onApplicationEvent(WebServerInitializedEvent event) {
		String contextPath = event.getApplicationContext()
			.getEnvironment()
			.getProperty("server.servlet.context-path", "");
		logger.info("jobqueue dashboard: http://localhost:{}{}{}/ ({}, values {})", event.getWebServer().getPort(),
				contextPath.endsWith("/") ? contextPath.substring(0, contextPath.length() - 1) : contextPath,
				this.properties.basePath().equals("/") ? "" : this.properties.basePath(),
				this.properties.isReadOnly() ? "read-only" : "actions on", this.values.describe());
	}

}
