package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import dev.jobqueue.JobQueueException;

/**
 * The store modules on the classpath ({@link StoreProvider}s, found with
 * {@link ServiceLoader}), and the one that serves a given database. No store is chosen by
 * name: each says which URLs and databases it serves, and exactly one must.
 */
public final class StoreProviders {

	private final List<StoreProvider> providers;

	public StoreProviders(List<StoreProvider> providers) {
		this.providers = List.copyOf(providers);
	}

	/** The providers the class loader's {@code META-INF/services} files name. */
	public static StoreProviders load(ClassLoader classLoader) {
		List<StoreProvider> found = new ArrayList<>();
		ServiceLoader.load(StoreProvider.class, classLoader).forEach(found::add);
		return new StoreProviders(found);
	}

	public List<StoreProvider> all() {
		return this.providers;
	}

	/**
	 * The store that serves {@code url}.
	 * @throws JobQueueException naming the URL (password masked), the store modules found
	 * and what to add, when none serves it or two do
	 */
	public StoreProvider forUrl(String url) {
		Objects.requireNonNull(url, "'url' must not be null");
		List<StoreProvider> serving = this.providers.stream().filter((provider) -> provider.servesUrl(url)).toList();
		return exactlyOne(serving, "the URL " + JdbcUrls.withoutCredentials(url));
	}

	/**
	 * The store that serves the database of {@code dataSource}, by the product name its
	 * driver reports, or {@code null} when none does (or the database cannot be reached).
	 * @throws JobQueueException when two stores claim it
	 */
	public StoreProvider forDataSource(DataSource dataSource) {
		String product = productName(dataSource);
		if (product == null) {
			return null;
		}
		List<StoreProvider> serving = this.providers.stream()
			.filter((provider) -> provider.servesProduct(product))
			.toList();
		return serving.isEmpty() ? null : exactlyOne(serving, "a " + product + " DataSource");
	}

	/**
	 * The product name the driver of {@code dataSource} reports, or {@code null} when the
	 * database cannot be reached.
	 */
	public static String productName(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			return connection.getMetaData().getDatabaseProductName();
		}
		catch (SQLException ex) {
			return null;
		}
	}

	/**
	 * The store modules found, for messages:
	 * {@code SQLite (dev.jobqueue:jobqueue-sqlite)}.
	 */
	public String describe() {
		if (this.providers.isEmpty()) {
			return "none";
		}
		return this.providers.stream()
			.map((provider) -> provider.name() + " (" + provider.module() + ")")
			.collect(Collectors.joining(", "));
	}

	private StoreProvider exactlyOne(List<StoreProvider> serving, String what) {
		if (serving.size() == 1) {
			return serving.get(0);
		}
		if (serving.isEmpty()) {
			throw new JobQueueException("No job queue store serves " + what + ". Store modules on the classpath: "
					+ describe() + ". Use a URL one of them serves (jdbc:sqlite:<file>, "
					+ "jdbc:postgresql://<host>/<database>, jdbc:mariadb:// or jdbc:mysql://<host>/<database>), or "
					+ "add the store module for your database (dev.jobqueue:jobqueue-sqlite, "
					+ "dev.jobqueue:jobqueue-postgresql, dev.jobqueue:jobqueue-mysql; the starter brings all three).");
		}
		throw new JobQueueException("Several job queue stores claim " + what + ": "
				+ serving.stream()
					.map((provider) -> provider.name() + " (" + provider.module() + ")")
					.collect(Collectors.joining(" and "))
				+ ". Keep only one of these modules on the classpath.");
	}

}
