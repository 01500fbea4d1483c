package dev.jobqueue.dashboard.autoconfigure;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;

import dev.jobqueue.dashboard.DashboardSettings;
import dev.jobqueue.dashboard.QueueDashboard;

/**
 * Says where the dashboard is once the web server listens, so nobody has to guess its
 * address.
 */
final class DashboardStartupLog implements ApplicationListener<WebServerInitializedEvent> {

	private static final Logger logger = LoggerFactory.getLogger(QueueDashboard.class);

	private final DashboardSettings settings;

	DashboardStartupLog(DashboardSettings settings) {
		this.settings = settings;
	}

	@Override
	public void onApplicationEvent(WebServerInitializedEvent event) {
		String contextPath = event.getApplicationContext()
			.getEnvironment()
			.getProperty("server.servlet.context-path", "");
		logger.info("jobqueue dashboard: http://localhost:{}{}{}/ ({}, values {})", event.getWebServer().getPort(),
				contextPath.endsWith("/") ? contextPath.substring(0, contextPath.length() - 1) : contextPath,
				this.settings.path().equals("/") ? "" : this.settings.path(),
				this.settings.readOnly() ? "read-only" : "actions on", this.settings.values().describe());
	}

}
