package dev.jobqueue.testing;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

import javax.sql.DataSource;

import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * A DataSource that injects faults into the statements run on its connections, repeatably
 * from a seed. Every statement execution ({@code execute*}, including the
 * {@code BEGIN IMMEDIATE} and {@code COMMIT} the queue sends as plain statements) and
 * every {@code getConnection()} is one step; each step may get a fault from the plan:
 * <ul>
 * <li>{@link Fault#FAIL}: an I/O error before the statement runs;</li>
 * <li>{@link Fault#BUSY}: {@code SQLITE_BUSY} before the statement runs, as if
 * busy_timeout ran out;</li>
 * <li>{@link Fault#FAIL_COMMIT}: a {@code COMMIT} fails before it runs, so the
 * transaction is rolled back;</li>
 * <li>{@link Fault#LOST_COMMIT}: a {@code COMMIT} runs, then fails, as if the reply was
 * lost: the caller thinks nothing was written;</li>
 * <li>{@link Fault#SLOW}: the statement runs late;</li>
 * <li>{@link Fault#CANT_OPEN}: {@code getConnection()} fails with
 * {@code SQLITE_CANTOPEN}.</li>
 * </ul>
 * {@code ROLLBACK} is never failed by default: a failed rollback is a fault of its own,
 * tested on its own.
 */
public final class FaultyDataSource implements DataSource {

	/** A fault the layer can inject. */
	public enum Fault {

		FAIL, BUSY, FAIL_COMMIT, LOST_COMMIT, SLOW, CANT_OPEN

	}

	private final DataSource target;

	private final Random random;

	private final Map<Fault, Double> rates = new EnumMap<>(Fault.class);

	private final Map<Fault, AtomicLong> injected = new EnumMap<>(Fault.class);

	private final AtomicLong stepCount = new AtomicLong();

	private final List<String> log = Collections.synchronizedList(new ArrayList<>());

	private volatile boolean enabled;

	private volatile long failAtStep = -1;

	private volatile Fault failAtStepWith;

	private volatile boolean failRollback;

	private volatile SqlConsumer connectionHook;

	/** Runs on each connection handed out, before the caller sees it. */
	@FunctionalInterface
	public interface SqlConsumer {

		void accept(Connection connection) throws SQLException;

	}

	private final List<String> steps = Collections.synchronizedList(new ArrayList<>());

	public FaultyDataSource(DataSource target, long seed) {
		this.target = target;
		this.random = new Random(seed);
		for (Fault fault : Fault.values()) {
			this.injected.put(fault, new AtomicLong());
		}
	}

	/** Injects {@code fault} at this rate per eligible step while enabled. */
	public FaultyDataSource rate(Fault fault, double rate) {
		this.rates.put(fault, rate);
		return this;
	}

	/**
	 * Injects {@code fault} at exactly step {@code step} (counted from now), whatever the
	 * rates.
	 */
	public FaultyDataSource failStep(long step, Fault fault) {
		this.failAtStep = this.stepCount.get() + step;
		this.failAtStepWith = fault;
		return this;
	}

	public FaultyDataSource failRollback(boolean failRollback) {
		this.failRollback = failRollback;
		return this;
	}

	/**
	 * Runs {@code hook} on every connection handed out, for example to set a
	 * per-connection pragma.
	 */
	public FaultyDataSource onConnection(SqlConsumer hook) {
		this.connectionHook = hook;
		return this;
	}

	public FaultyDataSource enabled(boolean enabled) {
		this.enabled = enabled;
		return this;
	}

	public long injected(Fault fault) {
		return this.injected.get(fault).get();
	}

	public long injectedTotal() {
		return this.injected.values().stream().mapToLong(AtomicLong::get).sum();
	}

	public long steps() {
		return this.stepCount.get();
	}

	/** The statement (or {@code getConnection}) of each step so far, in order. */
	public List<String> stepStatements() {
		synchronized (this.steps) {
			return new ArrayList<>(this.steps);
		}
	}

	/** What was injected where, for a failure message. */
	public List<String> log() {
		synchronized (this.log) {
			return new ArrayList<>(this.log);
		}
	}

	@Override
	public Connection getConnection() throws SQLException {
		Fault fault = next(Set.of(Fault.CANT_OPEN), "getConnection");
		if (fault == Fault.CANT_OPEN) {
			throw new SQLiteException("[SQLITE_CANTOPEN] injected: unable to open database file",
					SQLiteErrorCode.SQLITE_CANTOPEN);
		}
		Connection connection = this.target.getConnection();
		SqlConsumer hook = this.connectionHook;
		if (hook != null) {
			try {
				hook.accept(connection);
			}
			catch (SQLException | RuntimeException ex) {
				connection.close();
				throw ex;
			}
		}
		return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
				new Handler(connection, null));
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return getConnection();
	}

	private synchronized Fault next(Set<Fault> eligible, String what) {
		long step = this.stepCount.incrementAndGet();
		this.steps.add(what);
		Fault fault = null;
		if (step == this.failAtStep && eligible.contains(this.failAtStepWith)) {
			fault = this.failAtStepWith;
		}
		else if (this.enabled) {
			for (Fault candidate : eligible) {
				Double rate = this.rates.get(candidate);
				if (rate != null && this.random.nextDouble() < rate) {
					fault = candidate;
					break;
				}
			}
		}
		if (fault != null) {
			this.injected.get(fault).incrementAndGet();
			this.log.add("step " + step + ": " + fault + " on " + abbreviate(what));
		}
		return fault;
	}

	private static String abbreviate(String sql) {
		String flat = sql.replaceAll("\\s+", " ").strip();
		return (flat.length() > 60) ? flat.substring(0, 57) + "..." : flat;
	}

	private static boolean isExecution(Method method) {
		return method.getName().startsWith("execute");
	}

	/**
	 * Proxies a Connection or Statement; statements remember their SQL so COMMIT can be
	 * told apart.
	 */
	private final class Handler implements InvocationHandler {

		private final Object target;

		private final String sql;

		Handler(Object target, String sql) {
			this.target = target;
			this.sql = sql;
		}

		@Override
		public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
			if (method.getName().equals("isWrapperFor") && args != null && args[0] == SQLiteConnection.class) {
				// The queue keeps its prepared statements on the SQLite connection it
				// finds underneath (StatementCache); statements must pass through this
				// proxy to meet their faults, so the cache is not offered one. (unwrap
				// still reaches it, for closing a connection that cannot roll back.)
				return false;
			}
			if (method.getName().equals("unwrap") && args != null && args[0] instanceof Class<?> type) {
				if (type.isInstance(proxy)) {
					return proxy;
				}
				if (type.isInstance(this.target)) {
					return this.target;
				}
			}
			if (this.target instanceof Statement && isExecution(method)) {
				String sql = (args != null && args.length > 0 && args[0] instanceof String text) ? text : this.sql;
				return execute(method, args, (sql != null) ? sql : "?");
			}
			Object result = call(method, args);
			if (result instanceof PreparedStatement statement && method.getName().startsWith("prepare")) {
				return wrap(statement, PreparedStatement.class, (String) args[0]);
			}
			if (result instanceof Statement statement && method.getName().equals("createStatement")) {
				return wrap(statement, Statement.class, null);
			}
			return result;
		}

		private Object execute(Method method, Object[] args, String sql) throws Throwable {
			String keyword = sql.strip().toUpperCase(Locale.ROOT);
			boolean commit = keyword.startsWith("COMMIT") || keyword.startsWith("END");
			boolean rollback = keyword.startsWith("ROLLBACK");
			if (rollback) {
				if (FaultyDataSource.this.failRollback) {
					FaultyDataSource.this.log.add("ROLLBACK failed");
					throw new SQLiteException("[SQLITE_IOERR] injected: disk I/O error on ROLLBACK",
							SQLiteErrorCode.SQLITE_IOERR);
				}
				return call(method, args);
			}
			Set<Fault> eligible = commit
					? Set.of(Fault.FAIL, Fault.BUSY, Fault.FAIL_COMMIT, Fault.LOST_COMMIT, Fault.SLOW)
					: Set.of(Fault.FAIL, Fault.BUSY, Fault.SLOW);
			Fault fault = next(eligible, sql);
			if (fault == null) {
				return call(method, args);
			}
			switch (fault) {
				case FAIL ->
					throw new SQLiteException("[SQLITE_IOERR] injected: disk I/O error", SQLiteErrorCode.SQLITE_IOERR);
				case BUSY -> throw new SQLiteException("[SQLITE_BUSY] injected: database is locked",
						SQLiteErrorCode.SQLITE_BUSY);
				case FAIL_COMMIT ->
					throw new SQLiteException("[SQLITE_IOERR] injected: commit failed", SQLiteErrorCode.SQLITE_IOERR);
				case LOST_COMMIT -> {
					call(method, args);
					throw new SQLiteException("[SQLITE_IOERR] injected: commit done, reply lost",
							SQLiteErrorCode.SQLITE_IOERR);
				}
				case SLOW -> {
					Thread.sleep(1 + FaultyDataSource.this.random.nextInt(20));
					return call(method, args);
				}
				default -> throw new IllegalStateException(fault.name());
			}
		}

		private Object call(Method method, Object[] args) throws Throwable {
			try {
				return method.invoke(this.target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}

		private <T> T wrap(T statement, Class<T> type, String sql) {
			return type.cast(Proxy.newProxyInstance(FaultyDataSource.class.getClassLoader(), new Class<?>[] { type },
					new Handler(statement, sql)));
		}

	}

	@Override
	public PrintWriter getLogWriter() throws SQLException {
		return this.target.getLogWriter();
	}

	@Override
	public void setLogWriter(PrintWriter out) throws SQLException {
		this.target.setLogWriter(out);
	}

	@Override
	public void setLoginTimeout(int seconds) throws SQLException {
		this.target.setLoginTimeout(seconds);
	}

	@Override
	public int getLoginTimeout() throws SQLException {
		return this.target.getLoginTimeout();
	}

	@Override
	public Logger getParentLogger() throws SQLFeatureNotSupportedException {
		return this.target.getParentLogger();
	}

	@Override
	public <T> T unwrap(Class<T> iface) throws SQLException {
		if (iface.isInstance(this)) {
			return iface.cast(this);
		}
		return this.target.unwrap(iface);
	}

	@Override
	public boolean isWrapperFor(Class<?> iface) throws SQLException {
		return iface.isInstance(this) || this.target.isWrapperFor(iface);
	}

}
