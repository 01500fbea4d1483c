package dev.jobqueue.autoconfigure;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

import dev.jobqueue.core.store.QueueStorage;

/**
 * Migrates the queue's schema when the context starts. Registered as a database
 * initializer (see {@link QueueDatabaseInitializerDetector}), so beans marked
 * {@code @DependsOnDatabaseInitialization} wait for it. It holds a private Flyway and
 * never exposes a {@code Flyway} bean, which would switch off the application's own
 * migrations.
 */
public class QueueSchemaInitializer implements InitializingBean {

	private final QueueStorage storage;

	private final DatabaseInitializationMode mode;

	private final QueueDataSource location;

	public QueueSchemaInitializer(QueueStorage storage) {
		this(storage, DatabaseInitializationMode.ALWAYS);
	}

	/**
	 * @param mode {@code jobqueue.datasource.initialize-schema}: {@code NEVER} only
	 * checks the schema
	 */
	public QueueSchemaInitializer(QueueStorage storage, DatabaseInitializationMode mode) {
		this(storage, mode, null);
	}

	/**
	 * @param location the queue's DataSource, which says where it is once the schema is
	 * checked
	 */
	QueueSchemaInitializer(QueueStorage storage, DatabaseInitializationMode mode, QueueDataSource location) {
		this.storage = storage;
		this.mode = mode;
		this.location = location;
	}

	@Override
	public void afterPropertiesSet() {
		boolean reachable = false;
		try {
			if (this.mode == DatabaseInitializationMode.NEVER) {
				this.storage.verifySchema();
			}
			else {
				this.storage.initializeSchema();
			}
			reachable = true;
		}
		finally {
			if (this.location != null) {
				this.location.logLocation(reachable);
			}
		}
	}

}
