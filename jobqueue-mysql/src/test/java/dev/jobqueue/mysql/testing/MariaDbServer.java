package dev.jobqueue.mysql.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class only when the MariaDB test server answers. Where it does not, the
 * class is skipped with one loud line that says how to run it, unless {@code CI=true}:
 * there a missing server fails the build.
 *
 * <p>
 * The server is {@code jdbc:mariadb://127.0.0.1:3306/test} as user {@code root} with an
 * empty password, or the {@code jobqueue.test.mariadb.url} system property /
 * {@code JOBQUEUE_TEST_MARIADB_URL} environment variable (a URL of a user that may create
 * databases).
 */
public final class MariaDbServer implements ExecutionCondition {

	private static final AtomicBoolean warned = new AtomicBoolean();

	private static volatile Boolean reachable;

	private static volatile String failure;

	public static String adminUrl() {
		String url = System.getProperty("jobqueue.test.mariadb.url");
		if (url == null) {
			url = System.getenv("JOBQUEUE_TEST_MARIADB_URL");
		}
		return (url != null) ? url : "jdbc:mariadb://127.0.0.1:3306/test?user=root";
	}

	/** The URL of another database on the same server. */
	public static String urlOf(String database) {
		return adminUrl().replaceFirst("(jdbc:(?:mariadb|mysql)://[^/]+/)[^?]*", "$1" + database);
	}

	public static Connection connectAdmin() throws SQLException {
		return DriverManager.getConnection(adminUrl());
	}

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		if (isReachable()) {
			return ConditionEvaluationResult.enabled("MariaDB answers at " + adminUrl());
		}
		String message = "MariaDB tests need a server at " + adminUrl() + " (" + failure + "). Start one (on Debian: "
				+ "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd) or point "
				+ "-Djobqueue.test.mariadb.url at one";
		if ("true".equalsIgnoreCase(System.getenv("CI"))) {
			throw new IllegalStateException("CI=true and " + message);
		}
		if (warned.compareAndSet(false, true)) {
			System.err.println("!!!!! SKIPPING the MariaDB tests: " + message + ". !!!!!");
		}
		return ConditionEvaluationResult.disabled(message);
	}

	private static boolean isReachable() {
		Boolean known = reachable;
		if (known == null) {
			synchronized (MariaDbServer.class) {
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
