package dev.jobqueue.autoconfigure;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.transaction.TransactionManager;

/**
 * Warns once at start-up when the application has no transaction manager: then
 * {@code @Transactional} does nothing, so a job enqueued in a method that goes on to
 * throw still runs. The queue does not declare one itself: a transaction manager on its
 * own file would make every {@code @Transactional} method of the application hold the
 * queue's write lock, and one on the application's DataSource is the application's choice
 * (Boot declares it with {@code spring-boot-starter-jdbc}).
 */
class TransactionManagerCheck implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(TransactionManagerCheck.class);

	private final ListableBeanFactory beanFactory;

	private final QueueDataSource dataSource;

	TransactionManagerCheck(ListableBeanFactory beanFactory, QueueDataSource dataSource) {
		this.beanFactory = beanFactory;
		this.dataSource = dataSource;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.beanFactory.getBeanNamesForType(TransactionManager.class, true, false).length > 0) {
			return;
		}
		logger.warn("The application has no transaction manager, so @Transactional does nothing here: a job enqueued "
				+ "in a method that then throws still runs. Enqueue after the work it depends on has succeeded, or "
				+ "add spring-boot-starter-jdbc with a DataSource of the application's (Boot then declares a "
				+ "transaction manager{}).",
				this.dataSource.isShared() ? ", and enqueue joins its transactions"
						: "; a job enqueued in its transactions is held until they commit");
	}

}
