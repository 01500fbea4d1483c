package dev.jobqueue.postgresql.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class only when the PostgreSQL test server answers. Where it does not, the
 * class is skipped with one loud line that says how to run it, unless {@code CI=true}:
 * there a missing server fails the build.
 *
 * <p>
 * The server is {@code jdbc:postgresql://127.0.0.1:5432/postgres} as user
 * {@code postgres} (trust authentication), or the {@code jobqueue.test.postgresql.url}
 * system property / {@code JOBQUEUE_TEST_POSTGRESQL_URL} environment variable (a URL of a
 * database the user may create databases from).
 */
public final class PostgresServer implements ExecutionCondition {

	private static final AtomicBoolean warned = new AtomicBoolean();

	private static volatile Boolean reachable;

	private static volatile String failure;

	public static String adminUrl() {
		String url = System.getProperty("jobqueue.test.postgresql.url");
		if (url == null) {
			url = System.getenv("JOBQUEUE_TEST_POSTGRESQL_URL");
		}
		return (url != null) ? url : "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
	}

	/** The URL of another database on the same server. */
	public static String urlOf(String database) {
		return adminUrl().replaceFirst("(jdbc:postgresql://[^/]+/)[^?]*", "$1" + database);
	}

	public static Connection connectAdmin() throws SQLException {
		return DriverManager.getConnection(adminUrl());
	}

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		if (isReachable()) {
			return ConditionEvaluationResult.enabled("PostgreSQL answers at " + adminUrl());
		}
		String message = "PostgreSQL tests need a server at " + adminUrl() + " (" + failure
				+ "). Start one (on Debian: "
				+ "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start) or point "
				+ "-Djobqueue.test.postgresql.url at one";
		if ("true".equalsIgnoreCase(System.getenv("CI"))) {
			throw new IllegalStateException("CI=true and " + message);
		}
		if (warned.compareAndSet(false, true)) {
			System.err.println("!!!!! SKIPPING the PostgreSQL tests: " + message + ". !!!!!");
		}
		return ConditionEvaluationResult.disabled(message);
	}

	private static boolean isReachable() {
		Boolean known = reachable;
		if (known == null) {
			synchronized (PostgresServer.class) {
				if (reachable == null) {
					DriverManager.setLoginTimeout(5);
					try (Connection connection = connectAdmin()) {
						reachable = connection.isValid(5);
					}
					catch (SQLException ex) {
						failure = ex.getMessage();
						reachable = false;
					}
				}
				known = reachable;
			}
		}
		return known;
	}

}
