package dev.jobqueue.actuate;

import java.sql.SQLException;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import dev.jobqueue.JobQueueException;

/**
 * Answers the {@code jobqueue} endpoint's requests over HTTP in its own words while the
 * queue's database refuses connections or fails a statement: 503 with what to check,
 * instead of Boot's bare 500. Only a failure of the database (an {@link SQLException}
 * under the store's {@link JobQueueException}) is answered so; anything else stays an
 * error. The database's own message is not repeated: it may name the server and user.
 */
public class UnreachableDatabaseAnswer implements OperationInvokerAdvisor {

	private static final EndpointId JOBQUEUE = EndpointId.of("jobqueue");

	static final int STATUS_SERVICE_UNAVAILABLE = 503;

	@Override
	public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
			OperationInvoker invoker) {
		if (!JOBQUEUE.equals(endpointId)) {
			return invoker;
		}
		return (context) -> {
			try {
				return invoker.invoke(context);
			}
			catch (JobQueueException ex) {
				SQLException failure = sqlFailure(ex);
				if (failure == null
						|| !(RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes)) {
					throw ex;
				}
				String state = (failure.getSQLState() != null) ? " (SQLState " + failure.getSQLState() + ")" : "";
				return new WebEndpointResponse<>(new QueueEndpointWebExtension.Problem(STATUS_SERVICE_UNAVAILABLE,
						"The queue's database refuses connections or failed the request" + state + ": nothing was "
								+ ((operationType == OperationType.READ) ? "read" : "changed")
								+ ". Check that the database is up and reachable from this application at "
								+ "jobqueue.datasource.url (or the application's DataSource) with its user and "
								+ "password; the application's log and /actuator/health/jobqueue say more."),
						STATUS_SERVICE_UNAVAILABLE);
			}
		};
	}

	/**
	 * Whether {@code failure} is the database's (a statement or a connection failed), not
	 * a refusal of what was asked.
	 */
	static boolean isDatabaseFailure(Throwable failure) {
		return sqlFailure(failure) != null;
	}

	private static SQLException sqlFailure(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql) {
				return sql;
			}
		}
		return null;
	}

}
