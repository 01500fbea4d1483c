package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints the write-ahead log on a thread of its own, for connections whose
 * {@code wal_autocheckpoint} is off (the queue's own pool: {@link SqliteDataSources}).
 * With SQLite's auto-checkpoint, the commit that crosses the threshold copies the log
 * into the database and syncs both on the committing thread: an enqueue or a claim then
 * takes tens of milliseconds on a slow disk. Here commits only count, and this thread
 * runs a {@code PASSIVE} checkpoint (it never waits for readers or blocks writers) once
 * {@link #COMMITS_PER_CHECKPOINT} commits have gone by, or a second after the last
 * checkpoint when there was any commit. The log stays as bounded as under the
 * auto-checkpoint: while a checkpoint leaves more than {@link #PAGES_PER_CHECKPOINT}
 * pages behind (the auto-checkpoint's threshold), the next one follows at once. On a
 * machine so busy that this thread is not scheduled for {@link #MAX_COMMITS_BEHIND}
 * commits, the writer that reaches that count checkpoints itself ({@link #catchUp}): a
 * bounded log wins over a commit path free of checkpoints.
 * <p>
 * Every process that writes with auto-checkpoint off runs its own checkpointer, so each
 * keeps the log bounded whoever else shares the file. The thread stops after a minute
 * without commits and starts again with the next one, so a closed database leaves no
 * thread behind.
 */
final class WalCheckpointer {

	private static final Logger logger = LoggerFactory.getLogger(WalCheckpointer.class);

	/**
	 * About as often as SQLite's default threshold of 1,000 pages at ~15 pages a commit.
	 */
	static final int COMMITS_PER_CHECKPOINT = 64;

	/** SQLite's default {@code wal_autocheckpoint}. */
	static final long PAGES_PER_CHECKPOINT = 1_000;

	/** A log longer than this is made to start over (16 MB at 4 KB pages). */
	static final long RESTART_PAGES = 4 * PAGES_PER_CHECKPOINT;

	/**
	 * Commits without a checkpoint after which the writer checkpoints itself
	 * ({@link #catchUp}): about {@link #RESTART_PAGES} pages at ~15 pages a commit.
	 */
	static final int MAX_COMMITS_BEHIND = 4 * COMMITS_PER_CHECKPOINT;

	private static final long MAX_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final long BEHIND_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

	private static final long IDLE_STOP_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final DataSource dataSource;

	private final String location;

	/** The in-process write lock of the database's writers. */
	private final ReentrantLock writeLock;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition due = this.lock.newCondition();

	/** Commits since the last checkpoint; guarded by {@link #lock}. */
	private long commits;

	/** Whether the thread runs; guarded by {@link #lock}. */
	private boolean running;

	/** Checkpoints run so far, for tests. */
	private volatile long checkpoints;

	private volatile long catchUps;

	/**
	 * Held while checkpointing, shared with the database's other checkpoints (see
	 * {@link SqliteDatabase}).
	 */
	private final ReentrantLock checkpointLock;

	WalCheckpointer(DataSource dataSource, String location, ReentrantLock writeLock, ReentrantLock checkpointLock) {
		this.dataSource = dataSource;
		this.location = location;
		this.writeLock = writeLock;
		this.checkpointLock = checkpointLock;
	}

	/**
	 * Counts a commit; wakes the thread (starting it if needed) when one is due.
	 * @return whether the thread has not begun a checkpoint for
	 * {@link #MAX_COMMITS_BEHIND} commits (a machine so busy that it was not scheduled):
	 * the committing writer must then {@link #catchUp} while it holds the write lock, so
	 * the log stays bounded however the threads are scheduled
	 */
	boolean committed() {
		this.lock.lock();
		try {
			this.commits++;
			if (this.commits >= MAX_COMMITS_BEHIND) {
				return true;
			}
			if (!this.running) {
				this.running = true;
				Thread thread = new Thread(this::run, "jobqueue-checkpointer");
				thread.setDaemon(true);
				thread.start();
			}
			else if (this.commits == COMMITS_PER_CHECKPOINT) {
				this.due.signal();
			}
			return false;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A checkpoint on the writer's own thread, run while it holds the process's write
	 * lock, when the checkpointer thread fell {@link #MAX_COMMITS_BEHIND} commits behind:
	 * no writer of this process adds to the log meanwhile, so the checkpoint copies it
	 * all (unless a reader holds old pages) and the next commit starts the log over. A
	 * failure is left to the thread's next pass: the writer's own commit went through.
	 */
	void catchUp() {
		this.lock.lock();
		try {
			this.commits = 0;
		}
		finally {
			this.lock.unlock();
		}
		try {
			checkpoint();
			this.catchUps++;
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("Checkpoint of {} by a writer failed: {}", this.location, ex.toString());
		}
	}

	/** Checkpoints run by writers because the thread was behind, for tests. */
	long catchUps() {
		return this.catchUps;
	}

	long checkpoints() {
		return this.checkpoints;
	}

	private void run() {
		long lastCommitSeen = System.nanoTime();
		boolean behind = false;
		while (true) {
			this.lock.lock();
			try {
				// Behind: the next checkpoint soon, but not in a busy loop while a reader
				// holds the pages.
				long waitUntil = System.nanoTime() + (behind ? BEHIND_PAUSE_NANOS : MAX_PAUSE_NANOS);
				while (this.commits < COMMITS_PER_CHECKPOINT) {
					long left = waitUntil - System.nanoTime();
					if (left <= 0) {
						break;
					}
					this.due.awaitNanos(left);
				}
				if (this.commits == 0 && !behind) {
					if (System.nanoTime() - lastCommitSeen > IDLE_STOP_NANOS) {
						this.running = false;
						return;
					}
					continue;
				}
				this.commits = 0;
			}
			catch (InterruptedException ex) {
				this.running = false;
				Thread.currentThread().interrupt();
				return;
			}
			finally {
				this.lock.unlock();
			}
			lastCommitSeen = System.nanoTime();
			try {
				long[] pages = checkpoint();
				// Only when nothing held the first pass back: with a reader on old pages,
				// a pass under the lock could not copy more either.
				if (pages[0] > RESTART_PAGES && pages[1] == pages[0]) {
					this.writeLock.lock();
					try {
						pages = checkpoint();
					}
					finally {
						this.writeLock.unlock();
					}
				}
				behind = pages[0] - pages[1] > PAGES_PER_CHECKPOINT;
			}
			catch (SQLException | RuntimeException ex) {
				// A closed pool, or a database going away: the next commit starts over.
				logger.debug("Checkpoint of {} failed: {}", this.location, ex.toString());
				this.lock.lock();
				try {
					this.running = false;
				}
				finally {
					this.lock.unlock();
				}
				return;
			}
		}
	}

	/**
	 * @return pages in the log, and pages of it copied into the database
	 */
	private long[] checkpoint() throws SQLException {
		this.checkpointLock.lock();
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
			this.checkpoints++;
			// busy, pages in the log, pages copied; -1 when the database is not in WAL
			// mode
			return rows.next() ? new long[] { Math.max(0, rows.getLong(2)), Math.max(0, rows.getLong(3)) }
					: new long[] { 0, 0 };
		}
		finally {
			this.checkpointLock.unlock();
		}
	}

}
