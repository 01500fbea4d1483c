package dev.jobqueue.autoconfigure;

import java.util.Set;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;

/**
 * Tells Spring Boot that {@link QueueSchemaInitializer} initialises a database. Ordered
 * after the detectors of the application's own Flyway (1) and Liquibase: on a new file
 * shared with the application, the queue's tables would otherwise make the application's
 * Flyway find a non-empty schema without its history table.
 */
public class QueueDatabaseInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

	static final int ORDER = 100;

	@Override
	protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
		return Set.of(QueueSchemaInitializer.class);
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

}
