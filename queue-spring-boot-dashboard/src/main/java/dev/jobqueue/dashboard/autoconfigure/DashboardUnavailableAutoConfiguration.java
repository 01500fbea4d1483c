package dev.jobqueue.dashboard.autoconfigure;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnNotWebApplication;
import org.springframework.context.annotation.Bean;

import dev.jobqueue.dashboard.QueueDashboard;

/**
 * Says why {@code jobqueue.dashboard.enabled=true} shows no dashboard in an application
 * without a web server, rather than leaving the setting to do nothing without a word.
 */
@AutoConfiguration
@ConditionalOnNotWebApplication
@ConditionalOnBooleanProperty("jobqueue.dashboard.enabled")
public final class DashboardUnavailableAutoConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(QueueDashboard.class);

	@Bean
	static SmartInitializingSingleton jobqueueDashboardUnavailableWarning() {
		return () -> logger.warn("jobqueue dashboard: jobqueue.dashboard.enabled=true, but this application has no "
				+ "web server, so there is no dashboard. It needs a servlet web application with Spring MVC: add "
				+ "spring-boot-starter-webmvc (and leave spring.main.web-application-type unset or servlet).");
	}

}
