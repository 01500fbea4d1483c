package dev.jobqueue.autoconfigure;

import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;
import org.springframework.validation.annotation.Validated;

import dev.jobqueue.Misfire;
import dev.jobqueue.core.retention.TableVacuums;
import dev.jobqueue.core.store.EnqueueVisibility;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.worker.WorkerSettings;
import dev.jobqueue.views.SnapshotSettings;

/**
 * Configuration of the job queue, under {@code jobqueue.*}.
 *
 * <p>
 * Long because every property carries the Javadoc that the configuration processor turns
 * into IDE metadata; it holds nested groups of fields, getters and setters and no logic,
 * so it is kept as one tree, as Boot's own properties classes are.
 */
@ConfigurationProperties("jobqueue")
@Validated
public class QueueProperties implements Validator {

	/**
	 * Whether the job queue is enabled.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of the queue's table names, so several queues or an application's own tables
	 * can share one file.
	 */
	private String tablePrefix = "";

	/**
	 * Largest payload accepted at enqueue, as UTF-8 JSON.
	 */
	private DataSize maxPayloadSize = DataSize.ofMegabytes(2);

	/**
	 * Largest result a handler may return, as UTF-8 JSON. A larger one fails the run with
	 * INVALID_OUTPUT:RESULT_TOO_LARGE (not retried).
	 */
	private DataSize maxResultSize = DataSize.ofMegabytes(2);

	@NestedConfigurationProperty
	private final Datasource datasource = new Datasource();

	@NestedConfigurationProperty
	private final Postgresql postgresql = new Postgresql();

	@NestedConfigurationProperty
	private final Enqueue enqueue = new Enqueue();

	@NestedConfigurationProperty
	private final Worker worker = new Worker();

	@NestedConfigurationProperty
	private final Retry retry = new Retry();

	/**
	 * Recurring jobs.
	 */
	private final Scheduling scheduling = new Scheduling();

	@NestedConfigurationProperty
	private final Retention retention = new Retention();

	@NestedConfigurationProperty
	private final Observability observability = new Observability();

	/**
	 * Settings of the handler of a job type, by type, each overriding the same attribute
	 * of its @JobHandler: rate-limit and key-rate-limit (permits/window, such as 100/1s,
	 * 10/1m, 5000/1d or 3/PT30S; empty for none), key-concurrency (0 for no limit),
	 * ordered and block-on-failure. For example handlers.charge.rate-limit=100/1s; a type
	 * with dots goes in brackets: handlers[mail.send].rate-limit=10/1s.
	 */
	private Map<String, Handler> handlers = new LinkedHashMap<>();

	/**
	 * Checks the values at binding (Boot calls a properties class that is a
	 * {@link Validator}), so a value that cannot work fails start-up naming the property
	 * before anything starts.
	 */
	@Override
	public void validate(Object target, Errors errors) {
		QueuePropertiesValidation.validate((QueueProperties) target, errors);
	}

