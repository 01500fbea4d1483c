package dev.jobqueue.autoconfigure.actuate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.context.ApplicationContext;

import dev.jobqueue.actuate.QueueEndpoint;

/**
 * Warns once at start-up when the endpoint's writes are open
 * ({@code management.endpoint.jobqueue.access=unrestricted}) and no Spring Security
 * guards the application: anyone who reaches the actuator may then retry, cancel and
 * pause.
 */
final class QueueEndpointWriteWarning implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(QueueEndpoint.class);

	/** The bean Spring Security's filter chain is registered by. */
	static final String SECURITY_FILTER_CHAIN = "springSecurityFilterChain";

	private final ObjectProvider<EndpointAccessResolver> accessResolver;

	private final ApplicationContext context;

	QueueEndpointWriteWarning(ObjectProvider<EndpointAccessResolver> accessResolver, ApplicationContext context) {
		this.accessResolver = accessResolver;
		this.context = context;
	}

	@Override
	public void afterSingletonsInstantiated() {
		EndpointAccessResolver resolver = this.accessResolver.getIfAvailable();
		if (resolver == null) {
			return;
		}
		Access access = resolver.accessFor(EndpointId.of("jobqueue"), Access.READ_ONLY);
		if (access == Access.UNRESTRICTED && !this.context.containsBean(SECURITY_FILTER_CHAIN)) {
			logger.warn("jobqueue endpoint: its writes are open (management.endpoint.jobqueue.access=unrestricted) and "
					+ "no Spring Security guards the application, so anyone who can reach the actuator may retry, "
					+ "cancel and pause jobs. Writes sent by other sites' pages are refused; protect the actuator "
					+ "with Spring Security, serve it on a management port only operators reach, or set "
					+ "management.endpoint.jobqueue.access=read-only.");
		}
	}

}
