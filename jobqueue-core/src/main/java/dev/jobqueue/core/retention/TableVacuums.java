package dev.jobqueue.core.retention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.core.store.TableMaintenance;

/**
 * Whether the {@link RetentionCleaner} vacuums the queue's tables after its runs, on a
 * database that leaves dead rows to a vacuum ({@link TableMaintenance}, PostgreSQL).
 * Every claim, outcome and delete leaves dead row versions behind; with the server's
 * autovacuum off, nothing reclaims them and the tables grow for as long as jobs run. By
 * default the queue then vacuums its own tables once per housekeeping run, and leaves
 * them to the server whenever its autovacuum is on.
 */
public final class TableVacuums {

	/** When the queue vacuums its tables itself. */
	public enum Mode {

		/** Only while autovacuum leaves one of its tables alone. */
		AUTO,
		/** After every housekeeping run, whatever autovacuum does. */
		ALWAYS,
		/** Never: the server's autovacuum, or the operator, does it. */
		NEVER

	}

	private static final Logger logger = LoggerFactory.getLogger(TableVacuums.class);

	private final TableMaintenance tables;

	private final Mode mode;

	private final Clock clock;

	private volatile List<String> withoutAutovacuum;

	private volatile Instant lastVacuum;

	/** Whether the last vacuum failed, so the next failure is not logged as loudly. */
	private volatile boolean failing;

	public TableVacuums(TableMaintenance tables, Mode mode, Clock clock) {
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
		this.mode = Objects.requireNonNull(mode, "'mode' must not be null");
		this.clock = Objects.requireNonNull(clock, "'clock' must not be null");
	}

	public Mode mode() {
		return this.mode;
	}

	/**
	 * Reads which of the queue's tables autovacuum leaves alone, and says in the log what
	 * that means whenever the answer changes (the first time included).
	 * @return those tables; empty when autovacuum looks after all of them
	 */
	public List<String> check() {
		List<String> found = List.copyOf(this.tables.tablesWithoutAutovacuum());
		List<String> before = this.withoutAutovacuum;
		this.withoutAutovacuum = found;
		if (found.equals(before) || found.isEmpty() && before == null) {
			return found;
		}
		if (found.isEmpty()) {
			logger.info("Autovacuum looks after the queue's tables again{}",
					(this.mode == Mode.AUTO) ? ": the queue leaves vacuuming them to the server" : "");
		}
		else if (this.mode == Mode.NEVER) {
			logger.warn("Autovacuum is off for the queue's tables {} and jobqueue.retention.vacuum=never: every claim, "
					+ "outcome and delete leaves dead rows behind that nothing reclaims, so these tables grow for as "
					+ "long as jobs run. Turn autovacuum on for them (ALTER TABLE … SET (autovacuum_enabled = true), "
					+ "or autovacuum = on in postgresql.conf), vacuum them on a schedule of your own, or set "
					+ "jobqueue.retention.vacuum=auto so the queue vacuums them itself.", found);
		}
		else {
			logger.info("Autovacuum is off for the queue's tables {}: the queue vacuums them itself after each "
					+ "housekeeping run (every jobqueue.retention.interval), so their dead rows do not pile up. {}",
					found,
					(this.mode == Mode.AUTO)
							? "Turn autovacuum on and it leaves them to the server; jobqueue.retention.vacuum=never "
									+ "stops it."
							: "It does so whatever autovacuum does (jobqueue.retention.vacuum=always).");
		}
		return found;
	}

	/**
	 * Whether the queue vacuums its tables now: by the mode and, unless it always does, a
	 * fresh check (made with {@code never} too, so that the health's warning follows the
	 * server).
	 */
	boolean due() {
		if (this.mode == Mode.ALWAYS) {
			return true;
		}
		boolean skipped = !check().isEmpty();
		return this.mode == Mode.AUTO && skipped;
	}

	/** Vacuums the queue's tables and notes when. */
	void vacuum() {
		long started = System.nanoTime();
		this.tables.vacuum();
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		this.lastVacuum = this.clock.instant();
		logger.debug("Vacuumed the queue's tables in {} ms", took.toMillis());
	}

	/**
	 * {@link #due()} for a cleanup run: a failed check (the database out of reach) only
	 * logs, so that it fails neither the run's deletes nor its checkpoint.
	 */
	boolean dueOrLog() {
		try {
			return due();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not find out whether autovacuum looks after the queue's tables; the next run asks "
					+ "again: {}", ex.toString());
			return false;
		}
	}

	/**
	 * {@link #vacuum()} for a cleanup run: a failure only logs (once until a vacuum works
	 * again), so that a run whose deletes worked is not reported failed for it.
	 */
	void vacuumOrLog() {
		try {
			vacuum();
			if (this.failing) {
				this.failing = false;
				logger.info("The queue's tables are vacuumed again");
			}
		}
		catch (RuntimeException ex) {
			if (!this.failing) {
				this.failing = true;
				logger.warn("Could not vacuum the queue's tables; each housekeeping run tries again: {}",
						ex.toString());
			}
			else {
				logger.debug("Could not vacuum the queue's tables again: {}", ex.toString());
			}
		}
	}

	/** When this process last vacuumed the queue's tables, if it did. */
	public Instant lastVacuum() {
		return this.lastVacuum;
	}

	/**
	 * What the health shows while dead rows pile up with nobody to reclaim them, as of
	 * the last check; {@code null} when all is well or nothing was checked yet.
	 */
	public String warning() {
		List<String> found = this.withoutAutovacuum;
		if (this.mode != Mode.NEVER || found == null || found.isEmpty()) {
			return null;
		}
		return "autovacuum is off for the queue's tables " + found + " and jobqueue.retention.vacuum=never: their "
				+ "dead rows are never reclaimed. Turn autovacuum on for them, or set jobqueue.retention.vacuum=auto";
	}

}
