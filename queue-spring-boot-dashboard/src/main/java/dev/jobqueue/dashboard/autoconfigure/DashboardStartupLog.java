package dev.jobqueue.dashboard.autoconfigure;

import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;

import dev.jobqueue.dashboard.DashboardSettings;
import dev.jobqueue.dashboard.QueueDashboard;

/**
 * Says where the dashboard is once the web server listens, so nobody has to guess its
 * address, and warns (once) when its actions are on and no Spring Security guards the
 * application: anyone who reaches the path may then retry, cancel and pause.
 */
final class DashboardStartupLog implements ApplicationListener<WebServerInitializedEvent> {

	private static final Logger logger = LoggerFactory.getLogger(QueueDashboard.class);

	/** The bean Spring Security's filter chain is registered by. */
	static final String SECURITY_FILTER_CHAIN = "springSecurityFilterChain";

	private final DashboardSettings settings;

	private final AtomicBoolean logged = new AtomicBoolean();

	DashboardStartupLog(DashboardSettings settings) {
		this.settings = settings;
	}

	@Override
	public void onApplicationEvent(WebServerInitializedEvent event) {
		if (!this.logged.compareAndSet(false, true)) {
			// A management server on its own port announces itself here too.
			return;
		}
		String contextPath = event.getApplicationContext()
			.getEnvironment()
			.getProperty("server.servlet.context-path", "");
		logger.info("jobqueue dashboard: http://localhost:{}{}{}/ ({}, values {})", event.getWebServer().getPort(),
				contextPath.endsWith("/") ? contextPath.substring(0, contextPath.length() - 1) : contextPath,
				this.settings.path().equals("/") ? "" : this.settings.path(),
				this.settings.readOnly() ? "read-only" : "actions on", this.settings.values().describe());
		if (!this.settings.readOnly() && !event.getApplicationContext().containsBean(SECURITY_FILTER_CHAIN)) {
			logger.warn("jobqueue dashboard: its actions are on (jobqueue.dashboard.read-only=false) and no Spring "
					+ "Security guards the application, so anyone who can reach {} may retry, cancel and pause jobs. "
					+ "Actions posted by other sites' pages are refused; protect the path with Spring Security "
					+ "(see the README's Dashboard section) or set jobqueue.dashboard.read-only=true.",
					this.settings.path());
		}
	}

}
