package dev.jobqueue.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.JdbcUrls;
import dev.jobqueue.jdbc.StoreProvider;
import dev.jobqueue.jdbc.StoreProviders;
import dev.jobqueue.jdbc.StoreSettings;

/**
 * The DataSource the queue uses, and the store module that serves it, chosen once at
 * start-up (see {@link #choose}). Deliberately not a {@link DataSource} bean, so the
 * application's own DataSource auto-configuration, and every injection point of a
 * {@code DataSource}, is unaffected.
 */
public final class QueueDataSource implements DisposableBean {

	static final String DEFAULT_URL = "jdbc:sqlite:jobqueue.db";

	private static final Logger logger = LoggerFactory.getLogger(QueueDataSource.class);

	private final DataSource dataSource;

	private final StoreProvider store;

	private final boolean shared;

	private final String description;

	/** How it was chosen, for the line that says where the queue is. */
	private String how = "";

	private QueueDataSource(DataSource dataSource, StoreProvider store, boolean shared, String description) {
		this.dataSource = dataSource;
		this.store = store;
		this.shared = shared;
		this.description = description;
	}

	/**
	 * Chooses the queue's DataSource: {@code jobqueue.datasource.url}; else the
	 * DataSource marked {@link JobQueueDataSource @JobQueueDataSource}; else the
	 * application's single (or primary) DataSource if a store module serves its database;
	 * else the queue's own {@code jobqueue.db}.
	 * @param qualified the DataSource marked {@code @JobQueueDataSource}, if any
	 * @param application the application's single or primary DataSource, if any
	 * @param candidates the names of all DataSource beans, for the message when the
	 * choice is ambiguous
	 * @param applicationUrl {@code spring.datasource.url}, if set: with no DataSource to
	 * share, start-up fails rather than falling back to the default file
	 * @param classLoader where the stores' drivers and Flyway modules are looked for
	 * @throws JobQueueException when several DataSources exist and none is chosen,
	 * {@code spring.datasource.url} is set without a DataSource, no store serves the
	 * chosen one, or the store's driver is missing from the classpath
	 */
	static QueueDataSource choose(QueueProperties.Datasource properties, StoreSettings settings, DataSource qualified,
			DataSource application, List<String> candidates, String applicationUrl, StoreProviders stores,
			ClassLoader classLoader) {
		String url = properties.getUrl();
		if (url != null && !url.isBlank()) {
			return logged(own(url, settings, stores, classLoader), "its own pool, from jobqueue.datasource.url");
		}
		if (qualified != null) {
			StoreProvider store = storeOf(qualified, stores);
			if (store == null) {
				throw new JobQueueException("The DataSource marked @JobQueueDataSource is " + productName(qualified)
						+ ", which no job queue store on the classpath serves (found: " + stores.describe()
						+ "). Mark a DataSource of one of these databases instead, or remove "
						+ "the annotation and set jobqueue.datasource.url to give the queue its own database.");
			}
			return logged(shared(qualified, store, "the @JobQueueDataSource DataSource", classLoader),
					"the @JobQueueDataSource DataSource, shared: enqueue joins its transactions");
		}
		if (application != null) {
			StoreProvider store = storeOf(application, stores);
			if (store != null) {
				return logged(
						shared(application, store, "the application's " + store.name() + " DataSource", classLoader),
						"the application's DataSource, shared: enqueue joins its transactions");
			}
			return logged(own(DEFAULT_URL, settings, stores, classLoader),
					"its own pool, the default file: the application's DataSource is " + productName(application)
							+ ", which no job queue store on the classpath serves; set jobqueue.datasource.url to "
							+ "choose another");
		}
		if (candidates.size() > 1) {
			throw new JobQueueException("The application has " + candidates.size() + " DataSource beans " + candidates
					+ " and none is primary, so the job queue cannot tell which to use. Mark the one for the queue "
					+ "with @JobQueueDataSource (queue writes then join its transactions), or set "
					+ "jobqueue.datasource.url=jdbc:sqlite:<path> to give the queue its own file.");
		}
		if (applicationUrl != null && !applicationUrl.isBlank() && candidates.isEmpty()) {
			// Else the queue would quietly take jobqueue.db in the working directory: on
			// several hosts, a queue per host.
			throw new JobQueueException("spring.datasource.url is set (" + JdbcUrls.withoutCredentials(applicationUrl)
					+ ") but the application has no DataSource, so the job queue cannot share it. Add "
					+ "spring-boot-starter-jdbc for Spring Boot to create that DataSource (the queue then shares it), "
					+ "or give the queue its own database with jobqueue.datasource.url.");
		}
		return logged(own(DEFAULT_URL, settings, stores, classLoader),
				"its own pool, the default file: set jobqueue.datasource.url to choose another");
	}

