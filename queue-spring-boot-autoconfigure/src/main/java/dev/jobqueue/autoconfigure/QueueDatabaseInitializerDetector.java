package dev.jobqueue.autoconfigure;

import java.util.Set;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;

/** Tells Spring Boot that {@link QueueSchemaInitializer} initialises a database. */
public class QueueDatabaseInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

	@Override
	protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
		return Set.of(QueueSchemaInitializer.class);
	}

}
