package dev.jobqueue.autoconfigure;

import org.springframework.beans.factory.InitializingBean;

import dev.jobqueue.core.QueueStorage;

/**
 * Migrates the queue's schema when the context starts. Registered as a database initializer (see
 * {@link QueueDatabaseInitializerDetector}), so beans marked {@code @DependsOnDatabaseInitialization} wait for
 * it. It holds a private Flyway and never exposes a {@code Flyway} bean, which would switch off the
 * application's own migrations.
 */
public class QueueSchemaInitializer implements InitializingBean {

	private final QueueStorage storage;

	public QueueSchemaInitializer(QueueStorage storage) {
		this.storage = storage;
	}

	@Override
	public void afterPropertiesSet() {
		this.storage.initializeSchema();
	}

}