	private static QueueDataSource logged(QueueDataSource chosen, String how) {
		chosen.how = how;
		return chosen;
	}

	/**
	 * Says once, at start-up, where the queue's data lives (credentials masked), so a
	 * typo in a URL shows in the log: once the schema is checked, with the server as it
	 * names itself (MariaDB, not the MySQL its store is named after); else with the
	 * store's name, without waiting for a server that did not answer.
	 * @param reachable whether the database answered
	 */
	void logLocation(boolean reachable) {
		String server = this.store.name();
		if (reachable) {
			try (Connection connection = this.dataSource.getConnection()) {
				server = this.store.serverName(connection);
			}
			catch (SQLException ex) {
				logger.debug("Could not ask {} for its name", location(), ex);
			}
		}
		logger.info("Job queue on {}: {} ({})", server, location(), this.how);
	}

	/**
	 * Where the data lives: the file or the server URL without credentials, or the
	 * description of a shared DataSource whose URL is not known.
	 */
	String location() {
		if (this.shared && this.dataSource instanceof HikariDataSource hikari && hikari.getJdbcUrl() != null) {
			return this.store.describe(hikari.getJdbcUrl());
		}
		return this.description;
	}

	/** Opens the queue's own pool on {@code url}, with the store that serves it. */
	static QueueDataSource own(String url, StoreSettings settings, StoreProviders stores, ClassLoader classLoader) {
		StoreProvider store = stores.forUrl(url);
		String description = store.describe(url);
		requireSupport(store, "jobqueue.datasource.url=" + description, classLoader);
		return new QueueDataSource(store.openDataSource(url, settings), store, false, description);
	}

	private static QueueDataSource shared(DataSource dataSource, StoreProvider store, String description,
			ClassLoader classLoader) {
		requireSupport(store, description, classLoader);
		return new QueueDataSource(dataSource, store, true, description);
	}

	/**
	 * @throws JobQueueException naming the dependencies to add when the store's driver or
	 * migration support is missing
	 */
	private static void requireSupport(StoreProvider store, String where, ClassLoader classLoader) {
		String missing = store.missingSupport(classLoader, where);
		if (missing != null) {
			throw new JobQueueException(missing);
		}
	}

	/**
	 * The store of a DataSource: by the URL of a Hikari pool (so a server that is down at
	 * start-up still counts, and start-up fails on the migration with a message that says
	 * so), else by asking the database.
	 */
	private static StoreProvider storeOf(DataSource dataSource, StoreProviders stores) {
		if (dataSource instanceof HikariDataSource hikari && hikari.getJdbcUrl() != null) {
			List<StoreProvider> serving = stores.all()
				.stream()
				.filter((store) -> store.servesUrl(hikari.getJdbcUrl()))
				.toList();
			if (!serving.isEmpty()) {
				return stores.forUrl(hikari.getJdbcUrl());
			}
		}
		return stores.forDataSource(dataSource);
	}

	private static String productName(DataSource dataSource) {
		String product = StoreProviders.productName(dataSource);
		return (product != null) ? product : "a database that could not be reached";
	}

	public DataSource dataSource() {
		return this.dataSource;
	}

	/** The store module that serves this DataSource. */
	public StoreProvider store() {
		return this.store;
	}

	/**
	 * Whether this is the application's DataSource, so enqueue joins its transactions.
	 */
	public boolean isShared() {
		return this.shared;
	}

	public String description() {
		return this.description;
	}

	@Override
	public void destroy() throws Exception {
		if (!this.shared && this.dataSource instanceof AutoCloseable closeable) {
			closeable.close();
		}
	}

}
