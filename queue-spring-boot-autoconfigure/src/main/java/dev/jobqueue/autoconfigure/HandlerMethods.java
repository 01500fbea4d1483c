package dev.jobqueue.autoconfigure;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringValueResolver;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.InvalidJobInputException;
import dev.jobqueue.JobContext;
import dev.jobqueue.JobErrorCode;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.Misfire;
import dev.jobqueue.Schedule;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.JobInvoker;
import dev.jobqueue.core.PayloadCodec;

/**
 * Turns a {@link JobHandler} method into a {@link HandlerDefinition}, refusing signatures
 * and attributes that cannot work. Each refusal is a {@link JobQueueException} whose
 * first sentence names the handler (bean and method) and the attribute or parameter at
 * fault, and whose rest says what to do: Boot's failure analysis shows them as
 * description and action.
 */
final class HandlerMethods {

	private HandlerMethods() {
	}

	/**
	 * The string attributes of a {@link JobHandler} that may hold {@code ${…}}
	 * placeholders, resolved and stripped. A cron of {@value #CRON_DISABLED} (as for
	 * {@code @Scheduled}) turns the handler's schedule off.
	 */
	record Attributes(String cron, String every, String zone, String timeout, String rateLimit, String keyRateLimit) {

		static final String CRON_DISABLED = "-";

		/**
		 * @param source the handler, for messages (bean and method)
		 */
		static Attributes of(JobHandler annotation, @Nullable StringValueResolver resolver, String source) {
			return new Attributes(resolve("cron", annotation.cron(), resolver, source),
					resolve("every", annotation.every(), resolver, source),
					resolve("zone", annotation.zone(), resolver, source),
					resolve("timeout", annotation.timeout(), resolver, source),
					resolve("rateLimit", annotation.rateLimit(), resolver, source),
					resolve("keyRateLimit", annotation.keyRateLimit(), resolver, source));
		}

		boolean cronDisabled() {
			return CRON_DISABLED.equals(this.cron);
		}

		/** The schedule attribute that is set, as written, for messages. */
		String scheduleShown() {
			return this.cron.isEmpty() ? "every \"" + this.every + "\"" : "cron \"" + this.cron + "\"";
		}

		private static String resolve(String name, String value, @Nullable StringValueResolver resolver,
				String source) {
			String resolved;
			try {
				resolved = (resolver != null && value != null) ? resolver.resolveStringValue(value) : value;
			}
			catch (IllegalArgumentException ex) {
				throw invalid(source, name + " \"" + value + "\" cannot be resolved: " + ex.getMessage(),
						"Set the property it names, or give the placeholder a default after a colon, as in "
								+ "${name:default}.");
			}
			return (resolved != null) ? resolved.strip() : "";
		}

	}

	/**
	 * Where a handler method takes its payload and its {@link JobContext}.
	 *
	 * @param declared the parameters the user declared (a suspend fun's continuation is
	 * the compiler's)
	 * @param payloadIndex the payload's, or -1 for none
	 * @param contextIndex the context's, or -1 for none
	 */
	private record Parameters(int declared, int payloadIndex, int contextIndex) {

		static Parameters of(Method method, boolean suspending, String source) {
			Class<?>[] types = method.getParameterTypes();
			int declared = suspending ? types.length - 1 : types.length;
			int contextIndex = -1;
			int contexts = 0;
			List<Integer> payloads = new ArrayList<>();
			for (int i = 0; i < declared; i++) {
				if (types[i] == JobContext.class) {
					contextIndex = i;
					contexts++;
				}
				else {
					payloads.add(i);
				}
			}
			if (contexts > 1) {
				throw invalid(source, "it takes " + contexts + " JobContext parameters",
						"Take at most one JobContext, next to the payload parameter.");
			}
			if (payloads.size() > 1) {
				List<String> names = payloads.stream().map((index) -> types[index].getSimpleName()).toList();
				throw invalid(source, "it takes " + payloads.size() + " payload parameters " + names,
						"Take one payload parameter (a record or bean the JSON payload maps to, or String or JsonNode "
								+ "for the raw JSON) and optionally a JobContext; put several values in one record.");
			}
			return new Parameters(declared, payloads.isEmpty() ? -1 : payloads.get(0), contextIndex);
		}

	}

