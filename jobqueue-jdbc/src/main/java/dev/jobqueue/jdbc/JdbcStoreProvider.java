package dev.jobqueue.jdbc;

import java.util.List;
import java.util.Objects;

/**
 * A store known by its name, its module, the prefix of its JDBC URLs and the product name
 * its driver reports, and the classes it needs on the classpath: what every store matches
 * and checks the same way.
 */
public abstract class JdbcStoreProvider implements StoreProvider {

	private final String name;

	private final String module;

	private final List<String> urlPrefixes;

	private final List<String> productNames;

	/**
	 * @param name the database's name, as its driver reports it ({@code SQLite})
	 * @param module the Maven coordinates of the store module
	 * @param urlPrefix how the store's JDBC URLs begin ({@code jdbc:sqlite:})
	 */
	protected JdbcStoreProvider(String name, String module, String urlPrefix) {
		this(name, module, List.of(urlPrefix), List.of(name));
	}

	/**
	 * A store for several URL prefixes and drivers (MySQL's and MariaDB's).
	 * @param productNames the names the drivers report
	 */
	protected JdbcStoreProvider(String name, String module, List<String> urlPrefixes, List<String> productNames) {
		this.name = Objects.requireNonNull(name, "'name' must not be null");
		this.module = Objects.requireNonNull(module, "'module' must not be null");
		this.urlPrefixes = List.copyOf(urlPrefixes);
		this.productNames = List.copyOf(productNames);
	}

	@Override
	public final String name() {
		return this.name;
	}

	@Override
	public final String module() {
		return this.module;
	}

	@Override
	public final boolean servesUrl(String url) {
		return url != null && this.urlPrefixes.stream().anyMatch(url::startsWith);
	}

	@Override
	public final boolean servesProduct(String productName) {
		return this.productNames.stream().anyMatch((name) -> name.equalsIgnoreCase(productName));
	}

	/**
	 * What the store needs on the classpath to serve {@code where}, in the order they are
	 * checked.
	 * @param where what asked for this store (a URL, "the application's DataSource")
	 */
	protected abstract List<Requirement> requirements(String where);

	/** The first of the {@link #requirements} that cannot be loaded, in a sentence. */
	@Override
	public final String missingSupport(ClassLoader classLoader, String where) {
		for (Requirement requirement : requirements(where)) {
			if (!isPresent(requirement.className(), classLoader)) {
				return requirement.missing(where);
			}
		}
		return null;
	}

	/**
	 * Whether {@code className} can be loaded, without initializing it: for
	 * {@link #missingSupport}.
	 */
	protected static boolean isPresent(String className, ClassLoader classLoader) {
		try {
			Class.forName(className, false, classLoader);
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	/**
	 * A class the store needs, and what to add when it is missing.
	 *
	 * @param className the class that must load
	 * @param configuredFor the database the queue is configured for, as the message names
	 * it ({@code PostgreSQL})
	 * @param what what is missing, as the message names it ("the PostgreSQL JDBC driver")
	 * @param dependency the Maven coordinates to add
	 * @param otherwise what else the user may do, as the end of the sentence (", or use a
	 * jdbc:sqlite: URL"), or {@code ""}
	 */
	public record Requirement(String className, String configuredFor, String what, String dependency,
			String otherwise) {

		/**
		 * Flyway's support for the database, which migrates the queue's tables.
		 * @param support the database as Flyway's module is named ({@code MySQL})
		 */
		public static Requirement flyway(String className, String configuredFor, String support, String dependency) {
			return new Requirement(className, configuredFor,
					"Flyway's " + support + " support, which migrates the queue's tables,", dependency, "");
		}

		String missing(String where) {
			return "The job queue is configured for " + this.configuredFor + " (" + where + ") but " + this.what
					+ " is not on the classpath. Add the dependency " + this.dependency
					+ " (Spring Boot manages its version)" + this.otherwise + ".";
		}

	}

}
