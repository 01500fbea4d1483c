package dev.jobqueue.jdbc;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.JobQueueException;

/**
 * The queue's schema on one database, brought up to date by a private Flyway (its own
 * history table and migration location, the table prefix as the {@code prefix}
 * placeholder; in the queue's schema where the database has schemas) or, when the
 * operator migrates it, verified without a change. Either way a schema written by a newer
 * version of the queue is refused, not downgraded or run on with old code.
 *
 * <p>
 * A store says where its migrations are, what it checks on a connection first, how
 * processes starting at once take turns migrating, and what its failures mean.
 */
public abstract class JdbcSchema {

	private static final Logger logger = LoggerFactory.getLogger(JdbcSchema.class);

	private final DataSource dataSource;

	private final Tables tables;

	private final String migrationLocation;

	/**
	 * @param migrationLocation the store's migrations, as Flyway finds them
	 * ({@code classpath:...}); Java migrations there are loaded with the store's class
	 * loader
	 */
	protected JdbcSchema(DataSource dataSource, Tables tables, String migrationLocation) {
		this.dataSource = Objects.requireNonNull(dataSource, "'dataSource' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
		this.migrationLocation = Objects.requireNonNull(migrationLocation, "'migrationLocation' must not be null");
	}

	protected final DataSource dataSource() {
		return this.dataSource;
	}

	protected final Tables tables() {
		return this.tables;
	}

	/**
	 * Checks the connection settings (or the server), then migrates.
	 * @throws JobQueueException naming the setting or version that is wrong and what to
	 * do
	 */
	public final void initialize() {
		String location = checkConnection();
		migrateExclusively(location, () -> migrate(location));
	}

	/**
	 * Checks the connection settings (or the server) and that the schema is exactly the
	 * one this version knows, changing nothing: for operators who migrate it themselves.
	 * @throws JobQueueException naming the first migration that is missing and how to
	 * apply it, or saying the schema is newer than this version
	 */
	public final void verify() {
		String location = checkConnection();
		MigrationInfoService info = info(flyway(false));
		refuseNewer(info, location);
		MigrationInfo[] pending = info.pending();
		if (pending.length > 0) {
			String history = (this.tables.schema() != null) ? this.tables.schema() + "." + this.tables.schemaHistory()
					: this.tables.schemaHistory();
			String schemas = (this.tables.schema() != null) ? ", schemas " + this.tables.schema() : "";
			throw new JobQueueException("The queue " + described(location) + " is not up to date and "
					+ "jobqueue.datasource.initialize-schema=never: " + pending.length
					+ " migration(s) are not applied (history table " + history + "), the first being version "
					+ pending[0].getVersion() + " (" + pending[0].getDescription() + "). Let the queue migrate once: "
					+ "start it without the setting (or with initialize-schema=always), then set it back. Or run "
					+ "Flyway yourself with the " + storeModule() + " jar on its classpath: locations "
					+ this.migrationLocation + schemas + ", table " + this.tables.schemaHistory()
					+ ", placeholder prefix = '" + this.tables.prefix() + "'." + migrationNote());
		}
	}

	/**
	 * The schema's version next to the newest of the store's migrations, read from the
	 * history table without checking the connection settings and without changing
	 * anything: for tools that look at a queue (every migration is pending where the
	 * database holds no history table).
	 * @throws JobQueueException when the history cannot be read
	 */
	public final SchemaVersions versions() {
		MigrationInfoService info = info(flyway(false));
		MigrationInfo current = info.current();
		boolean newer = Arrays.stream(info.all())
			.anyMatch((migration) -> migration.getState().name().startsWith("FUTURE"));
		String applied = (current != null && current.getVersion() != null) ? current.getVersion().getVersion() : null;
		return new SchemaVersions(applied, latestKnown(info), info.pending().length, newer);
	}

	/**
	 * Checks what the store needs of its connections or server before anything else.
	 * @return where the database is, for messages: its URL or location
	 */
	protected abstract String checkConnection();

	/** The store's module, whose jar holds the migrations ({@code jobqueue-sqlite}). */
	protected abstract String storeModule();

	/**
	 * How to point the queue at another database or schema, for the refusal of a newer
	 * schema ("point jobqueue.datasource.url at another file").
	 */
	protected abstract String elsewhere();

	/**
	 * A sentence for operators who migrate by hand, after how to run Flyway; empty by
	 * default.
	 */
	protected String migrationNote() {
		return "";
	}

	/**
	 * Runs {@code migration} so that processes starting at once migrate one after
	 * another; by default as it is (Flyway locks where the database has a lock for that).
	 */
	protected void migrateExclusively(String location, Runnable migration) {
		migration.run();
	}

	/**
	 * Applies the pending migrations.
	 * @return how many were applied
	 */
	protected int applyMigrations(Flyway flyway) {
		return flyway.migrate().migrationsExecuted;
	}

	/**
	 * Turns a failure of Flyway into an error that says what to do; by default the
	 * failure itself.
	 * @param action what failed, as "migrate the queue's schema"
	 */
	protected RuntimeException failure(String action, RuntimeException ex) {
		return ex;
	}

	private void migrate(String location) {
		Flyway flyway = flyway(true);
		MigrationInfoService info = info(flyway);
		refuseNewer(info, location);
		announcePending(info, location);
		int applied;
		try {
			applied = applyMigrations(flyway);
		}
		catch (RuntimeException ex) {
			throw failure("migrate the queue's schema"
					+ ((this.tables.schema() != null) ? " '" + this.tables.schema() + "'" : ""), ex);
		}
		if (applied > 0) {
			logger.info("Queue {} migrated ({} migration(s), history in table {})", described(location), applied,
					this.tables.schemaHistory());
		}
	}

	/**
	 * Says, before it starts, what an upgrade of an existing schema is about to do: a
	 * migration that builds an index reads the whole table and blocks writes to it
	 * meanwhile, which an operator watching a slow start-up should be able to tell from a
	 * hang.
	 */
	private void announcePending(MigrationInfoService info, String location) {
		MigrationInfo current = info.current();
		MigrationInfo[] pending = info.pending();
		if (current == null || pending.length == 0) {
			return;
		}
		String steps = Arrays.stream(pending)
			.map((migration) -> migration.getVersion() + " (" + migration.getDescription() + ")")
			.collect(Collectors.joining(", "));
		logger.info("Queue {} is at schema version {}; applying {}. Writes to the queue's tables wait until it ends: "
				+ "an index build reads every job, about a quarter of a second per million on a small machine (see the README's "
				+ "\"Upgrading\")", described(location), current.getVersion(), steps);
	}

	private void refuseNewer(MigrationInfoService info, String location) {
		MigrationInfo[] future = Arrays.stream(info.all())
			.filter((migration) -> migration.getState().name().startsWith("FUTURE"))
			.toArray(MigrationInfo[]::new);
		if (future.length > 0) {
			throw new JobQueueException("The queue " + described(location) + " has schema version "
					+ future[future.length - 1].getVersion() + ", written by a newer version of jobqueue than this one "
					+ "(which knows up to " + latestKnown(info) + "). Refusing to start rather than run old code on a "
					+ "newer schema: upgrade jobqueue in this application, or " + elsewhere() + ".");
		}
	}

	private String described(String location) {
		return (this.tables.schema() != null) ? "schema '" + this.tables.schema() + "' in " + location
				: "database " + location;
	}

	/**
	 * @param mayCreateSchema whether Flyway may create the queue's schema (where the
	 * database has schemas)
	 */
	private Flyway flyway(boolean mayCreateSchema) {
		FluentConfiguration configuration = Flyway.configure(getClass().getClassLoader())
			.dataSource(this.dataSource)
			.table(this.tables.schemaHistory())
			.locations(this.migrationLocation)
			.placeholders(Map.of("prefix", this.tables.prefix()))
			.baselineOnMigrate(true)
			.baselineVersion("0")
			.createSchemas(false);
		if (this.tables.schema() != null) {
			configuration.schemas(this.tables.schema())
				.defaultSchema(this.tables.schema())
				.createSchemas(mayCreateSchema);
		}
		return configuration.load();
	}

	private MigrationInfoService info(Flyway flyway) {
		try {
			return flyway.info();
		}
		catch (RuntimeException ex) {
			throw failure("read the queue's schema history", ex);
		}
	}

	private static String latestKnown(MigrationInfoService info) {
		return Arrays.stream(info.all())
			.filter((migration) -> !migration.getState().name().startsWith("FUTURE") && migration.getVersion() != null)
			.map((migration) -> migration.getVersion().getVersion())
			.reduce((first, second) -> second)
			.orElse("none");
	}

}