	/**
	 * The definition of a handler method.
	 * @param source the handler, for messages (see {@link #source})
	 * @param configured {@code jobqueue.handlers.<type>} of the method's type, or
	 * {@code null}
	 * @param classLoader the application's, where a suspending handler needs Kotlin's
	 * coroutines
	 */
	static HandlerDefinition definition(Object bean, String source, Method method, JobHandler annotation,
			Attributes attributes, QueueProperties.@Nullable Handler configured, Supplier<PayloadCodec> codec,
			@Nullable ClassLoader classLoader) {
		String type = annotation.value();
		checkType(type, source);
		boolean suspending = SuspendingHandlers.isSuspending(method);
		if (suspending && !SuspendingHandlers.isSupported(classLoader)) {
			throw invalid(source, "it is a suspend fun, and running one needs kotlinx-coroutines-core on the classpath",
					"Add org.jetbrains.kotlinx:kotlinx-coroutines-core, or declare the handler without 'suspend'.");
		}
		Parameters parameters = Parameters.of(method, suspending, source);
		checkErrorCodes(method, source);
		checkCounts(annotation, source);
		Duration timeout = parseTimeout(attributes.timeout(), source);
		FlowControl flowControl = HandlerFlowControls.of(type, source, annotation, attributes, configured);
		Method invocable = invocable(bean, method, source);
		ReflectionUtils.makeAccessible(invocable);
		int payloadIndex = parameters.payloadIndex();
		Type payloadType = (payloadIndex >= 0) ? method.getGenericParameterTypes()[payloadIndex] : null;
		JobInvoker invoker = new MethodInvoker(bean, invocable, parameters.declared(), suspending, payloadIndex,
				payloadType, parameters.contextIndex(), codec);
		return new HandlerDefinition(type, invoker, annotation.maxAttempts(), timeout, annotation.concurrency(),
				annotation.repeatable(), source, annotation.globalConcurrency(), flowControl);
	}

	/**
	 * The schedule a {@link JobHandler} declares with {@code cron} or {@code every}, or
	 * {@code null}.
	 */
	static Schedule schedule(JobHandler annotation, Attributes attributes, String source) {
		if (attributes.cronDisabled()) {
			return null;
		}
		String cron = attributes.cron();
		String every = attributes.every();
		String zone = attributes.zone();
		if (!cron.isEmpty() && !every.isEmpty()) {
			throw invalid(source, "it declares both cron \"" + cron + "\" and every \"" + every + "\"",
					"A handler has one schedule: keep one of them, or register further schedules with "
							+ "JobSchedules.register.");
		}
		if (!zone.isEmpty() && cron.isEmpty()) {
			throw invalid(source, "zone \"" + zone + "\" is given without cron",
					"A zone applies to cron only (an interval from every does not depend on a zone): remove zone, "
							+ "or schedule with cron.");
		}
		if (cron.isEmpty() && every.isEmpty()) {
			if (annotation.misfire() != Misfire.DEFAULT) {
				throw invalid(source, "misfire = " + annotation.misfire() + " is set without a schedule",
						"Add cron or every, or remove misfire.");
			}
			return null;
		}
		Schedule schedule = cron.isEmpty() ? every(every, source) : cron(cron, zone, source);
		return schedule.withMisfire(annotation.misfire());
	}

	private static Schedule cron(String cron, String zone, String source) {
		ZoneId zoneId = null;
		if (!zone.isEmpty()) {
			try {
				zoneId = ZoneId.of(zone);
			}
			catch (DateTimeException ex) {
				throw invalid(source, "zone \"" + zone + "\" is not a time zone",
						"Use a region id such as Europe/Paris, or an offset such as UTC or +02:00.");
			}
		}
		try {
			return Schedule.cron(cron, zoneId);
		}
		catch (IllegalArgumentException ex) {
			// The parser's own message, without Schedule's advice around it.
			String reason = (ex.getCause() != null) ? ex.getCause().getMessage() : ex.getMessage();
			throw invalid(source, "cron \"" + cron + "\" is not a cron expression: " + reason,
					"Use Spring's six fields (second minute hour day-of-month month day-of-week) or a macro such as "
							+ "@daily, for example \"0 0 * * * *\" for every hour; \"-\" turns the schedule off.");
		}
	}

