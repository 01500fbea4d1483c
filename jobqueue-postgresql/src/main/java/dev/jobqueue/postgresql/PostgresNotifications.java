package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.jdbc.Tables;

/**
 * Wake-ups across processes and hosts with {@code LISTEN/NOTIFY}. Enqueues (and cancels
 * of running jobs) send a notification in their own transaction, which PostgreSQL
 * delivers to every listening session when it commits. A daemon thread holds one
 * connection of the DataSource that listens on the queue's channel, and passes what it
 * hears on: to the process's {@link QueueSignals} (the worker claims at once, or
 * interrupts a cancelled run), and as a {@link #changeToken() change token}.
 *
 * <p>
 * A notification is a hint, never the only way a job is found: workers still poll at
 * their interval. When notifications cannot work (the connection goes through a
 * transaction-pooling PgBouncer, the server is down), the change token is {@code null}
 * and the worker simply polls; the thread reconnects by itself with a growing pause and,
 * once it listens again, wakes the worker in case it missed something meanwhile.
 */
public final class PostgresNotifications implements AutoCloseable {

	/**
	 * The channel of a queue's notifications: one per schema and prefix, so two queues in
	 * one database do not wake each other. At most 63 characters, PostgreSQL's limit for
	 * a name.
	 */
	public static String channel(Tables tables) {
		String channel = "jobqueue_" + tables.schema() + "_" + tables.prefix();
		return (channel.length() <= 63) ? channel : "jobqueue_" + Integer.toHexString(channel.hashCode());
	}

	static final String ENQUEUED = "e";

	static final String CANCEL = "c:";

	private static final String PROBE = "probe";

	private static final Logger logger = LoggerFactory.getLogger(PostgresNotifications.class);

	/**
	 * How long a LISTEN waits for its own probe before it concludes that notifications do
	 * not arrive.
	 */
	private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * How long the thread waits for notifications before it checks that its connection
	 * still works.
	 */
	private static final long WAIT_MILLIS = 1_000;

	private static final long KEEPALIVE_NANOS = Duration.ofSeconds(30).toNanos();

	private static final long MAX_BACKOFF_MILLIS = 30_000;

	private final DataSource dataSource;

	private final String channel;

	private final String location;

	/**
	 * Tells this process's own notifications apart: it signals itself directly, after
	 * commit.
	 */
	private final String node = UUID.randomUUID().toString().substring(0, 8);

	private final AtomicLong received = new AtomicLong();

	private volatile QueueSignals signals = QueueSignals.NONE;

	private volatile boolean listening;

	private volatile boolean closed;

	private volatile Thread thread;

	public PostgresNotifications(DataSource dataSource, Tables tables, String location) {
		this.dataSource = Objects.requireNonNull(dataSource, "'dataSource' must not be null");
		this.channel = PostgresNotifications.channel(tables);
		this.location = location;
	}

	/**
	 * A store that never listens (no driver class for it, or switched off): workers poll.
	 */
	static PostgresNotifications disabled(DataSource dataSource, Tables tables, String location) {
		PostgresNotifications notifications = new PostgresNotifications(dataSource, tables, location);
		notifications.closed = true;
		return notifications;
	}

	/**
	 * Where the notifications of other processes go; {@link QueueSignals#NONE} until set.
	 */
	public void signals(QueueSignals signals) {
		this.signals = Objects.requireNonNull(signals, "'signals' must not be null");
	}

	/** The payload this process sends for {@code kind}. */
	String message(String kind) {
		return kind + "/" + this.node;
	}

	/**
	 * Tells this process's worker that jobs became claimable in a transaction it just
	 * committed (other processes hear of them by the notification sent in it).
	 */
	void localJobsEnqueued() {
		try {
			this.signals.jobsEnqueued();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not wake up the worker: {}", ex.toString());
		}
	}

	/** Whether notifications arrive now. */
	public boolean listening() {
		return this.listening;
	}

	/**
	 * The number of notifications from other processes so far, or {@code null} while not
	 * listening.
	 */
	Object changeToken() {
		return this.listening ? this.received.get() : null;
	}

	/** Starts listening on a daemon thread; does nothing if started or closed. */
	public synchronized void start() {
		if (this.thread != null || this.closed) {
			return;
		}
		this.thread = new Thread(this::listenLoop, "jobqueue-listen-" + this.channel);
		this.thread.setDaemon(true);
		this.thread.start();
	}

