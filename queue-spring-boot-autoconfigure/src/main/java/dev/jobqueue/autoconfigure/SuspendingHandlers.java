package dev.jobqueue.autoconfigure;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

import kotlin.Unit;
import kotlin.coroutines.EmptyCoroutineContext;
import kotlinx.coroutines.BuildersKt;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Kotlin {@code suspend fun} handlers. The compiler adds a trailing {@code Continuation}
 * parameter; the handler runs to completion on the worker's thread inside
 * {@code runBlocking}, so timeouts, concurrency limits and the run's observation work as
 * for any handler. The worker interrupts the thread of a cancelled or timed-out run, and
 * {@code runBlocking} answers an interrupt by cancelling the coroutine.
 * <p>
 * Only loaded when a suspending handler is found, so Kotlin stays optional.
 */
final class SuspendingHandlers {

	static final String CONTINUATION = "kotlin.coroutines.Continuation";

	private static final String RUN_BLOCKING = "kotlinx.coroutines.BuildersKt";

	private SuspendingHandlers() {
	}

	/**
	 * Whether {@code method} is a Kotlin suspend function (its last parameter is the
	 * compiler's continuation).
	 */
	static boolean isSuspending(Method method) {
		Class<?>[] parameters = method.getParameterTypes();
		return parameters.length > 0 && parameters[parameters.length - 1].getName().equals(CONTINUATION);
	}

	/**
	 * Whether suspending handlers can run with {@code classLoader}: it must see
	 * kotlinx-coroutines-core.
	 */
	static boolean isSupported(@Nullable ClassLoader classLoader) {
		return ClassUtils.isPresent(RUN_BLOCKING, classLoader);
	}

	/**
	 * Runs the handler to completion on the calling thread.
	 * @param args the handler's arguments without the continuation
	 * @return its result, {@code null} for {@code Unit}
	 */
	static Object invoke(Method method, Object bean, Object[] args) throws Exception {
		return Coroutines.runBlocking(method, bean, args);
	}

	/**
	 * The code that touches Kotlin's types, in a class of its own: verifying a class
	 * loads the types its methods use, and an application without Kotlin must still be
	 * able to load {@link SuspendingHandlers}.
	 */
	private static final class Coroutines {

		static Object runBlocking(Method method, Object bean, Object[] args) throws Exception {
			Object result = BuildersKt.runBlocking(EmptyCoroutineContext.INSTANCE, (scope, continuation) -> {
				Object[] withContinuation = Arrays.copyOf(args, args.length + 1);
				withContinuation[args.length] = continuation;
				try {
					// Returns the result, or COROUTINE_SUSPENDED and completes the
					// continuation later.
					return method.invoke(bean, withContinuation);
				}
				catch (InvocationTargetException ex) {
					throw Coroutines.<RuntimeException>rethrow(ex.getTargetException());
				}
				catch (IllegalAccessException ex) {
					throw new IllegalStateException(ex);
				}
			});
			return (result instanceof Unit) ? null : result;
		}

		// Kotlin has no checked exceptions: what the handler threw goes to the worker as
		// it is.
		@SuppressWarnings("unchecked")
		private static <E extends Throwable> E rethrow(Throwable ex) throws E {
			throw (E) ex;
		}

	}

}