	private static Schedule every(String every, String source) {
		Duration interval;
		try {
			interval = DurationStyle.detectAndParse(every);
		}
		catch (IllegalArgumentException ex) {
			throw invalid(source, "every \"" + every + "\" is not a duration",
					"Write it in ISO-8601 (PT5M) or as a value such as 5m or 30s.");
		}
		try {
			return Schedule.every(interval);
		}
		catch (IllegalArgumentException ex) {
			String reason = (interval.compareTo(Duration.ofSeconds(1)) < 0) ? "is shorter than a second"
					: "is not a whole number of milliseconds";
			throw invalid(source, "every \"" + every + "\" " + reason,
					"A schedule ticks at most once a second: use an interval of at least 1s in whole milliseconds, "
							+ "for example 30s or PT5M.");
		}
	}

	/**
	 * Fails start-up on a handler with a schedule when there is no scheduler to declare
	 * it with, rather than leaving the schedule silently unfired.
	 */
	static JobQueueException noScheduler(String source, Attributes attributes) {
		return invalid(source,
				"it declares " + attributes.scheduleShown() + ", but there is no JobScheduler to declare it with",
				"Give the JobHandlerBeanPostProcessor a JobScheduler, or remove the schedule from the handler (a "
						+ "cron of \"-\" turns it off).");
	}

	/** Where a handler is declared, for messages. */
	static String source(String beanName, Method method) {
		return "bean '" + beanName + "' method " + method.getDeclaringClass().getSimpleName() + "." + method.getName()
				+ "()";
	}

	/**
	 * The {@link JobErrorCode} of each exception the handler declares it throws has the
	 * form {@code CATEGORY:SUBCATEGORY}: the one place such codes can be checked before a
	 * job fails with them. (Codes of a {@link dev.jobqueue.JobFailedException} are
	 * checked when it is created.)
	 */
	private static void checkErrorCodes(Method method, String source) {
		for (Class<?> thrown : method.getExceptionTypes()) {
			JobErrorCode code = thrown.getAnnotation(JobErrorCode.class);
			if (code != null && !ErrorCodes.isValid(code.value())) {
				throw invalid(source,
						"it throws " + thrown.getName() + ", whose @JobErrorCode(\"" + code.value()
								+ "\") is not an error code",
						"Give the exception a code of the form " + ErrorCodes.FORM + ".");
			}
		}
	}

	/** The job type is one that enqueue accepts, so that the handler can ever run. */
	private static void checkType(String type, String source) {
		if (type == null || type.isBlank()) {
			throw invalid(source, "value, the job type, is blank",
					"Give the job type the method handles, for example @JobHandler(\"thumbnail\").");
		}
		String problem = null;
		if (!type.equals(type.strip())) {
			problem = "value \"" + type + "\" has leading or trailing spaces";
		}
		else if (type.length() > EnqueueLimits.MAX_TYPE_LENGTH) {
			problem = "value has " + type.length() + " characters, more than the " + EnqueueLimits.MAX_TYPE_LENGTH
					+ " a job type may have";
		}
		else if (type.chars().anyMatch(Character::isISOControl)) {
			problem = "value holds a control character (such as a line break or tab)";
		}
		if (problem != null) {
			throw invalid(source, problem,
					"Write the job type as enqueue takes it: 1 to " + EnqueueLimits.MAX_TYPE_LENGTH + " characters, "
							+ "no control characters, no leading or trailing spaces; for example "
							+ "@JobHandler(\"thumbnail\").");
		}
	}

