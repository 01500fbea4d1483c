package dev.jobqueue.benchmarks;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;

import javax.sql.DataSource;

/**
 * Counts the write transactions the queue commits, by watching for {@code COMMIT} on its
 * connections. On a shared machine the wall-clock figures drift; commits per job do not,
 * and they are what the burn-down costs.
 */
final class CommitCounter {

	final LongAdder commits = new LongAdder();

	DataSource wrap(DataSource dataSource) {
		return proxy(DataSource.class, dataSource,
				(method, result) -> (result instanceof Connection connection)
						? proxy(Connection.class, connection,
								(m, r) -> m.getName().equals("createStatement") ? countingStatement((Statement) r) : r)
						: result);
	}

	private Statement countingStatement(Statement statement) {
		return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Statement.class },
				(proxy, method, args) -> {
					if (method.getName().equals("execute") && args != null && args.length == 1
							&& "COMMIT".equals(args[0])) {
						this.commits.increment();
					}
					return invoke(method, statement, args);
				});
	}

	private interface ResultMapper {

		Object map(Method method, Object result);

	}

	@SuppressWarnings("unchecked")
	private static <T> T proxy(Class<T> type, T target, ResultMapper mapper) {
		InvocationHandler handler = (proxy, method, args) -> {
			if (method.getName().equals("unwrap") || method.getName().equals("isWrapperFor")) {
				return invoke(method, target, args);
			}
			return mapper.map(method, invoke(method, target, args));
		};
		return (T) Proxy.newProxyInstance(CommitCounter.class.getClassLoader(), new Class<?>[] { type }, handler);
	}

	private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
