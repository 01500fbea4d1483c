package dev.jobqueue.jdbc.spring;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;

import javax.sql.DataSource;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.jobqueue.jdbc.CallerTransactions;
import dev.jobqueue.jdbc.SqlWork;

/**
 * The caller's transactions as Spring manages them: a queue write on the DataSource a
 * Spring transaction is bound to runs on that transaction's connection, and callbacks
 * wait for its completion. A lock conflict inside the caller's transaction surfaces as
 * one of Spring's {@link PessimisticLockingFailureException}s, which retry support
 * recognises as transient.
 */
public final class SpringTransactions implements CallerTransactions {

	@Override
	public boolean joins(DataSource dataSource) {
		return TransactionSynchronizationManager.isActualTransactionActive()
				&& TransactionSynchronizationManager.getResource(dataSource) != null;
	}

	@Override
	public <T> T runJoined(DataSource dataSource, SqlWork<T> work) throws SQLException {
		Connection connection = DataSourceUtils.getConnection(dataSource);
		try {
			return work.run(connection);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, dataSource);
		}
	}

	@Override
	public boolean inOtherTransaction(DataSource dataSource) {
		return TransactionSynchronizationManager.isActualTransactionActive()
				&& TransactionSynchronizationManager.isSynchronizationActive()
				&& TransactionSynchronizationManager.getResource(dataSource) == null;
	}

	@Override
	public void afterCommit(Runnable action) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			action.run();
			return;
		}
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
			@Override
			public void afterCommit() {
				action.run();
			}
		});
	}

	@Override
	public void afterCompletion(Consumer<Outcome> action) {
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
			@Override
			public void afterCompletion(int status) {
				action.accept(switch (status) {
					case STATUS_COMMITTED -> Outcome.COMMITTED;
					case STATUS_ROLLED_BACK -> Outcome.ROLLED_BACK;
					default -> Outcome.UNKNOWN;
				});
			}
		});
	}

	@Override
	public RuntimeException lockConflict(String message, SQLException cause, boolean staleSnapshot) {
		return staleSnapshot ? new PessimisticLockingFailureException(message, cause)
				: new CannotAcquireLockException(message, cause);
	}

}