	private static void checkCounts(JobHandler annotation, String source) {
		if (annotation.maxAttempts() < 0) {
			throw invalid(source, "maxAttempts = " + annotation.maxAttempts() + " is negative",
					"Set it to the attempts a job of this type may use, for example 3, or to 0 for "
							+ "jobqueue.retry.max-attempts.");
		}
		if (annotation.concurrency() < 0) {
			throw invalid(source, "concurrency = " + annotation.concurrency() + " is negative",
					"Set it to the most runs of this type at once in this process, for example 2, or to 0 for no "
							+ "limit beyond the worker pool.");
		}
		if (annotation.globalConcurrency() < 0) {
			throw invalid(source, "globalConcurrency = " + annotation.globalConcurrency() + " is negative",
					"Set it to the most runs of this type at once across every process on the database, for "
							+ "example 4, or to 0 for no such cap.");
		}
	}

	private static Duration parseTimeout(String value, String source) {
		if (value == null || value.isBlank()) {
			return null;
		}
		Duration timeout;
		try {
			timeout = DurationStyle.detectAndParse(value.strip());
		}
		catch (IllegalArgumentException ex) {
			throw invalid(source, "timeout \"" + value + "\" is not a duration",
					"Write it in ISO-8601 (PT2M) or as a value such as 2m or 30s, or leave it empty for no limit.");
		}
		if (timeout.isZero() || timeout.isNegative()) {
			throw invalid(source, "timeout \"" + value + "\" is not positive",
					"Give the longest a run may take, for example PT2M or 30s, or leave it empty for no limit.");
		}
		return timeout;
	}

	/**
	 * The method to call on the bean, which may be a proxy: one that cannot pass the call
	 * on to the bean fails start-up here rather than every job later.
	 */
	private static Method invocable(Object bean, Method method, String source) {
		try {
			return AopUtils.selectInvocableMethod(method, bean.getClass());
		}
		catch (IllegalStateException ex) {
			if (AopUtils.isJdkDynamicProxy(bean)) {
				throw invalid(source,
						"the bean is a proxy of its interfaces, and none of them declares " + method.getName() + "()",
						"Declare the method on an interface the bean implements, or let Spring proxy the bean's "
								+ "class (spring.aop.proxy-target-class=true, Spring Boot's default).");
			}
			throw invalid(source, "it is private, and the bean is a proxy, which cannot pass a call of a private "
					+ "method on to the bean", "Make the method package-private, protected or public.");
		}
	}

	/**
	 * A mistake in a handler's declaration.
	 * @param problem what is wrong, naming the attribute or parameter (one sentence,
	 * without its full stop)
	 * @param action what to do (one or more sentences)
	 */
	static JobQueueException invalid(String source, String problem, String action) {
		return new JobQueueException("Invalid @JobHandler on " + source + ": " + problem + ". " + action);
	}

	private record MethodInvoker(Object bean, Method method, int parameterCount, boolean suspending, int payloadIndex,
			Type payloadType, int contextIndex, Supplier<PayloadCodec> codec) implements JobInvoker {

		@Override
		public Object invoke(String payload, JobContext context) throws Exception {
			Object[] args = new Object[this.parameterCount];
			if (this.payloadIndex >= 0) {
				args[this.payloadIndex] = decode(payload);
			}
			if (this.contextIndex >= 0) {
				args[this.contextIndex] = context;
			}
			if (this.suspending) {
				return SuspendingHandlers.invoke(this.method, this.bean, args);
			}
			try {
				return this.method.invoke(this.bean, args);
			}
			catch (InvocationTargetException ex) {
				Throwable cause = ex.getTargetException();
				if (cause instanceof Exception exception) {
					throw exception;
				}
				if (cause instanceof Error error) {
					throw error;
				}
				throw ex;
			}
		}

		private Object decode(String payload) {
			try {
				return this.codec.get().fromJson(payload, this.payloadType);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidJobInputException("PAYLOAD",
						"The payload does not map to " + this.payloadType.getTypeName() + ": " + ex.getMessage(), ex);
			}
		}

	}

}
