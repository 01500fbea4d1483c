package dev.jobqueue.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;

import javax.sql.DataSource;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.jackson.JacksonPayloadCodec;
import dev.jobqueue.jdbc.JdbcStorage;
import dev.jobqueue.jdbc.SchemaVersions;
import dev.jobqueue.jdbc.StoreProvider;
import dev.jobqueue.jdbc.StoreProviders;
import dev.jobqueue.jdbc.StoreSettings;
import dev.jobqueue.views.QueueViews;
import tools.jackson.databind.json.JsonMapper;

/**
 * The queue's database as the tool opens it: the store that serves the URL (found with
 * {@link StoreProviders}, as the application finds it), its own small pool, the store's
 * {@link JdbcStorage} and a {@link DefaultJobQueue} on it without handlers, so every
 * write goes through the same store code as the application's. No Spring context.
 *
 * <p>
 * Before the store touches a database, the tool checks that it holds a queue: the store
 * provider checks what it must before opening (a file store reads its file without
 * writing, since its pool would create a missing file or change an existing one), then
 * the database is asked for the queue's schema history table. A schema newer than this
 * tool's is refused, and so is an older one except by {@code migrate} and {@code doctor}.
 */
final class QueueDatabase implements AutoCloseable {

	private final StoreProvider store;

	private final String description;

	private final String serverName;

	private final DataSource dataSource;

	private final JdbcStorage<?, ?, ?, ?, ?> storage;

	private final SchemaVersions versions;

	private final DefaultJobQueue queue;

	private QueueDatabase(StoreProvider store, String description, String serverName, DataSource dataSource,
			JdbcStorage<?, ?, ?, ?, ?> storage, SchemaVersions versions) {
		this.store = store;
		this.description = description;
		this.serverName = serverName;
		this.dataSource = dataSource;
		this.storage = storage;
		this.versions = versions;
		this.queue = new DefaultJobQueue(storage.jobs(), storage.admin(),
				new JacksonPayloadCodec(JsonMapper.builder().build()), new HandlerRegistry(), Clock.systemUTC(),
				new EnqueueLimits(3, 1 << 20), null);
	}

	/** How a command needs the schema. */
	enum Need {

		/** Exactly the schema this tool knows. */
		CURRENT,

		/** A queue's schema, maybe older than this tool's ({@code doctor}). */
		ANY_QUEUE,

		/** Any database, even an empty one ({@code migrate}). */
		ANYTHING

	}