	@Override
	public void close() {
		this.closed = true;
		this.listening = false;
		Thread listener = this.thread;
		if (listener != null) {
			// Ends a pause at once; a wait for notifications ends within WAIT_MILLIS.
			listener.interrupt();
			try {
				listener.join(5_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void listenLoop() {
		long backoff = 100;
		int failures = 0;
		while (!this.closed) {
			try (Connection listen = this.dataSource.getConnection(); Unlisten unlisten = new Unlisten(listen)) {
				if (!listen.getAutoCommit()) {
					listen.setAutoCommit(true);
				}
				PGConnection pg = listen.unwrap(PGConnection.class);
				if (!subscribe(listen, pg)) {
					if (this.closed) {
						// Closed during the probe: the notification did not come because
						// the
						// probe was cut short, not because the session lost it.
						break;
					}
					logger.warn("Queue notifications on {} do not arrive (LISTEN/NOTIFY needs a session of its own; a "
							+ "transaction-pooling PgBouncer does not keep one): workers poll at their interval instead. "
							+ "Trying again in {} s.", this.location, MAX_BACKOFF_MILLIS / 1000);
					pauseQuietly(MAX_BACKOFF_MILLIS);
					continue;
				}
				if (failures > 0) {
					logger.info("Queue notifications on {} work again after {} failed attempt(s)", this.location,
							failures);
				}
				failures = 0;
				backoff = 100;
				this.listening = true;
				// Enqueues committed while this process did not listen went unheard: look
				// now.
				this.received.incrementAndGet();
				this.signals.jobsEnqueued();
				receive(listen, pg);
			}
			catch (SQLException | RuntimeException ex) {
				this.listening = false;
				if (this.closed) {
					return;
				}
				failures++;
				if (failures == 1 || failures % 20 == 0) {
					logger.warn("Queue notifications on {} stopped (failure {} in a row; workers poll meanwhile), "
							+ "reconnecting in {} ms: {}", this.location, failures, backoff, ex.toString());
				}
				pauseQuietly(backoff);
				backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
			}
			finally {
				this.listening = false;
			}
		}
	}

	/**
	 * Listens, then checks with a probe of its own that notifications reach this session.
	 */
	private boolean subscribe(Connection listen, PGConnection pg) throws SQLException {
		try (Statement statement = listen.createStatement()) {
			statement.execute("LISTEN " + this.channel);
			statement.execute("NOTIFY " + this.channel + ", '" + message(PROBE) + "'");
		}
		long deadline = System.nanoTime() + PROBE_TIMEOUT.toNanos();
		while (!this.closed && System.nanoTime() < deadline) {
			PGNotification[] notifications = pg.getNotifications(100);
			if (notifications != null) {
				for (PGNotification notification : notifications) {
					if (notification.getParameter().equals(message(PROBE))) {
						return true;
					}
				}
			}
		}
		return false;
	}

	private void receive(Connection listen, PGConnection pg) throws SQLException {
		long lastCheck = System.nanoTime();
		while (!this.closed) {
			PGNotification[] notifications = pg.getNotifications((int) WAIT_MILLIS);
			if (notifications != null) {
				for (PGNotification notification : notifications) {
					dispatch(notification.getParameter());
				}
				lastCheck = System.nanoTime();
			}
			else if (System.nanoTime() - lastCheck > KEEPALIVE_NANOS) {
				// A connection cut without a word (a dropped network path) shows only
				// when something is sent.
				try (Statement statement = listen.createStatement()) {
					statement.execute("SELECT 1");
				}
				lastCheck = System.nanoTime();
			}
		}
	}

	private void dispatch(String message) {
		int slash = message.lastIndexOf('/');
		String kind = (slash >= 0) ? message.substring(0, slash) : message;
		if (slash >= 0 && message.substring(slash + 1).equals(this.node)) {
			return;
		}
		try {
			if (kind.equals(ENQUEUED)) {
				this.received.incrementAndGet();
				this.signals.jobsEnqueued();
			}
			else if (kind.startsWith(CANCEL)) {
				this.received.incrementAndGet();
				this.signals.cancelRequested(Long.parseLong(kind.substring(CANCEL.length())));
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not pass on queue notification '{}': {}", message, ex.toString());
		}
	}

	/**
	 * Stops listening before the connection goes back to a pool: a pooled connection that
	 * still listened would collect notifications in memory for whoever borrows it next.
	 */
	private record Unlisten(Connection connection) implements AutoCloseable {

		@Override
		public void close() {
			try (Statement statement = this.connection.createStatement()) {
				statement.execute("UNLISTEN *");
			}
			catch (SQLException | RuntimeException ex) {
				// A broken connection listens no more; the pool discards it.
			}
		}

	}

	private void pauseQuietly(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			if (!this.closed) {
				Thread.currentThread().interrupt();
			}
			this.closed = true;
		}
	}

}
