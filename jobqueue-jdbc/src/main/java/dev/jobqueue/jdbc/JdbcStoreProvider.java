package dev.jobqueue.jdbc;

import java.util.List;
import java.util.Objects;

/**
 * A store known by its name, its module, the prefix of its JDBC URLs and the product name
 * its driver reports: what every store matches the same way.
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

}
