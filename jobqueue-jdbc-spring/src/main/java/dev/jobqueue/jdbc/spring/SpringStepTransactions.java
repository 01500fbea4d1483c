package dev.jobqueue.jdbc.spring;

import java.util.Objects;
import java.util.function.Supplier;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import dev.jobqueue.core.StepTransactions;

/**
 * Transactional steps in a Spring transaction: each step runs in a new transaction of the
 * application's transaction manager, in which the application's data access (a
 * {@code JdbcTemplate}, a repository) and the step's record (through
 * {@link SpringTransactions}) share one connection, so they commit or roll back together.
 */
public final class SpringStepTransactions implements StepTransactions {

	private final TransactionTemplate template;

	public SpringStepTransactions(PlatformTransactionManager transactionManager) {
		this.template = new TransactionTemplate(
				Objects.requireNonNull(transactionManager, "'transactionManager' must not be null"));
		// A step is a unit of its own, whatever the handler's thread may be in.
		this.template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
	}

	@Override
	public <T> T inTransaction(Supplier<T> work) {
		return this.template.execute((status) -> work.get());
	}

}
