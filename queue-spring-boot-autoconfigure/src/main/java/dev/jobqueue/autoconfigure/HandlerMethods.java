package dev.jobqueue.autoconfigure;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
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
import dev.jobqueue.Misfire;
import dev.jobqueue.Schedule;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.JobInvoker;
import dev.jobqueue.core.PayloadCodec;

/**
 * Turns a {@link JobHandler} method into a {@link HandlerDefinition}, refusing signatures
 * that cannot work.
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

		static Attributes of(JobHandler annotation, @Nullable StringValueResolver resolver) {
			return new Attributes(resolve(annotation.cron(), resolver), resolve(annotation.every(), resolver),
					resolve(annotation.zone(), resolver), resolve(annotation.timeout(), resolver),
					resolve(annotation.rateLimit(), resolver), resolve(annotation.keyRateLimit(), resolver));
		}

		boolean cronDisabled() {
			return CRON_DISABLED.equals(this.cron);
		}

		private static String resolve(String value, @Nullable StringValueResolver resolver) {
			String resolved = (resolver != null && value != null) ? resolver.resolveStringValue(value) : value;
			return (resolved != null) ? resolved.strip() : "";
		}

	}

	/**
	 * The definition of a handler method.
	 * @param configured {@code jobqueue.handlers.<type>} of the method's type, or
	 * {@code null}
	 */
	static HandlerDefinition definition(Object bean, String beanName, Method method, JobHandler annotation,
			Attributes attributes, QueueProperties.@Nullable Handler configured, Supplier<PayloadCodec> codec) {
		String source = source(beanName, method);
		String type = annotation.value();
		if (type == null || type.isBlank() || !type.equals(type.strip())) {
			throw invalid(source, "@JobHandler needs a job type without leading or trailing spaces, for example "
					+ "@JobHandler(\"thumbnail\")");
		}
		int payloadIndex = -1;
		int contextIndex = -1;
		Class<?>[] parameters = method.getParameterTypes();
		boolean suspending = SuspendingHandlers.isSuspending(method);
		if (suspending) {
			String missing = SuspendingHandlers.missingSupport(bean.getClass().getClassLoader());
			if (missing != null) {
				throw invalid(source, missing);
			}
		}
		int declared = suspending ? parameters.length - 1 : parameters.length;
		for (int i = 0; i < declared; i++) {
			if (parameters[i] == JobContext.class) {
				if (contextIndex >= 0) {
					throw invalid(source, "it takes two JobContext parameters; take at most one");
				}
				contextIndex = i;
			}
			else {
				if (payloadIndex >= 0) {
					throw invalid(source, "it takes " + (declared - ((contextIndex >= 0) ? 1 : 0))
							+ " payload parameters; a handler takes one payload parameter (a record or bean for the "
							+ "JSON payload) and optionally a JobContext");
				}
				payloadIndex = i;
			}
		}
		checkErrorCodes(method, source);
		Duration timeout = parseTimeout(attributes.timeout(), source);
		FlowControl flowControl = HandlerFlowControls.of(type, source, annotation, attributes, configured);
		Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
		ReflectionUtils.makeAccessible(invocable);
		Type payloadType = (payloadIndex >= 0) ? method.getGenericParameterTypes()[payloadIndex] : null;
		JobInvoker invoker = new MethodInvoker(bean, invocable, declared, suspending, payloadIndex, payloadType,
				contextIndex, codec);
		try {
			return new HandlerDefinition(type, invoker, annotation.maxAttempts(), timeout, annotation.concurrency(),
					annotation.repeatable(), source, annotation.globalConcurrency(), flowControl);
		}
		catch (IllegalArgumentException ex) {
			throw invalid(source, ex.getMessage());
		}
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
			throw invalid(source, "it declares both cron and every; a handler has one schedule: keep one of them "
					+ "(or register further schedules with JobSchedules.register)");
		}
		if (!zone.isEmpty() && cron.isEmpty()) {
			throw invalid(source, "zone '" + zone + "' is given without a cron expression; a zone only applies to "
					+ "cron (intervals from 'every' do not depend on a zone)");
		}
		if (cron.isEmpty() && every.isEmpty()) {
			if (annotation.misfire() != Misfire.DEFAULT) {
				throw invalid(source, "misfire is set without a schedule; add cron or every, or remove misfire");
			}
			return null;
		}
		Schedule schedule;
		if (!cron.isEmpty()) {
			ZoneId zoneId = null;
			if (!zone.isEmpty()) {
				try {
					zoneId = ZoneId.of(zone);
				}
				catch (DateTimeException ex) {
					throw invalid(source, "zone '" + zone + "' is not a time zone; use a region id such as "
							+ "Europe/Paris or an offset such as UTC");
				}
			}
			try {
				schedule = Schedule.cron(cron, zoneId);
			}
			catch (IllegalArgumentException ex) {
				throw invalid(source, ex.getMessage());
			}
		}
		else {
			Duration interval;
			try {
				interval = DurationStyle.detectAndParse(every);
			}
			catch (IllegalArgumentException ex) {
				throw invalid(source, "every '" + every + "' is not a duration; use ISO-8601 (PT5M) or a value such "
						+ "as 5m or 30s");
			}
			try {
				schedule = Schedule.every(interval);
			}
			catch (IllegalArgumentException ex) {
				throw invalid(source, ex.getMessage());
			}
		}
		return schedule.withMisfire(annotation.misfire());
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
				throw invalid(source, "it throws " + thrown.getName() + ", whose @JobErrorCode(\"" + code.value()
						+ "\") is not an error code; use " + ErrorCodes.FORM);
			}
		}
	}

	private static Duration parseTimeout(String value, String source) {
		if (value == null || value.isBlank()) {
			return null;
		}
		try {
			return DurationStyle.detectAndParse(value.strip());
		}
		catch (IllegalArgumentException ex) {
			throw invalid(source,
					"timeout '" + value + "' is not a duration; use ISO-8601 (PT2M) or a value such " + "as 2m or 30s");
		}
	}

	private static IllegalStateException invalid(String source, String reason) {
		return new IllegalStateException("Invalid @JobHandler on " + source + ": " + reason);
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
