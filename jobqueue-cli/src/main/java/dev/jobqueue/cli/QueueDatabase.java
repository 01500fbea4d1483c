package dev.jobqueue.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;

import javax.sql.DataSource;

import org.sqlite.SQLiteConfig;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.jackson.JacksonPayloadCodec;
import dev.jobqueue.jdbc.JdbcStorage;
import dev.jobqueue.jdbc.StoreProvider;
import dev.jobqueue.jdbc.StoreProviders;
import dev.jobqueue.jdbc.StoreSettings;
import dev.jobqueue.sqlite.SqliteDataSources;
import dev.jobqueue.views.QueueViews;
import tools.jackson.databind.json.JsonMapper;

/**
 * The queue's database as the tool opens it: the store that serves the URL (found with
 * {@link StoreProviders}, as the application finds it), its own small pool, the store's
 * {@link JdbcStorage} and a {@link DefaultJobQueue} on it without handlers, so every
 * write goes through the same store code as the application's. No Spring context.
 *
 * <p>
 * Before the store touches a database, the tool checks that it holds a queue: a SQLite
 * file is read through a read-only connection first (the store's pool would create a
 * missing file and switch an existing one to WAL), a server database is asked for the
 * queue's schema history table. A schema newer than this tool's is refused, and so is an
 * older one except by {@code migrate} and {@code doctor}.
 */
final class QueueDatabase implements AutoCloseable {

	private static final byte[] SQLITE_HEADER = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);

	private final StoreProvider store;

	private final String description;

	private final DataSource dataSource;

	private final JdbcStorage<?, ?, ?, ?, ?> storage;

	private final SchemaVersions versions;

	private final DefaultJobQueue queue;

	private QueueDatabase(StoreProvider store, String description, DataSource dataSource,
			JdbcStorage<?, ?, ?, ?, ?> storage, SchemaVersions versions) {
		this.store = store;
		this.description = description;
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
	static QueueDatabase open(DatabaseOptions options, Need need) {
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
		boolean sqlite = store.name().equals("SQLite");
		if (sqlite && need != Need.ANYTHING) {
			checkSqliteFile(url, description, options.tablePrefix);
		}
		if (sqlite && need == Need.ANYTHING) {
			checkNotForeignFile(url, description);
		}
		StoreSettings settings = StoreSettings.forTool(options.tablePrefix, options.schema, options.user,
				options.password(), 2, Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(10));
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
			SchemaVersions versions = queue ? SchemaVersions.read(store, dataSource, storage.tables(), description)
					: SchemaVersions.none(store, dataSource, storage.tables(), description);
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
			return new QueueDatabase(store, description, dataSource, storage, versions);
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

	/**
	 * A SQLite file must exist, be a SQLite database and hold the queue's history table;
	 * checked on a read-only connection that changes nothing.
	 */
	private static void checkSqliteFile(String url, String description, String prefix) {
		Path file = SqliteDataSources.fileOf(url);
		if (file == null) {
			throw CliException.usage("An in-memory SQLite database holds no queue: name the queue's file");
		}
		if (!Files.isRegularFile(file)) {
			throw CliException.database("No queue database at " + file + ": the file does not exist"
					+ (Files.isDirectory(file) ? " (it is a folder)" : "")
					+ " (create one with 'jobqueue-cli migrate', or point --db at the application's file)");
		}
		checkNotForeignFile(url, description);
		SQLiteConfig config = new SQLiteConfig();
		config.setReadOnly(true);
		config.setBusyTimeout(5000);
		try (Connection connection = config.createConnection("jdbc:sqlite:" + file);
				ResultSet rows = connection.createStatement()
					.executeQuery("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '"
							+ prefix.replace("'", "''") + "jobqueue_schema_history'")) {
			if (!rows.next() || rows.getInt(1) == 0) {
				throw notAQueue(file.toString(), prefix + "jobqueue_schema_history");
			}
		}
		catch (SQLException ex) {
			throw CliException.database("Cannot read " + file + ": " + Failures.oneLine(ex));
		}
	}

	/** An existing file that is not a SQLite database is never opened by the store. */
	private static void checkNotForeignFile(String url, String description) {
		Path file = SqliteDataSources.fileOf(url);
		if (file == null || !Files.isRegularFile(file)) {
			return;
		}
		byte[] header = new byte[SQLITE_HEADER.length];
		int read;
		try (InputStream in = Files.newInputStream(file)) {
			read = in.readNBytes(header, 0, header.length);
		}
		catch (IOException ex) {
			throw CliException.database("Cannot read " + file + ": " + ex.getMessage());
		}
		if (read == 0) {
			throw CliException.database("Not a queue database: " + file + " is an empty file");
		}
		if (read < header.length || !Arrays.equals(header, SQLITE_HEADER)) {
			throw CliException.database("Not a queue database: " + file + " is not a SQLite file");
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
		return SchemaVersions.read(this.store, this.dataSource, this.storage.tables(), this.description);
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