	@Override
	public boolean supports(Class<?> type) {
		return QueueProperties.class.isAssignableFrom(type);
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getTablePrefix() {
		return this.tablePrefix;
	}

	public void setTablePrefix(String tablePrefix) {
		this.tablePrefix = tablePrefix;
	}

	public DataSize getMaxPayloadSize() {
		return this.maxPayloadSize;
	}

	public void setMaxPayloadSize(DataSize maxPayloadSize) {
		this.maxPayloadSize = maxPayloadSize;
	}

	public DataSize getMaxResultSize() {
		return this.maxResultSize;
	}

	public void setMaxResultSize(DataSize maxResultSize) {
		this.maxResultSize = maxResultSize;
	}

	public Datasource getDatasource() {
		return this.datasource;
	}

	public Postgresql getPostgresql() {
		return this.postgresql;
	}

	public Enqueue getEnqueue() {
		return this.enqueue;
	}

	public Worker getWorker() {
		return this.worker;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public Scheduling getScheduling() {
		return this.scheduling;
	}

	public Retention getRetention() {
		return this.retention;
	}

	public Observability getObservability() {
		return this.observability;
	}

	public Map<String, Handler> getHandlers() {
		return this.handlers;
	}

	public void setHandlers(Map<String, Handler> handlers) {
		this.handlers = handlers;
	}

	/**
	 * What an operations snapshot looks at, from the observability and worker settings.
	 * @return the settings of {@link dev.jobqueue.views.QueueViews#snapshot}
	 */
	public SnapshotSettings snapshotSettings() {
		Duration deadAfter = this.observability.getWorkerDeadAfter();
		if (deadAfter == null) {
			deadAfter = this.worker.getLease().multipliedBy(3);
		}
		return new SnapshotSettings(this.observability.getStuckAfter(), Math.max(1, this.observability.getTopErrors()),
				deadAfter, 10);
	}

	/**
	 * How enqueue behaves inside the caller's transactions.
	 */
	public static class Enqueue {

		/**
		 * When a job enqueued inside a transaction the queue cannot join (one on another
		 * database) becomes visible to workers: after that transaction commits (never, if
		 * it rolls back), or immediately.
		 */
		private EnqueueVisibility visibility = EnqueueVisibility.AFTER_COMMIT;

		public EnqueueVisibility getVisibility() {
			return this.visibility;
		}

		public void setVisibility(EnqueueVisibility visibility) {
			this.visibility = visibility;
		}

	}

	/**
	 * Where the queue's data lives.
	 */
	public static class Datasource {

		/**
		 * JDBC URL of the queue's own database: a SQLite file, for example
		 * jdbc:sqlite:/var/lib/myapp/jobs.db, or PostgreSQL, for example
		 * jdbc:postgresql://db:5432/app (which needs the org.postgresql:postgresql and
		 * org.flywaydb:flyway-database-postgresql dependencies). When not set, the queue
		 * shares the application's DataSource if that is SQLite or PostgreSQL, else uses
		 * jobqueue.db in the working directory.
		 */
		private String url;

		/**
		 * User of the queue's own PostgreSQL pool, when not in the URL.
		 */
		private String username;

		/**
		 * Password of the queue's own PostgreSQL pool, when not in the URL.
		 */
		private String password;

		/**
		 * How long a statement of the queue waits for a connection of its own PostgreSQL
		 * pool, for instance while the server is unreachable, before it fails (and the
		 * worker retries later).
		 */
		private Duration connectionTimeout = Duration.ofSeconds(10);

		/**
		 * How long a connection waits for SQLite's write lock before the queue retries
		 * (busy_timeout).
		 */
		private Duration busyTimeout = Duration.ofSeconds(5);

		/**
		 * How long a write keeps retrying while the database stays locked before it
		 * fails.
		 */
		private Duration lockWait = Duration.ofSeconds(30);

		/**
		 * SQLite synchronous mode of the queue's own connections: NORMAL (safe in WAL
		 * mode, fast) or FULL (also survives a power loss without losing the last
		 * commits).
		 */
		private String synchronous = "NORMAL";

		/**
		 * Connections in the queue's own pool. Writes are serialised in the process, so a
		 * few suffice for reads.
		 */
		private int poolSize = 4;

		/**
		 * When the queue creates and migrates its own tables. 'always' and 'embedded'
		 * migrate at start-up (a SQLite file is embedded in the application); 'never'
		 * leaves the schema to the operator and only checks at start-up that it is up to
		 * date.
		 */
		private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.ALWAYS;

		public String getUrl() {
			return this.url;
		}

		public void setUrl(String url) {
			this.url = url;
		}

		public String getUsername() {
			return this.username;
		}

		public void setUsername(String username) {
			this.username = username;
		}

		public String getPassword() {
			return this.password;
		}

		public void setPassword(String password) {
			this.password = password;
		}

		public Duration getConnectionTimeout() {
			return this.connectionTimeout;
		}

		public void setConnectionTimeout(Duration connectionTimeout) {
			this.connectionTimeout = connectionTimeout;
		}

		public Duration getBusyTimeout() {
			return this.busyTimeout;
		}

		public void setBusyTimeout(Duration busyTimeout) {
			this.busyTimeout = busyTimeout;
		}

		public Duration getLockWait() {
			return this.lockWait;
		}

		public void setLockWait(Duration lockWait) {
			this.lockWait = lockWait;
		}

		public String getSynchronous() {
			return this.synchronous;
		}

		public void setSynchronous(String synchronous) {
			this.synchronous = synchronous;
		}

		public int getPoolSize() {
			return this.poolSize;
		}

		public void setPoolSize(int poolSize) {
			this.poolSize = poolSize;
		}

		public DatabaseInitializationMode getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

	}

	/**
	 * The queue on PostgreSQL.
	 */
	public static class Postgresql {

		/**
		 * Schema of the queue's tables on PostgreSQL; created by the migrations when
		 * missing (the database user then needs CREATE on the database).
		 */
		private String schema = "public";

		public String getSchema() {
			return this.schema;
		}

		public void setSchema(String schema) {
			this.schema = schema;
		}

	}

	/**
	 * How this process claims and runs jobs.
	 */
	public static class Worker {

		/**
		 * Whether this process runs jobs. Disable for enqueue-only nodes.
		 */
		private boolean enabled = true;

		/**
		 * Whether the worker starts claiming jobs when the application starts. The test
		 * support turns it off to run jobs on the test thread.
		 */
		private boolean autoStartup = true;

		/**
		 * Jobs running at once in this process.
		 */
		private int concurrency = 8;

		/**
		 * How many jobs beyond its free slots the worker may hold claimed, waiting in a
		 * local buffer for a slot, so a busy worker claims (and commits) once per many
		 * jobs. Waiting jobs are claimed in the database (running, with a lease renewed
		 * like a running job's) and handed back at shutdown without counting an attempt.
		 * Jobs of types that are not repeatable or have a global cap never wait. 0 turns
		 * it off; at most 1000. Unset, it follows the worker's pace: at least 16 per slot
		 * (at least 64), and as much as the worker runs in about a quarter second, up to
		 * 1000.
		 */
		private Integer claimAhead;

		/**
		 * Longest wait between claims. Enqueues in this process wake the worker at once;
		 * jobs enqueued by other processes are seen within this interval.
		 */
		private Duration pollInterval = Duration.ofSeconds(1);

		/**
		 * How long a claim holds a job without renewal. A worker renews its leases every
		 * third of it; the jobs of a worker that died are taken back once it expires.
		 */
		private Duration lease = Duration.ofSeconds(60);

		/**
		 * How long shutdown waits for running jobs before handing them back to the queue.
		 */
		private Duration shutdownTimeout = Duration.ofSeconds(30);

		/**
		 * Snoozes a job may take before it fails with SNOOZE:LIMIT_REACHED.
		 */
		private int maxSnoozes = 100;

		/**
		 * How long a cancelled running job may go on after its interrupt. A handler still
		 * running then is reported (log and CANCEL_IGNORED event) and the job is recorded
		 * as cancelled.
		 */
		private Duration cancelTimeout = Duration.ofSeconds(10);

		/**
		 * Whether handlers run on virtual threads. Defaults to
		 * spring.threads.virtual.enabled (Java 21+).
		 */
		private Boolean virtualThreads;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

		public int getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(int concurrency) {
			this.concurrency = concurrency;
		}

		public Integer getClaimAhead() {
			return this.claimAhead;
		}

		public void setClaimAhead(Integer claimAhead) {
			if (claimAhead != null) {
				WorkerSettings.requireValidClaimAhead(claimAhead);
			}
			this.claimAhead = claimAhead;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public Duration getLease() {
			return this.lease;
		}

		public void setLease(Duration lease) {
			this.lease = lease;
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
		}

		public int getMaxSnoozes() {
			return this.maxSnoozes;
		}

		public void setMaxSnoozes(int maxSnoozes) {
			this.maxSnoozes = maxSnoozes;
		}

		public Duration getCancelTimeout() {
			return this.cancelTimeout;
		}

		public void setCancelTimeout(Duration cancelTimeout) {
			this.cancelTimeout = cancelTimeout;
		}

		public Boolean getVirtualThreads() {
			return this.virtualThreads;
		}

		public void setVirtualThreads(Boolean virtualThreads) {
			this.virtualThreads = virtualThreads;
		}

	}

	/**
	 * How recurring schedules ({@code @JobHandler(cron = ...)},
	 * {@code JobSchedules.register}) fire.
	 */
	public static class Scheduling {

		/**
		 * Whether this process declares and fires its schedules. Another process
		 * declaring the same schedule fires it; each tick yields one job across all
		 * processes either way.
		 */
		private boolean enabled = true;

		/**
		 * Whether schedules start firing on their own thread when the application starts.
		 * The test support turns it off to fire them on the test thread.
		 */
		private boolean autoStartup = true;

		/**
		 * Longest wait between looks at the schedules. The scheduler also wakes at the
		 * next tick it knows of.
		 */
		private Duration pollInterval = Duration.ofSeconds(1);

		/**
		 * Default zone of cron schedules declared without one. Defaults to the JVM's
		 * zone.
		 */
		private ZoneId zone;

		/**
		 * Default policy for ticks missed while no process fired them: 'once' enqueues
		 * one catch-up job, 'skip' none.
		 */
		private Misfire misfire = Misfire.ONCE;

		/**
		 * How late a tick may fire and still count as on time rather than missed.
		 */
		private Duration misfireThreshold = Duration.ofMinutes(1);

		/**
		 * Schedules declared by configuration, by name: each needs a type and a cron or
		 * every.
		 */
		private Map<String, ScheduleEntry> schedules = new LinkedHashMap<>();

		public boolean isAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

		public Map<String, ScheduleEntry> getSchedules() {
			return this.schedules;
		}

		public void setSchedules(Map<String, ScheduleEntry> schedules) {
			this.schedules = schedules;
		}

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public ZoneId getZone() {
			return this.zone;
		}

		public void setZone(ZoneId zone) {
			this.zone = zone;
		}

		public Misfire getMisfire() {
			return this.misfire;
		}

		public void setMisfire(Misfire misfire) {
			this.misfire = misfire;
		}

		public Duration getMisfireThreshold() {
			return this.misfireThreshold;
		}

		public void setMisfireThreshold(Duration misfireThreshold) {
			this.misfireThreshold = misfireThreshold;
		}

	}

	/**
	 * One schedule declared in configuration, as
	 * {@code jobqueue.scheduling.schedules.<name>.*}.
	 */
	public static class ScheduleEntry {

		/**
		 * Job type to enqueue at each tick.
		 */
		private String type;

		/**
		 * Spring cron expression (six fields, or a macro such as @daily).
		 */
		private String cron;

		/**
		 * Fixed interval, ticking at whole multiples of it since the epoch. Not together
		 * with cron.
		 */
		private Duration every;

		/**
		 * Zone the cron expression is read in. Defaults to jobqueue.scheduling.zone.
		 */
		private ZoneId zone;

		/**
		 * Policy for missed ticks. Defaults to jobqueue.scheduling.misfire.
		 */
		private Misfire misfire;

		/**
		 * Payload of every job, one property per field (payload.region=eu gives
		 * {"region":"eu"}; values from properties are strings). Empty for a null payload.
		 */
		private Map<String, Object> payload = new LinkedHashMap<>();

		public String getType() {
			return this.type;
		}

		public void setType(String type) {
			this.type = type;
		}

		public String getCron() {
			return this.cron;
		}

		public void setCron(String cron) {
			this.cron = cron;
		}

		public Duration getEvery() {
			return this.every;
		}

		public void setEvery(Duration every) {
			this.every = every;
		}

		public ZoneId getZone() {
			return this.zone;
		}

		public void setZone(ZoneId zone) {
			this.zone = zone;
		}

		public Misfire getMisfire() {
			return this.misfire;
		}

		public void setMisfire(Misfire misfire) {
			this.misfire = misfire;
		}

		public Map<String, Object> getPayload() {
			return this.payload;
		}

		public void setPayload(Map<String, Object> payload) {
			this.payload = payload;
		}

	}

	/**
	 * How failed jobs are tried again.
	 */
	public static class Retry {

		/**
		 * Attempts of a job whose request and handler set none.
		 */
		private int maxAttempts = 5;

		/**
		 * Wait after the first failed attempt; it doubles with each further one (with
		 * jitter).
		 */
		private Duration initialBackoff = Duration.ofSeconds(10);

		/**
		 * Longest wait between attempts.
		 */
		private Duration maxBackoff = Duration.ofHours(1);

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Duration getInitialBackoff() {
			return this.initialBackoff;
		}

		public void setInitialBackoff(Duration initialBackoff) {
			this.initialBackoff = initialBackoff;
		}

		public Duration getMaxBackoff() {
			return this.maxBackoff;
		}

		public void setMaxBackoff(Duration maxBackoff) {
			this.maxBackoff = maxBackoff;
		}

	}

	/**
	 * How long finished jobs are kept.
	 */
	public static class Retention {

		/**
		 * Whether finished jobs are deleted once they are older than their retention.
		 * Write-ahead log checkpoints run every interval either way.
		 */
		private boolean enabled = true;

		/**
		 * How long succeeded jobs are kept after they finished. Zero or negative (for
		 * example -1) keeps them forever.
		 */
		private Duration succeeded = Duration.ofDays(30);

		/**
		 * How long failed jobs are kept after they finished. Zero or negative (for
		 * example -1) keeps them forever.
		 */
		private Duration failed = Duration.ofDays(90);

		/**
		 * How long cancelled jobs are kept after they finished. Zero or negative (for
		 * example -1) keeps them forever.
		 */
		private Duration cancelled = Duration.ofDays(30);

		/**
		 * Retention per job type, overriding the per-status values for every final status
		 * of that type (for example per-type.report=7d). Zero or negative keeps that
		 * type's jobs forever.
		 */
		private Map<String, Duration> perType = new LinkedHashMap<>();

		/**
		 * Rows deleted per transaction; the write lock is released between batches.
		 */
		private int batchSize = 5000;

		/**
		 * How often the cleanup and the write-ahead log checkpoint run. A run deletes
		 * everything that has expired, batch by batch, then hands the freed space back to
		 * the file system.
		 */
		private Duration interval = Duration.ofMinutes(1);

		/**
		 * How long the cleanup lease holds without renewal. The running cleaner renews it
		 * between batches; if its process dies, another process takes over the cleanup
		 * once this has passed.
		 */
		private Duration lease = Duration.ofSeconds(30);

		/**
		 * PostgreSQL: when the queue vacuums its own tables after each housekeeping run.
		 * 'auto' does it only while the server's autovacuum leaves one of them alone (off
		 * on the server or for the table), 'always' after every run, 'never' leaves it to
		 * the server or the operator (and warns while nobody does it).
		 */
		private TableVacuums.Mode vacuum = TableVacuums.Mode.AUTO;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getSucceeded() {
			return this.succeeded;
		}

		public void setSucceeded(Duration succeeded) {
			this.succeeded = succeeded;
		}

		public Duration getFailed() {
			return this.failed;
		}

		public void setFailed(Duration failed) {
			this.failed = failed;
		}

		public Duration getCancelled() {
			return this.cancelled;
		}

		public void setCancelled(Duration cancelled) {
			this.cancelled = cancelled;
		}

		public Map<String, Duration> getPerType() {
			return this.perType;
		}

		public void setPerType(Map<String, Duration> perType) {
			this.perType = perType;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

		public Duration getLease() {
			return this.lease;
		}

		public void setLease(Duration lease) {
			this.lease = lease;
		}

		public TableVacuums.Mode getVacuum() {
			return this.vacuum;
		}

		public void setVacuum(TableVacuums.Mode vacuum) {
			this.vacuum = vacuum;
		}

	}

	/**
	 * What the actuator endpoint, health indicator and meters report.
	 */
	public static class Observability {

		/**
		 * How long a job may run without a heartbeat before it counts as stuck.
		 */
		private Duration stuckAfter = Duration.ofMinutes(15);

		/**
		 * Error codes listed by name in the Top-N; the rest are summed under OTHER. Also
		 * bounds the jobqueue.errors meter's error_code tag.
		 */
		private int topErrors = 10;

		/**
		 * Age of the oldest claimable job (due, not waiting out a backoff) beyond which
		 * the health indicator reports the degraded status. Not set: the queue's age does
		 * not affect health.
		 */
		private Duration maxQueueAge;

		/**
		 * Health status of the jobqueue component when jobs are stuck or the queue is
		 * older than max-queue-age. DEGRADED is not in Boot's default status order, so
		 * the application's aggregate health stays UP (HTTP 200); OUT_OF_SERVICE or DOWN
		 * take the whole application's health down with it.
		 */
		private String degradedStatus = "DEGRADED";

		/**
		 * How often the snapshot behind the jobqueue.* gauges is refreshed. A scrape
		 * reads the latest snapshot and never queries the database.
		 */
		private Duration refreshInterval = Duration.ofSeconds(10);

		/**
		 * A worker whose heartbeat is older than this no longer counts as handling its
		 * job types. Not set: three times jobqueue.worker.lease.
		 */
		private Duration workerDeadAfter;

		/**
		 * Characters of a job's payload and result shown by the actuator endpoint; 0
		 * shows only their length (for payloads that hold personal data).
		 */
		private int payloadPreview = 200;

		public Duration getStuckAfter() {
			return this.stuckAfter;
		}

		public void setStuckAfter(Duration stuckAfter) {
			this.stuckAfter = stuckAfter;
		}

		public int getTopErrors() {
			return this.topErrors;
		}

		public void setTopErrors(int topErrors) {
			this.topErrors = topErrors;
		}

		public Duration getMaxQueueAge() {
			return this.maxQueueAge;
		}

		public void setMaxQueueAge(Duration maxQueueAge) {
			this.maxQueueAge = maxQueueAge;
		}

		public String getDegradedStatus() {
			return this.degradedStatus;
		}

		public void setDegradedStatus(String degradedStatus) {
			this.degradedStatus = degradedStatus;
		}

		public Duration getRefreshInterval() {
			return this.refreshInterval;
		}

		public void setRefreshInterval(Duration refreshInterval) {
			this.refreshInterval = refreshInterval;
		}

		public Duration getWorkerDeadAfter() {
			return this.workerDeadAfter;
		}

		public void setWorkerDeadAfter(Duration workerDeadAfter) {
			this.workerDeadAfter = workerDeadAfter;
		}

		public int getPayloadPreview() {
			return this.payloadPreview;
		}

		public void setPayloadPreview(int payloadPreview) {
			this.payloadPreview = payloadPreview;
		}

	}

	/**
	 * Flow control of one job type's handler, as {@code jobqueue.handlers.<type>.*}: each
	 * value set here replaces the same attribute of the type's {@code @JobHandler}; a
	 * value not set leaves the attribute as it is.
	 */
	public static class Handler {

		/**
		 * Most starts of the type in any window, across every process on the database, as
		 * permits/window (a sliding window): 100/1s, 10/1m, 5000/1d or 3/PT30S. Empty for
		 * no limit. Overrides the handler's rateLimit.
		 */
		private String rateLimit;

		/**
		 * Most starts of one key of the type in any window, as permits/window: 10/1m, for
		 * example. Empty for no limit. Overrides the handler's keyRateLimit.
		 */
		private String keyRateLimit;

		/**
		 * Most running jobs of one key of the type at once, across every process; 0 for
		 * no limit. Overrides the handler's keyConcurrency.
		 */
		private Integer keyConcurrency;

		/**
		 * Whether the jobs of one key start one after another in enqueue order. Overrides
		 * the handler's ordered.
		 */
		private Boolean ordered;

		/**
		 * Whether, for an ordered type, a job that failed for good holds back the later
		 * jobs of its key until it is retried or deleted, rather than letting the next
		 * one go. Overrides the handler's blockOnFailure.
		 */
		private Boolean blockOnFailure;

		public String getRateLimit() {
			return this.rateLimit;
		}

		public void setRateLimit(String rateLimit) {
			this.rateLimit = rateLimit;
		}

		public String getKeyRateLimit() {
			return this.keyRateLimit;
		}

		public void setKeyRateLimit(String keyRateLimit) {
			this.keyRateLimit = keyRateLimit;
		}

		public Integer getKeyConcurrency() {
			return this.keyConcurrency;
		}

		public void setKeyConcurrency(Integer keyConcurrency) {
			this.keyConcurrency = keyConcurrency;
		}

		public Boolean getOrdered() {
			return this.ordered;
		}

		public void setOrdered(Boolean ordered) {
			this.ordered = ordered;
		}

		public Boolean getBlockOnFailure() {
			return this.blockOnFailure;
		}

		public void setBlockOnFailure(Boolean blockOnFailure) {
			this.blockOnFailure = blockOnFailure;
		}

	}

}