	/**
	 * Opens the queue the options name.
	 * @throws CliException with {@link ExitCodes#DATABASE} when it cannot be used as
	 * {@code need} asks, or {@link ExitCodes#USAGE} for a URL no store serves
	 */
	static QueueDatabase open(DatabaseOptions options, Need need, JobQueueCli tool) {
		String url = options.url();
		StoreProviders stores = StoreProviders.load(QueueDatabase.class.getClassLoader());
		StoreProvider store;
		try {
			store = stores.forUrl(url);
		}
		catch (JobQueueException ex) {
			throw CliException.usage("No queue store serves the URL " + safe(url)
					+ ": use --db=<file>, or --url=jdbc:sqlite:<file>, jdbc:postgresql://<host>/<db>, "
					+ "jdbc:mariadb:// or jdbc:mysql://<host>/<db>");
		}
		String description = store.describe(url);
		try {
			store.checkBeforeOpening(url, options.tablePrefix, need == Need.ANYTHING);
		}
		catch (IllegalArgumentException ex) {
			throw CliException.usage(ex.getMessage());
		}
		catch (JobQueueException ex) {
			throw CliException.database(ex.getMessage());
		}
		StoreSettings settings = StoreSettings.forTool(options.tablePrefix, options.schema, options.user,
				options.password(tool), 2, Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(10));
		DataSource dataSource;
		try {
			dataSource = store.openDataSource(url, settings);
		}
		catch (RuntimeException ex) {
			throw CliException.database("Cannot open " + description + ": " + Failures.oneLine(ex));
		}
		JdbcStorage<?, ?, ?, ?, ?> storage = null;
		try {
			storage = (JdbcStorage<?, ?, ?, ?, ?>) store.createStorage(dataSource, description, false, settings);
			boolean queue = hasHistoryTable(dataSource, storage, description);
			if (!queue && need != Need.ANYTHING) {
				throw notAQueue(description, storage.tables().schemaHistory());
			}
			SchemaVersions versions = storage.schemaVersions();
			if (versions.newer()) {
				throw CliException.database("The queue " + description + " has schema version " + versions.applied()
						+ ", newer than this jobqueue-cli knows (" + versions.known()
						+ "): use the jobqueue-cli of the application's jobqueue version");
			}
			if (need == Need.CURRENT) {
				if (versions.behind()) {
					throw CliException.database("The queue " + description + " has schema version " + versions.applied()
							+ ", older than this jobqueue-cli's (" + versions.known()
							+ "): upgrade it with 'jobqueue-cli migrate' (or start the application), or use the "
							+ "jobqueue-cli of the application's jobqueue version");
				}
				storage.verifySchema();
			}
			return new QueueDatabase(store, description, serverName(store, dataSource), dataSource, storage, versions);
		}
		catch (RuntimeException ex) {
			close(storage);
			close(dataSource);
			if (ex instanceof CliException) {
				throw ex;
			}
			throw CliException.database("Cannot use " + description + ": " + Failures.oneLine(ex));
		}
	}

	private static boolean hasHistoryTable(DataSource dataSource, JdbcStorage<?, ?, ?, ?, ?> storage,
			String description) {
		String table = storage.tables().schemaHistory();
		try (Connection connection = dataSource.getConnection()) {
			String catalog = connection.getCatalog();
			String schema = storage.tables().schema();
			try (ResultSet rows = connection.getMetaData().getTables(catalog, schema, table, null)) {
				return rows.next();
			}
		}
		catch (SQLException ex) {
			throw CliException.database("Cannot connect to " + description + ": " + Failures.oneLine(ex));
		}
	}

	private static CliException notAQueue(String description, String table) {
		return CliException.database("Not a queue database: " + description + " has no table " + table
				+ " (wrong file or URL, or another --table-prefix/--schema? 'jobqueue-cli migrate' creates a queue)");
	}

	private static String safe(String url) {
		return dev.jobqueue.jdbc.JdbcUrls.withoutCredentials(url);
	}

	String storeName() {
		return this.store.name();
	}

	/** The server as it names itself ({@code MariaDB 10.11.6}), for what people read. */
	String serverName() {
		return this.serverName;
	}

	private static String serverName(StoreProvider store, DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			return store.serverName(connection);
		}
		catch (SQLException ex) {
			return store.name();
		}
	}

	String description() {
		return this.description;
	}

	DataSource dataSource() {
		return this.dataSource;
	}

	JdbcStorage<?, ?, ?, ?, ?> storage() {
		return this.storage;
	}

	/** What the queue shows of itself, read as the endpoint and the dashboard read it. */
	QueueViews views() {
		return new QueueViews(this.storage.insights());
	}

	SchemaVersions versions() {
		return this.versions;
	}

	/** The versions as they are now (after a migration, say). */
	SchemaVersions readVersions() {
		return this.storage.schemaVersions();
	}

	DefaultJobQueue queue() {
		return this.queue;
	}

	/** Stops what the store started (PostgreSQL's listener), then closes the pool. */
	@Override
	public void close() {
		close(this.storage);
		close(this.dataSource);
	}

	private static void close(Object resource) {
		if (resource instanceof AutoCloseable closeable) {
			try {
				closeable.close();
			}
			catch (Exception ex) {
				// closing the pool of a process about to exit
			}
		}
	}

}
